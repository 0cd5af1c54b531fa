from __future__ import absolute_import, division, print_function

import io

import pytest

from ssbench.compat import PY2
from ssbench.report.compute import suitefigures
from ssbench.report.render import suitehtml
from tests.unit.report.compute.test_suitefigures import step, step_doc

plotly = pytest.importorskip('plotly')


def suite_doc(rates=(None, None)):
    return suitefigures.suite_document('<curve>', [
        step(index + 1, 'u%d' % (8 << index),
             step_doc(rate=rate, rps=100.0 * (index + 1), scale=index + 1,
                      errors=index),
             stats_file='/tmp/s/curve.%02d.u%d.stat.gz' % (
                 index + 1, 8 << index),
             html='/tmp/s/curve.%02d.html' % (index + 1))
        for index, rate in enumerate(rates)])


def test_closed_loop_curves_are_drawn_against_the_steps():
    charts = dict(suitehtml.chart_specs(suite_doc()))
    assert sorted(charts) == ['chart-errors', 'chart-knee',
                              'chart-throughput']
    throughput = charts['chart-throughput']
    assert throughput['layout']['xaxis']['type'] == 'category'
    assert throughput['data'][0]['x'] == ['1 u8', '2 u16']
    assert throughput['data'][0]['y'] == [100.0, 200.0]
    assert len(throughput['data']) == 1
    knee = charts['chart-knee']
    assert [trace['name'] for trace in knee['data']] == [
        'p50', 'p99', 'p99.9']
    assert knee['data'][1]['x'] == [100.0, 200.0]
    assert knee['data'][1]['y'] == [0.4, 0.8]
    assert knee['layout']['yaxis']['type'] == 'log'


def test_open_loop_curves_are_drawn_against_the_offered_rate():
    charts = dict(suitehtml.chart_specs(suite_doc(rates=(100, 250))))
    throughput = charts['chart-throughput']
    assert throughput['layout']['xaxis']['type'] == 'linear'
    assert [trace['name'] for trace in throughput['data']] == [
        'achieved', 'offered']
    assert throughput['data'][1]['y'] == [100, 250]


def test_the_page_escapes_names_and_links_each_step():
    out = io.BytesIO() if PY2 else io.StringIO()
    suitehtml.render_suite_html(suite_doc(), out)
    page = out.getvalue()
    page = page.decode('utf-8') if PY2 else page
    assert '<h1>&lt;curve&gt;</h1>' in page
    assert '<curve>' not in page
    assert '<a href="curve.01.html">report</a>' in page
    assert '<a href="curve.02.u16.stat.gz">stats file</a>' in page
    assert page.count('<div class="chart" id=') == 3


def test_a_suite_without_results_has_no_charts():
    doc = suitefigures.suite_document('c', [step(1, 'u8', None,
                                                 complete=False)])
    assert suitehtml.chart_specs(doc) == []
    assert 'not run' in suitehtml.steps_html(doc)

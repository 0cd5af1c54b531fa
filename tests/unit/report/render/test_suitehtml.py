from __future__ import absolute_import, division, print_function

import io
import math
import re

import pytest

from ssbench.compat import PY2
from ssbench.report.compute import metricnames, suitefigures
from ssbench.report.render import headline, htmltables, suitehtml
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
    # Milliseconds, ticked at 1-2-5.
    assert knee['data'][1]['y'] == [400.0, 800.0]
    yaxis = knee['layout']['yaxis']
    assert yaxis['type'] == 'log'
    assert yaxis['title']['text'] == 'Last-byte latency (ms, log scale)'
    assert yaxis['ticktext'] == ['100', '200', '500', '1000', '2000']


def test_open_loop_curves_are_drawn_against_the_offered_rate():
    charts = dict(suitehtml.chart_specs(suite_doc(rates=(100, 250))))
    throughput = charts['chart-throughput']
    assert throughput['layout']['xaxis']['type'] == 'linear'
    assert [trace['name'] for trace in throughput['data']] == [
        'achieved', 'offered']
    assert throughput['data'][1]['y'] == [100, 250]


def search_doc(rates, met):
    """A capacity search's suite run at `rates` in that order."""
    steps = [step(index + 1, 'rate=%g' % rate,
                  step_doc(rate=rate, rps=rate * 0.98, scale=rate / 100.0),
                  slo=[] if rate <= met else ['p99 missed'])
             for index, rate in enumerate(rates)]
    return suitefigures.suite_document('<search>', steps, search={
        'summary': 'highest rate met: %g jobs/s' % met, 'why': None,
        'busy_steps': [], 'highest_met': met, 'lowest_missed': None,
        'client_limit': None})


def test_a_search_is_drawn_in_the_order_of_its_rates():
    charts = dict(suitehtml.chart_specs(search_doc(
        (40, 80, 160, 120, 100), 100)))
    for div_id in ('chart-throughput', 'chart-errors'):
        achieved = charts[div_id]['data'][0]
        assert achieved['x'] == [40, 80, 100, 120, 160]
        # Labelled with the run order.
        assert achieved['text'] == ['1', '2', '5', '4', '3']
        assert achieved['mode'] == 'lines+markers+text'
        assert achieved['hovertext'][2] == 'step 5: rate=100'
    # Latency against the rate offered; p99's points labelled alone.
    knee = charts['chart-knee']
    assert [trace['x'] for trace in knee['data']] == [[40, 80, 100, 120,
                                                       160]] * 3
    assert [trace['mode'] for trace in knee['data']] == [
        'lines+markers', 'lines+markers+text', 'lines+markers']
    assert knee['layout']['xaxis']['title']['text'] == \
        'Offered load (jobs/s)'


class Objective(object):
    def __init__(self, text, operation, kind, metric, limit):
        self.text, self.limit = text, limit
        self.name = metricnames.MetricName(operation, kind, metric)


OBJECTIVES = [Objective('p99<200ms', 'total', 'last_byte', 'p99', 0.2),
              Objective('errors<0.1%', 'total', None, 'errors', 0.1),
              Objective('read.p99<1s', 'read', 'last_byte', 'p99', 1.0),
              Objective('first_byte.p50<1s', 'total', 'first_byte', 'p50',
                        1.0)]


def test_objectives_are_drawn_on_the_chart_of_their_figure():
    charts = dict(suitehtml.chart_specs(suite_doc(), OBJECTIVES))
    knee = charts['chart-knee']['layout']
    assert [(s['y0'], s['y1']) for s in knee['shapes']] == [(200.0, 200.0)]
    assert [(a['text'], a['y']) for a in knee['annotations']] == [
        ('objective p99&lt;200ms', pytest.approx(math.log10(200)))]
    # The line is on the axis, even below every point.
    assert knee['yaxis']['tickvals'][0] <= 200.0
    errors = charts['chart-errors']['layout']
    assert [s['y0'] for s in errors['shapes']] == [0.1]
    assert 'shapes' not in charts['chart-throughput']['layout']


def render(doc, **kwargs):
    out = io.BytesIO() if PY2 else io.StringIO()
    suitehtml.render_suite_html(doc, out, **kwargs)
    page = out.getvalue()
    return page.decode('utf-8') if PY2 else page


def test_the_page_opens_with_the_best_step_and_what_ran():
    doc = search_doc((40, 80, 160, 120, 100), 100)
    doc['options'] = {'warmup': 2, 'noop': False, 'arrival': None}
    for entry in doc['steps']:
        entry['scenario'] = 'scenarios/<x>.scenario'
    page = render(doc, objectives=OBJECTIVES[:2])
    top = page.index('<section id="headline">')
    assert top < page.index('id="curves"')
    assert 'Step 5 (rate=100): the highest rate that met the objectives' \
        in page
    block = page[top:page.index('</section>', top)]
    line = headline.headline(doc['steps'][4]['figures'])
    assert re.sub('<[^>]+>', '', block.split('class="headline">')[1]) == \
        htmltables.esc(line)
    assert '<span id="about-objective">p99&lt;200ms, errors&lt;0.1%</span>' \
        in page
    assert 'scenarios/&lt;x&gt;.scenario' in page
    assert '<span id="about-settings">warmup=2</span>' in page
    assert '<span id="about-date">2023-11-14 22:13 UTC</span>' in page


def test_a_page_can_read_plotly_from_the_shared_copy():
    page = render(suite_doc(), js_src='../s/plotly.min.js')
    assert '<script src="../s/plotly.min.js"></script>' in page
    assert len(page) < 100000
    assert 'read from <code>../s/plotly.min.js</code>' in page
    assert len(render(suite_doc())) > 1000000


def test_the_page_escapes_names_and_links_each_step():
    page = render(suite_doc())
    assert '<h1>&lt;curve&gt;</h1>' in page
    assert '<curve>' not in page
    assert '<a href="curve.01.html">report</a>' in page
    assert '<a href="curve.02.u16.stat.gz">stats file</a>' in page
    # A page elsewhere links them by their relative paths.
    page = render(suite_doc(), page_dir='/tmp/pages')
    assert '<a href="../s/curve.01.html">report</a>' in page
    assert page.count('<div class="chart" id=') == 3


def test_a_suite_without_results_has_no_charts():
    doc = suitefigures.suite_document('c', [step(1, 'u8', None,
                                                 complete=False)])
    assert suitehtml.chart_specs(doc) == []
    assert 'not run' in suitehtml.steps_html(doc)

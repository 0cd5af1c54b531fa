from __future__ import absolute_import, division, print_function

import io
import json

from ssbench.compat import PY2
from ssbench.report import suite
from tests.unit.report.test_compare import document, latency, operation


def step_doc(rate=None, rps=100.0, scale=1.0, errors=0, client=None):
    doc = document([operation('total', errors=errors, rps=rps,
                              last=latency(scale)),
                    operation('read', rps=rps / 2, last=latency(scale))])
    if rate is not None:
        doc['header']['rate'] = rate
    doc['bandwidth'] = {'operations': {'total': {'MB_per_second': 1.5}}}
    if client is not None:
        doc['client'] = client
    return doc


def step(number, label, doc, **extra):
    entry = {'step': number, 'label': label, 'complete': True,
             'figures': suite.step_figures(doc) if doc else None}
    entry.update(extra)
    return entry


def test_the_figures_of_a_step():
    figures = suite.step_figures(step_doc(rate=500, errors=10))
    assert figures['offered'] == 500
    assert figures['health'] == 'unknown'
    total = figures['operations']['total']
    assert total['count'] == 1000 and total['errors'] == 10
    assert round(total['error_share'], 3) == 0.990
    assert total['latency'] == {'p50': 0.1, 'p99': 0.4, 'p99_9': 0.8}
    assert total['MB_per_second'] == 1.5
    assert figures['operations']['read']['MB_per_second'] is None


def test_health_in_a_word_the_client_limit_first():
    word = suite.health_word
    assert word({'client': {'saturated': True, 'host_busy': True}}) == \
        'saturated'
    assert word({'client': {'queue_growing': True}}) == 'queue growing'
    assert word({'client': {'saturated': False}}) == 'ok'
    assert word({}) == 'unknown'


def test_the_table_has_a_line_per_step():
    doc = suite.suite_document('curve', [
        step(1, 'u8', step_doc(client={'saturated': False})),
        step(2, 'u16.rate400', step_doc(rate=400, scale=3, errors=5),
             steady={'steady': False}, slo=['p99<1s: ...']),
        step(3, 'u32', None, complete=False)])
    out = io.BytesIO() if PY2 else io.StringIO()
    suite.render_table(doc, out)
    assert out.getvalue().splitlines() == [
        'Suite "curve": 3 steps',
        'Step  Values       Offered  Achieved       p50       p99     p99.9'
        '     Errors  MB/s  Client',
        '   1  u8            closed     100.0  100.0 ms  400.0 ms  800.0 ms'
        '  0 (0.00%)  1.50  ok',
        '   2  u16.rate400    400/s     100.0  300.0 ms    1.20 s    2.40 s'
        '  5 (0.50%)  1.50  unknown, not steady, SLO missed',
        '   3  u32' + ' ' * 76 + 'not run']


def test_operations_on_request_go_under_each_step():
    doc = suite.suite_document('c', [step(1, 'u8', step_doc())])
    rows = suite.table_rows(doc, operations=('total', 'read', 'create'))
    assert [row[:4] for row in rows] == [['1', 'u8', 'closed', '100.0'],
                                         ['', '  read', '', '50.0']]


def test_the_document_is_json_with_the_search():
    doc = suite.suite_document('c', [step(1, 'u8', step_doc())],
                               search={'summary': 'highest ...'})
    again = json.loads(json.dumps(doc))
    assert again['format'] == 'ssbench-suite'
    assert again['steps'][0]['figures']['operations']['total']['count'] == \
        1000
    out = io.BytesIO() if PY2 else io.StringIO()
    suite.render_table(doc, out)
    assert out.getvalue().endswith('\nCapacity search: highest ...\n')

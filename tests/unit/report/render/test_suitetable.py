from __future__ import absolute_import, division, print_function

import io

from ssbench.compat import PY2
from ssbench.report.compute import suitefigures
from ssbench.report.render import suitetable
from tests.unit.report.compute.test_suitefigures import step, step_doc


def render(doc, **kwargs):
    out = io.BytesIO() if PY2 else io.StringIO()
    suitetable.render_table(doc, out, **kwargs)
    value = out.getvalue()
    return value.decode('utf-8') if PY2 else value


def test_the_table_has_a_line_per_step():
    doc = suitefigures.suite_document('curve', [
        step(1, 'u8', step_doc(client={'saturated': False})),
        step(2, 'u16.rate400', step_doc(rate=400, scale=3, errors=5),
             steady={'steady': False}, slo=['p99<1s: ...']),
        step(3, 'u32', None, complete=False)])
    assert render(doc).splitlines() == [
        'Suite "curve": 3 steps',
        'Step  Values       Offered  Achieved       p50       p99     p99.9'
        '     Errors  MB/s  Client',
        '   1  u8            closed     100.0  100.0 ms  400.0 ms  800.0 ms'
        '  0 (0.00%)  1.50  ok',
        '   2  u16.rate400    400/s     100.0  300.0 ms    1.20 s    2.40 s'
        '  5 (0.50%)  1.50  unknown, not steady, SLO missed',
        '   3  u32' + ' ' * 76 + 'not run']


def test_operations_on_request_go_under_each_step():
    doc = suitefigures.suite_document('c', [step(1, 'u8', step_doc())])
    rows = suitetable.table_rows(doc, operations=('total', 'read', 'create'))
    assert [row[:4] for row in rows] == [['1', 'u8', 'closed', '100.0'],
                                         ['', '  read', '', '50.0']]


def test_the_search_ends_the_table():
    doc = suitefigures.suite_document('c', [step(1, 'u8', step_doc())],
                                      search={'summary': 'highest ...'})
    assert render(doc).endswith('\nCapacity search: highest ...\n')


def test_names_and_labels_are_shown_escaped():
    doc = suitefigures.suite_document(u'curve\x1b]0;owned\x07', [
        step(1, u'p\x1b[31m', step_doc())])
    lines = render(doc).splitlines()
    assert lines[0] == u'Suite "curve\\x1b]0;owned\\x07": 1 step'
    assert lines[2].startswith(u'   1  p\\x1b[31m')

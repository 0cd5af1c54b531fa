from __future__ import absolute_import, division, print_function

from ssbench.report.compute.causes import CauseTable, cause_of, first_line


def test_cause_of():
    assert cause_of(503, None) == ('HTTP 503', 503, None)
    # An S3 run's error code beside the status it came with.
    assert cause_of(403, b'AccessDenied') == (
        u'HTTP 403 AccessDenied', 403, u'AccessDenied')
    assert cause_of(503, u'SlowDown') == (u'HTTP 503 SlowDown', 503,
                                          u'SlowDown')
    assert cause_of(404, '') == ('HTTP 404', 404, None)
    assert cause_of(None, b'timeout') == (u'timeout', None, u'timeout')
    assert cause_of(None, None) == ('not recorded', None, None)
    assert cause_of(True, None) == ('not recorded', None, None)
    assert cause_of('404', '') == ('not recorded', None, None)


def test_first_line():
    assert first_line('SwiftError: 503\nTraceback...') == 'SwiftError: 503'
    assert first_line(b'\n  boom  \nx') == u'boom'
    assert first_line('x' * 500) == 'x' * 200
    assert first_line(None) == ''
    assert first_line(42) == u'42'


def test_table_orders_by_count_then_first_seen():
    table = CauseTable()
    table.add('read', None, None, 5.0, None, 'old style')
    table.add('read', 503, None, 7.0, None, 'SwiftError: 503')
    table.add('read', 503, None, 6.0, 'tx2', 'other message')
    table.add('create', 503, None, 9.0, 'tx3', 'm')
    table.add('read', 503, None, 8.0, 'tx4', 'm')
    summary = table.summary()
    assert [(c['operation'], c['cause'], c['count']) for c in summary] == [
        ('read', 'HTTP 503', 3), ('read', 'not recorded', 1),
        ('create', 'HTTP 503', 1)]
    top = summary[0]
    assert (top['first_seen'], top['last_seen'], top['example_trans_id'],
            top['example_message'], top['status'], top['error_class']) == (
        6.0, 8.0, 'tx2', 'SwiftError: 503', 503, None)

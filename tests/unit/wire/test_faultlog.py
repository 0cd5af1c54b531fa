"""Dropped input: counted, and logged at most once per kind and interval."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.wire.faultlog import Faults, describe
from tests.clocks import FakeClock


def lines(caplog):
    return [r.getMessage() for r in caplog.records
            if r.name == 'ssbench.wire.faultlog']


def test_one_line_per_kind_and_interval_then_a_summary(caplog):
    caplog.set_level(logging.WARNING)
    clock = FakeClock(50.0)
    faults = Faults('on the results port', interval=10, clock=clock)
    for _ in range(1000):
        faults.add('undecodable message', b'\xc1' * 100, ValueError('x'))
    faults.add('bad retries', -1, claimed=3)
    assert faults.total == 1001
    assert faults.counts == {'undecodable message': 1000, 'bad retries': 1}
    first = lines(caplog)
    assert len(first) == 2
    assert first[0].startswith(
        "Dropped input on the results port: undecodable message: ")
    assert '... (100 long) (ValueError: ' in first[0]
    assert 'the run goes on' in first[0]
    assert first[1].startswith('Dropped input on the results port: bad '
                               'retries: -1, claiming to be from worker 3')
    clock.now += 9.9
    faults.add('undecodable message', b'', ValueError('y'))
    assert len(lines(caplog)) == 2
    clock.now += 0.2
    faults.add('undecodable message', b'', ValueError('z'))
    assert lines(caplog)[2].startswith(
        'Dropped 1001 more inputs on the results port: undecodable '
        'message; the latest: %r' % (b'',))
    faults.summary()
    assert lines(caplog)[3] == ('Inputs dropped on the results port: 1003 '
                                '(bad retries: 1, undecodable message: '
                                '1002)')
    # A new period: the next fault is logged at once, the summary counts
    # only what came since the last one.
    faults.add('bad retries', -2)
    faults.summary()
    assert len(lines(caplog)) == 6
    assert lines(caplog)[5] == ('Inputs dropped on the results port: 1 '
                                '(bad retries: 1)')
    faults.summary()
    assert len(lines(caplog)) == 6 and faults.total == 1004


def test_describe_is_short_whatever_the_value():
    assert describe([[1] * 10 ** 6]) == 'a list of 1'
    assert describe({'a': 1}) == 'a dict of 1'
    assert describe(7) == '7'
    assert describe(u'x' * 1000).endswith("... (1000 long)")
    assert len(describe(u'x' * 1000)) < 90
    assert len(describe(10 ** 80)) == 63
    assert describe(u'a\nb') in ("'a\\nb'", "u'a\\nb'")

"""bench/soakfigures.py: the soak's figures from plain data (the e2e
test tests/e2e/test_soak.py runs the whole harness)."""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from tests import paths

# Appended: bench/'s scripts must not shadow any other module.
sys.path.append(os.path.join(paths.ROOT, 'bench'))
import soakfigures  # noqa: E402


def test_the_slope_is_least_squares_per_hour():
    # 1 MB more every 10 minutes, with noise that cancels out.
    samples = [(600.0 * i, 30.0 + i + (0.2 if i % 2 else -0.2))
               for i in range(7)]
    slope = soakfigures.slope_per_hour(samples)
    assert slope == pytest.approx(6.0, abs=0.1)
    assert soakfigures.slope_per_hour(samples[:2]) is None
    assert soakfigures.slope_per_hour([(5.0, 1.0)] * 3) is None


def test_the_warm_up_left_out_is_5_minutes_or_a_twelfth():
    assert soakfigures.skip_seconds(3600) == 300
    assert soakfigures.skip_seconds(7200) == 300
    assert soakfigures.skip_seconds(60) == pytest.approx(5.0)


def test_a_series_slope_starts_at_its_cutoff():
    # Growing fast while warming up, flat afterwards.
    samples = [(0.0, 5.0), (10.0, 30.0), (20.0, 40.0), (30.0, 40.0),
               (40.0, 40.0)]
    series = soakfigures.rss_series('worker 1', 42, samples, 20.0)
    assert series['slope_mb_per_hour'] == 0.0
    assert series['samples'] == 5 and series['samples_in_slope'] == 3
    assert (series['first_mb'], series['last_mb'], series['max_mb']) == \
        (5.0, 40.0, 40.0)


def cause_of(status, error_class):
    return ('HTTP %d' % status if status else error_class,)


def test_counts_tell_results_errors_and_lost_apart():
    counts = soakfigures.Counts(cause_of)
    for record in [
            {'completed_at': 1.0},
            {'completed_at': 2.0, 'exception': 'boom', 'status': 503},
            {'completed_at': 3.0, 'exception': 'reset', 'status': None,
             'error_class': 'ConnectionResetError'},
            {'completed_at': 4.0, 'exception': 'worker 2 lost'},
            {'completed_at': 5.0,
             'exception': 'job lost: no worker claimed it'},
            # Not the master's words for a lost job: a failure.
            {'completed_at': 6.0, 'exception': 'the worker 2 lost it',
             'error_class': 'timeout'}]:
        counts.add(record)
    assert counts.as_dict() == {
        'results': 4, 'errors': 3, 'lost': 2,
        'errors_by_cause': {'HTTP 503': 1, 'ConnectionResetError': 1,
                            'timeout': 1}}


def test_the_accounting_holds_only_when_every_job_is_counted():
    counts = {'results': 90, 'errors': 3, 'errors_by_cause': {},
              'lost': 4}
    schedule = {'intended': 100, 'sent': 94, 'unsent': 6}
    check = soakfigures.accounting(schedule, counts)
    assert check['holds'], check
    assert check['why'] == ('90 results + 4 lost + 6 unsent = 100, '
                            'intended 100')
    schedule['intended'] = 101
    assert not soakfigures.accounting(schedule, counts)['holds']
    missing = soakfigures.accounting({'sent': 94}, counts)
    assert not missing['holds'] and 'no schedule record' in missing['why']


def test_a_fault_is_among_the_events_with_both_its_marks():
    faults = [{'name': 'proxy', 'began': 1010.0, 'ended': 1020.0,
               'begin_mark': 'soak fault 1 proxy begin',
               'end_mark': 'soak fault 1 proxy end'},
              {'name': 'token', 'began': 1030.0, 'ended': 1031.0,
               'begin_mark': 'soak fault 2 token begin',
               'end_mark': 'soak fault 2 token end'}]
    events = [{'kind': 'mark', 'text': 'soak fault 1 proxy begin'},
              {'kind': 'mark', 'text': 'soak fault 1 proxy end'},
              {'kind': 'mark', 'text': 'soak fault 2 token begin'},
              {'kind': 'first_failure', 'text': 'soak fault 2 token end'}]
    found = soakfigures.faults_in_events(faults, events, 1000.0)
    assert [(f['began'], f['ended'], f['in_events']) for f in found] == \
        [(10.0, 20.0, True), (30.0, 31.0, False)]


def test_bytes_per_million_records():
    assert soakfigures.per_million(35000, 350) == 100000000
    assert soakfigures.per_million(100, 0) is None

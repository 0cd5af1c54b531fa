"""ssbench.load.schedule: intended start times, the in-flight cap and the send
lag, all on an injected clock (plain numbers)."""
from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.load.schedule import (POISSON, POISSON_DRAWS, UNIFORM,
                                   Schedule, Tally)
from ssbench.measure.loghist import RELATIVE_ERROR
from ssbench.measure.rank import percentile_of_sorted


def drive(schedule, seconds, step, room=10 ** 9):
    """Take every job due each `step` seconds; the intended times."""
    out = []
    now = 0.0
    while now < seconds:
        out.extend(schedule.take(now, room))
        now += step
    return out


def test_uniform_arrivals_are_evenly_spaced_from_the_start():
    schedule = Schedule(1000, UNIFORM, start=5.0)
    times = schedule.take(5.0105, 100)
    assert times == [5.0 + n / 1000.0 for n in range(11)]
    assert schedule.next_due() == pytest.approx(5.011)
    assert schedule.take(5.0105, 100) == []


def test_uniform_rate_holds_over_a_long_run_without_drift():
    schedule = Schedule(20000, UNIFORM)
    times = drive(schedule, 10.0, 0.0037) + schedule.take(10.0, 10 ** 9)
    assert len(times) == 200001          # 0 .. 10 s inclusive
    assert times[-1] == 10.0
    assert times[123456] == 123456 / 20000.0


def test_poisson_arrivals_have_the_rate_and_exponential_gaps():
    schedule = Schedule(500, POISSON, rng=random.Random(3))
    times = drive(schedule, 200.0, 0.01)
    assert len(times) == pytest.approx(100000, rel=0.02)
    gaps = [b - a for a, b in zip(times, times[1:])]
    mean = sum(gaps) / len(gaps)
    assert mean == pytest.approx(1 / 500.0, rel=0.02)
    # Exponential: about 1/e of the gaps exceed the mean.
    share = sum(1 for gap in gaps if gap > mean) / len(gaps)
    assert share == pytest.approx(0.3679, abs=0.01)
    again = drive(Schedule(500, POISSON, rng=random.Random(3)), 200.0, 0.01)
    assert again == times


def test_the_cap_holds_jobs_at_their_intended_time_and_counts_them():
    schedule = Schedule(100, UNIFORM)
    assert schedule.take(0.095, 3) == [0.0, 0.01, 0.02]
    # Still no room: the jobs due wait at their intended times.
    assert schedule.take(0.1, 0) == []
    assert schedule.cap_waits == 0           # counted once taken
    later = schedule.take(0.105, 5)
    assert later == pytest.approx([n / 100.0 for n in range(3, 8)])
    assert schedule.cap_waits == 5
    # 0.08 .. 0.10 waited too; 0.11 .. 0.12 came due with room for them.
    assert len(schedule.take(0.125, 100)) == 5
    assert schedule.cap_waits == 8 and schedule.taken == 13


def test_send_lag_accounting():
    schedule = Schedule(1000, UNIFORM, epoch_offset=1000.0)
    jobs = [{'intended_start': schedule.epoch(when)}
            for when in schedule.take(0.0095, 100)]
    assert jobs[1]['intended_start'] == 1000.001
    schedule.stamp(jobs, 0.0102)
    assert jobs[0]['send_lag'] == pytest.approx(0.0102)
    assert jobs[-1]['send_lag'] == pytest.approx(0.0012)
    assert schedule.lag.count == 0      # stamped, not sent yet
    schedule.sent(jobs)
    lag = schedule.lag
    assert lag.count == 10
    assert lag.max == pytest.approx(0.0102)
    # Lags 1.2 .. 10.2 ms: rank 5 of 10 is whole, 5.2 and 6.2 ms.
    assert lag.percentile(50) == pytest.approx(0.0057, rel=RELATIVE_ERROR)
    summary = schedule.summary()
    assert summary['sent'] == 10 and summary['rate'] == 1000.0
    assert summary['arrival'] == UNIFORM and summary['cap_waits'] == 0
    assert summary['send_lag']['p99'] == pytest.approx(0.0102)


def test_tally_percentiles_and_limits():
    hist = Tally()
    assert hist.percentile(99) is None
    assert hist.summary()['mean'] is None
    for lag in [0.001] * 98 + [0.05, 100.0]:
        hist.add(lag)
    hist.add(-0.5)                   # a clock step back counts as on time
    assert hist.hist.zeros == 1
    assert hist.percentile(50) == pytest.approx(0.001, rel=RELATIVE_ERROR)
    assert hist.percentile(99) == pytest.approx(0.05, rel=RELATIVE_ERROR)
    assert hist.percentile(100) == 100.0 == hist.max


def test_epoch_and_bad_arguments():
    assert Schedule(1, start=10.0, epoch_offset=1000.0).epoch(12.5) == 1012.5
    for args in ((0,), (-1,), (5, 'burst'), (5, POISSON)):
        with pytest.raises(ValueError):
            Schedule(*args)


def test_unused_times_are_given_back():
    schedule = Schedule(100, UNIFORM)
    schedule.take(0.0, 1)
    schedule.take(0.05, 0)              # full: 0.01 .. 0.05 wait
    assert len(schedule.take(0.05, 5)) == 5
    assert schedule.cap_waits == 5 and schedule.taken == 6
    schedule.unused(2)                  # the jobs ran out after three
    assert schedule.cap_waits == 3 and schedule.taken == 4
    schedule.unused(0)
    assert schedule.cap_waits == 3


def test_a_window_sends_jobs_together_once_the_oldest_waited_it():
    schedule = Schedule(1000, UNIFORM, window=0.002)
    assert schedule.next_send() == 0.002
    assert schedule.take(0.0015, 100) == []
    assert schedule.take(0.002, 100) == pytest.approx([0.0, 0.001, 0.002])
    assert schedule.next_send() == pytest.approx(0.005)
    assert schedule.take(0.0049, 100) == []


def send_all(schedule, times, now):
    """Stamp and count as sent the jobs of `times` at clock time `now`."""
    jobs = [{'intended_start': schedule.epoch(when)} for when in times]
    schedule.stamp(jobs, now)
    schedule.sent(jobs)
    return jobs


def test_a_timed_run_counts_the_jobs_due_and_not_sent_by_its_deadline():
    # 2,000/s for 5 s, at most 2 in flight that take 1 ms each: the
    # cap lets 2 out per millisecond, and nothing due is lost.
    schedule = Schedule(2000, UNIFORM, duration=5.0)
    step = 0
    while not schedule.over(step / 1000.0):
        now = step / 1000.0
        send_all(schedule, schedule.take(now, 2), now)
        step += 1
    schedule.close(step / 1000.0)
    summary = schedule.summary()
    assert summary['sent'] + summary['unsent'] == summary['intended']
    assert summary['intended'] == 10000
    # One job at 0 s, then two each millisecond: the last (4.9995 s)
    # was due when the deadline came.
    assert summary['sent'] == 9999 and summary['unsent'] == 1
    assert summary['seconds'] == 5.0
    assert summary['intended_rate'] == 2000.0
    assert summary['achieved_rate'] == pytest.approx(1999.8)


def test_a_slow_cap_leaves_a_backlog_counted_with_its_waits():
    schedule = Schedule(2000, UNIFORM, duration=5.0)
    send_all(schedule, schedule.take(0.0, 2), 0.0)
    assert schedule.take(5.0, 100) == []        # the deadline: no more
    schedule.close(7.0)                          # noticed late
    summary = schedule.summary()
    assert summary['sent'] == 1 and summary['unsent'] == 9999
    assert summary['intended'] == 10000 and summary['seconds'] == 5.0
    wait = summary['unsent_wait']
    # Due at 0.5 ms .. 4.9995 s, each waiting till 5 s.
    assert wait['count'] == 9999
    assert wait['max'] == pytest.approx(4.9995)
    assert wait['mean'] == pytest.approx((4.9995 + 0.0005) / 2)
    assert wait['p50'] == pytest.approx(2.5, rel=RELATIVE_ERROR)
    assert wait['p99'] == pytest.approx(4.95, rel=RELATIVE_ERROR)
    schedule.close(8.0)                          # only the first counts
    assert schedule.summary() == summary


def test_a_huge_backlog_costs_neither_memory_nor_time():
    """10 billion jobs due, two sent: each take() and the count at the
    end are arithmetic (a list of due times would not fit in memory)."""
    schedule = Schedule(10 ** 7, UNIFORM, duration=1000.0)
    assert schedule.take(999.0, 2) == [0.0, 1e-7]
    assert schedule.take(999.5, 1) == [2e-7]
    assert schedule.next_due() == 3e-7
    schedule.close(1000.0)
    assert schedule.unsent.count == 10 ** 10 - 3
    # 3e-7 .. 1000 s: ten decades of bins.
    assert len(schedule.unsent.hist.counts) <= 10 * 40 + 1
    assert schedule.unsent.max == pytest.approx(1000.0 - 3e-7)


def test_offering_more_never_sends_less():
    sent = []
    for rate in (2000, 20000, 100000):
        schedule = Schedule(rate, UNIFORM, duration=5.0)
        for step in range(5000):
            now = step / 1000.0
            send_all(schedule, schedule.take(now, 2), now)
        schedule.close(5.0)
        summary = schedule.summary()
        assert summary['intended'] == 5 * rate
        assert summary['sent'] + summary['unsent'] == 5 * rate
        sent.append(summary['sent'])
    assert sent[0] <= sent[1] <= sent[2]
    # Two a millisecond, the cap's rate (one at 0 s: one job due).
    assert sent[1] == sent[2] == 9999


def test_jobs_at_or_after_the_deadline_are_never_due():
    schedule = Schedule(1000, UNIFORM, duration=1.0)
    times = schedule.take(0.99999, 10 ** 6)
    assert len(times) == 1000 and times[-1] == 0.999
    assert schedule.take(0.99999, 10) == []
    assert schedule.take(1.0, 10) == []
    assert schedule.next_send() == 1.0          # the deadline
    schedule.close(3.0)
    assert schedule.summary()['unsent'] == 0


def test_a_poisson_backlog_counts_the_draws_it_would_have_sent():
    def drained(rng_seed):
        schedule = Schedule(1000, POISSON, random.Random(rng_seed),
                            duration=10.0)
        return schedule.take(10.0 - 1e-9, 10 ** 6)

    everything = drained(7)
    schedule = Schedule(1000, POISSON, random.Random(7), duration=10.0)
    now = 0.0
    while not schedule.over(now):
        send_all(schedule, schedule.take(now, 1), now)
        now += 0.002
    schedule.close(now)
    summary = schedule.summary()
    # The same stream of gaps: the jobs due are those of a run that
    # sent every one.
    assert summary['intended'] == len(everything)
    assert summary['sent'] + summary['unsent'] == len(everything)
    assert summary['sent'] == 5000
    assert summary['unsent_wait']['max'] == pytest.approx(
        10.0 - everything[5000])


def test_a_poisson_backlog_beyond_the_draws_is_counted_by_its_law():
    schedule = Schedule(10 ** 6, POISSON, random.Random(1), duration=10.0)
    schedule.close(10.0)
    assert schedule.unsent.count > POISSON_DRAWS
    assert schedule.unsent.count == pytest.approx(10 ** 7, rel=0.002)
    assert schedule.unsent.max == pytest.approx(10.0)


def test_an_interrupted_timed_run_counts_what_was_due_and_dropped():
    schedule = Schedule(100, UNIFORM, duration=10.0)
    send_all(schedule, schedule.take(0.0, 1), 0.0)
    dropped = schedule.take(0.05, 3)             # taken, never sent
    schedule.close(0.1, dropped)                 # a stop request
    summary = schedule.summary()
    # Due by 0.1 s: 0.00 .. 0.10, 11 jobs; one sent.
    assert summary['intended'] == 11 and summary['unsent'] == 10
    assert summary['unsent_wait']['max'] == pytest.approx(0.09)
    assert summary['seconds'] == 0.1


def test_an_operation_count_run_has_nothing_unsent():
    schedule = Schedule(100, UNIFORM)
    send_all(schedule, schedule.take(0.5, 100), 0.5)
    schedule.close(0.5)
    summary = schedule.summary()
    assert summary['intended'] == summary['sent'] == 51
    assert 'unsent' not in summary
    assert summary['intended_rate'] == 100.0
    assert summary['achieved_rate'] == pytest.approx(102.0)


def test_given_back_times_are_taken_again_and_counted_unsent():
    schedule = Schedule(100, UNIFORM, duration=1.0)
    assert len(schedule.take(0.05, 6)) == 6
    schedule.unused(2)
    assert schedule.next_due() == pytest.approx(0.04)
    assert schedule.take(0.05, 1) == [pytest.approx(0.04)]
    schedule.close(0.5)
    # 51 due by 0.5 s, 5 taken.
    assert schedule.unsent.count == 46


def test_even_runs_match_one_by_one():
    for high, step, count in ((5.0, 0.0005, 10000), (0.01, 1.3e-5, 700),
                              (3.0, 0.25, 7), (2e-5, 1e-5, 3)):
        even, single = Tally(), Tally()
        even.add_even(high, step, count)
        for n in range(count):
            single.add(high - n * step)
        assert even.count == single.count == count
        assert even.max == single.max
        assert even.total == pytest.approx(single.total)
        assert even.hist.total() == count
        for pctile in (1, 50, 90, 99, 100):
            assert even.percentile(pctile) == pytest.approx(
                single.percentile(pctile), rel=2 * RELATIVE_ERROR)
    empty = Tally()
    empty.add_even(1.0, 0.1, 0)
    assert empty.summary() == {'count': 0, 'max': 0.0, 'mean': None,
                               'p50': None, 'p90': None, 'p99': None,
                               'p99.9': None}


def test_p99_9_of_41000_is_the_40959th_and_40960th():
    hist = Tally()
    for lag in [0.0] * 40959 + [0.5] * 41:
        hist.add(lag)
    assert hist.count == 41000
    # Rank 40,959 is whole: the mean of a zero and 0.5 (a float rank,
    # 40,959.00000000001, would take the 40,960th alone).
    assert hist.percentile(99.9) == pytest.approx(0.25, rel=RELATIVE_ERROR)
    assert hist.percentile(99.91) == pytest.approx(0.5, rel=RELATIVE_ERROR)
    assert hist.percentile(99.8) == 0.0


def test_each_percentile_is_the_rank_rule_within_the_error_and_the_max():
    hist = Tally()
    values = [n * 0.00037 for n in range(1, 2001)] + [-1.0]
    for value in values:
        hist.add(value)
    ranked = sorted(max(0.0, value) for value in values)
    for pctile in (0, 1, 50, 90, 99, 99.9, 100):
        exact = percentile_of_sorted(ranked, pctile)
        got = hist.percentile(pctile)
        assert got == pytest.approx(exact, rel=RELATIVE_ERROR)
        assert got <= hist.max
    summary = hist.summary()
    assert summary['count'] == len(values)
    assert summary['max'] == ranked[-1]
    assert summary['mean'] == pytest.approx(sum(ranked) / len(ranked))
    assert summary['p99'] == hist.percentile(99)
    # A value counted n times at once is n values.
    twice = Tally()
    twice.add(0.25, count=2)
    assert (twice.count, twice.hist.total(), twice.total) == (2, 2, 0.5)

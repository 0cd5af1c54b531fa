"""ssbench.load.schedule: intended start times, the in-flight cap and the send
lag, all on an injected clock (plain numbers)."""
from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.load.schedule import (LAG_RESOLUTION, POISSON, UNIFORM,
                                   LagHistogram, Schedule)


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
    schedule.sent(jobs, 0.0102)
    lag = schedule.lag
    assert lag.count == 10
    assert lag.max == pytest.approx(0.0102)
    assert lag.percentile(50) == pytest.approx(
        0.0052, abs=2 * LAG_RESOLUTION)
    summary = schedule.summary()
    assert summary['sent'] == 10 and summary['rate'] == 1000.0
    assert summary['arrival'] == UNIFORM and summary['cap_waits'] == 0
    assert summary['send_lag']['p99'] == pytest.approx(0.0102)


def test_lag_histogram_percentiles_and_limits():
    hist = LagHistogram()
    assert hist.percentile(99) is None
    assert hist.summary()['mean'] is None
    for lag in [0.001] * 98 + [0.05, 100.0]:
        hist.add(lag)
    hist.add(-0.5)                   # a clock step back counts as on time
    assert hist.percentile(50) == pytest.approx(0.0011)
    assert hist.percentile(99) == pytest.approx(0.0501)
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

from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.suite import steadystate
from ssbench.suite.steadystate import Window, verdict


def windows(rates, p99s, count=500):
    return [Window(count, rate, p99) for rate, p99 in zip(rates, p99s)]


def test_flat_figures_are_steady():
    got = verdict(windows([1000, 1010, 990, 1005, 995, 1000],
                          [0.1, 0.11, 0.1, 0.105, 0.1, 0.102]))
    assert got.steady, got.why


def test_too_few_windows_are_not_judged_steady():
    got = verdict(windows([1000] * 5, [0.1] * 5))
    assert not got.steady
    assert got.why == '5 of 6 windows so far'


def test_only_the_last_windows_count():
    rates = [100, 400, 900] + [1000] * 6
    assert verdict(windows(rates, [0.1] * 9)).steady


def test_a_spread_beyond_the_tolerance_is_not_steady():
    got = verdict(windows([1000, 800, 1000, 1000, 1000, 1000], [0.1] * 6))
    assert not got.steady
    assert got.why == 'throughput varies by 21% (more than 10%)'


def test_a_slowly_rising_latency_is_never_steady():
    # 3% a window: each window within the 20% band of the others' mean
    # over part of the span, but the line through them rises 15%.
    p99s = [0.1 * 1.03 ** i for i in range(6)]
    got = verdict(windows([1000] * 6, p99s), latency_tolerance=0.2)
    assert not got.steady
    assert got.why.startswith('p99 rising by 1')


def test_a_falling_throughput_is_named():
    rates = [1000 - 18 * i for i in range(6)]
    got = verdict(windows(rates, [0.1] * 6))
    assert not got.steady
    assert got.why == 'throughput falling by 9% over 6 windows'


def test_thin_windows_are_not_judged():
    got = verdict(windows([4] * 6, [0.1] * 6, count=19))
    assert got == (False, 'a window with 19 results (fewer than 20)')


def test_noise_without_trend_is_steady_and_trend_without_noise_is_not():
    rng = random.Random(7)
    noisy = [1000 * (1 + rng.uniform(-0.04, 0.04)) for _ in range(6)]
    assert verdict(windows(noisy, [0.1] * 6)).steady
    trend = [1000 * (1 + 0.012 * i) for i in range(6)]
    assert not verdict(windows(trend, [0.1] * 6)).steady


def test_the_defaults_are_the_documented_ones():
    assert (steadystate.WINDOW, steadystate.WINDOWS, steadystate.TOLERANCE,
            steadystate.LATENCY_TOLERANCE) == (5.0, 6, 0.10, 0.20)


def results(start, seconds, rate, latency, step=1.0):
    """Results completing `rate` a second from `start` for `seconds`,
    each with latency(second)."""
    out = []
    t = start
    while t < start + seconds:
        for i in range(int(rate * step)):
            out.append({'completed_at': t + i / (rate * step) * step,
                        'last_byte_latency': latency(t - start)})
        t += step
    return out


def on_time(**options):
    """A watch of workers whose clocks agree with the master's, taking
    results whenever they completed."""
    return steadystate.SteadyWatch(offsets=lambda worker_id: 0.0,
                                   wall=lambda: 10.0 ** 9, **options)


def test_a_watch_ends_the_jobs_of_a_steady_load():
    watch = on_time(warmup=5)
    jobs = watch.jobs(iter(range(10 ** 6)))
    taken = 0
    for second in range(60):
        next(jobs)
        taken += 1
        watch.add(results(1000.0 + second, 1, 100, lambda t: 0.05))
        if watch.steady:
            break
    assert watch.steady
    assert watch.steady_after == 35      # warm-up and six windows of 5 s
    assert list(jobs) == []
    record = watch.record()
    assert record['kind'] == 'steady_state' and record['steady']
    assert record['after'] == 35 and record['windows'] == 6


def test_a_watch_never_ends_a_rising_latency():
    watch = on_time()
    watch.add(results(1000.0, 120, 100, lambda t: 0.05 * (1 + 0.01 * t)))
    assert not watch.steady
    assert watch.verdict.why.startswith('p99 rising')
    assert watch.record()['after'] is None


def test_a_stall_is_not_steady():
    watch = on_time()
    watch.add(results(1000.0, 20, 100, lambda t: 0.05))
    watch.add(results(1027.0, 20, 100, lambda t: 0.05))
    assert not watch.steady


def test_open_loop_results_count_their_response_time():
    late = {'completed_at': 10.0, 'last_byte_latency': 0.01,
            'intended_start': 9.0, 'send_lag': 0.5, 'worker_time': 0.3}
    assert steadystate._latency(late) == pytest.approx(0.8)
    older = dict(late, send_lag=None)
    assert steadystate._latency(older) == pytest.approx(1.0)
    early = dict(late, send_lag=0.001, worker_time=0.005)
    assert steadystate._latency(early) == 0.01
    failed = {'completed_at': 10.0, 'exception': 'x', 'time_to_failure': 2}
    assert steadystate._latency(failed) == 2


def test_a_window_too_short_to_hold_results_is_refused():
    # --steady-seconds 1e-300 made windows of 1.7e-301 s, and a loop that
    # appended them for ever.
    for window in (1e-300 / 6, 0.1, 601.0):
        with pytest.raises(ValueError):
            steadystate.SteadyWatch(window=window)
    steadystate.SteadyWatch(window=steadystate.MIN_WINDOW)


def test_a_long_gap_keeps_only_the_windows_judged():
    watch = on_time()
    watch.add(results(1000.0, 10, 100, lambda t: 0.05))
    month = 30 * 86400.0
    watch.add(results(1000.0 + month, 2, 100, lambda t: 0.05))
    assert len(watch.windows) <= steadystate.WINDOWS
    assert watch.judged == int((month + 1 - steadystate.SLACK) // 5)
    assert watch.verdict.why == 'a window with 0 results (fewer than 20)'


class Clocks(object):
    """The master's wall clock and a worker's, `ahead` seconds ahead,
    whose offset the master knows from `known_at` on."""

    def __init__(self, ahead, known_at):
        self.now = 1000.0
        self.ahead = ahead
        self.known_at = known_at

    def offsets(self, worker_id):
        assert worker_id == 7
        return self.ahead if self.now >= self.known_at else None

    def second(self):
        """The results of the second that ends now, on the worker's
        clock."""
        batch = results(self.now - 1 + self.ahead, 1, 100, lambda t: 0.05)
        for result in batch:
            result['worker_id'] = 7
        return batch


@pytest.mark.parametrize('ahead', [30 * 86400.0, -30 * 86400.0, 30.0])
def test_a_worker_clock_far_off_is_put_on_the_masters(ahead):
    clocks = Clocks(ahead, known_at=1002.0)
    watch = steadystate.SteadyWatch(offsets=clocks.offsets,
                                    wall=lambda: clocks.now)
    for _ in range(60):
        clocks.now += 1
        watch.add(clocks.second())
        assert len(watch.windows) <= steadystate.WINDOWS
        if watch.steady:
            break
    assert watch.steady, watch.verdict.why
    # The results of the first second, before the offset was known, are
    # left out: the first window starts at the first request after them.
    assert watch.origin == pytest.approx(1001.0 - 0.05)
    assert watch.steady_after == 30


def test_results_far_ahead_of_the_masters_clock_are_left_out():
    now = [1000.0]
    watch = steadystate.SteadyWatch(offsets=lambda worker_id: 0.0,
                                    wall=lambda: now[0])
    watch.add([{'completed_at': 1000.0 + 86400, 'last_byte_latency': 0.1,
                'worker_id': 1},
               {'completed_at': float('nan'), 'last_byte_latency': 0.1,
                'worker_id': 1},
               {'completed_at': 999.0, 'last_byte_latency': float('inf'),
                'worker_id': 1}])
    assert watch.origin is None and watch.latest is None


def test_the_watch_of_the_flags_judges_their_seconds_in_windows():
    watch = steadystate.over(12, 0.2, warmup=3)
    assert (watch.window, watch.needed, watch.warmup) == (2.0, 6, 3)
    assert watch.judge['tolerance'] == 0.2
    assert watch.judge['latency_tolerance'] == 0.4

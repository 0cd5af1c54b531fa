"""When a step's load has become steady: the judgement --until-steady
ends a step on.

The master cuts the results it has received into windows of WINDOW
seconds (of completion time, so every client host counts alike) and
takes each window's throughput and p99 of last-byte latency.  A step is
steady once its last WINDOWS windows agree:

- each figure's spread, (highest - lowest) / mean, is at most its
  tolerance (TOLERANCE for throughput, LATENCY_TOLERANCE for p99, which
  is noisier), and
- neither figure drifts: the least-squares line through the windows
  moves by at most half of that tolerance over their span.  A latency
  rising a little every window (a queue that grows) is never steady,
  even while each window stays within the band of the others;
- every window holds at least MIN_RESULTS results: a p99 of fewer says
  little.

verdict() is pure; ssbench.master.scenariorun feeds it.

Whatever the times a worker sends, the watch stays small: it keeps the
last WINDOWS windows only, passes over a run of empty windows in one
step, puts each worker's completion times on the master's clock by its
measured offset (ssbench.master.clockoffset), and leaves out a result
that completes more than SKEW seconds from the master's clock (ahead of
it, or behind it while its worker's offset is not known yet).
"""
from __future__ import absolute_import, division, print_function

import collections
import logging
import time

from ssbench.measure import record
from ssbench.measure.finite import is_non_negative
from ssbench.measure.rank import percentile_of_sorted

log = logging.getLogger(__name__)

WINDOW = 5.0
WINDOWS = 6
TOLERANCE = 0.10
LATENCY_TOLERANCE = 0.20
MIN_RESULTS = 20


class Window(collections.namedtuple('Window', 'count rate p99')):
    """One window's figures: results in it, results per second, and the
    p99 of their last-byte latency in seconds (None without results)."""
    __slots__ = ()


Verdict = collections.namedtuple('Verdict', 'steady why')


def verdict(windows, tolerance=TOLERANCE,
            latency_tolerance=LATENCY_TOLERANCE, needed=WINDOWS,
            min_results=MIN_RESULTS):
    """Verdict(steady, why) of the last `needed` of `windows` (oldest
    first): why says what is not steady yet, or how steady it is."""
    if len(windows) < needed:
        return Verdict(False, '%d of %d windows so far' % (
            len(windows), needed))
    last = windows[-needed:]
    thin = min(window.count for window in last)
    if thin < min_results:
        return Verdict(False, 'a window with %d results (fewer than %d)'
                       % (thin, min_results))
    for name, values, allowed in (
            ('throughput', [window.rate for window in last], tolerance),
            ('p99', [window.p99 for window in last], latency_tolerance)):
        spread, drift = _spread(values), _drift(values)
        if spread > allowed:
            return Verdict(False, '%s varies by %.0f%% (more than %.0f%%)'
                           % (name, spread * 100, allowed * 100))
        if abs(drift) > allowed / 2:
            return Verdict(False, '%s %s by %.0f%% over %d windows' % (
                name, 'rising' if drift > 0 else 'falling',
                abs(drift) * 100, needed))
    return Verdict(True, 'throughput and p99 within %.0f%% and %.0f%% '
                   'over %d windows' % (tolerance * 100,
                                        latency_tolerance * 100, needed))


def _spread(values):
    """(highest - lowest) / mean; 0 for values all 0."""
    mean = sum(values) / len(values)
    if not mean:
        return 0.0
    return (max(values) - min(values)) / mean


def _drift(values):
    """How far the least-squares line through the values moves from the
    first to the last, relative to their mean."""
    n = len(values)
    mean = sum(values) / n
    if not mean or n < 2:
        return 0.0
    middle = (n - 1) / 2
    slope = sum((i - middle) * (value - mean)
                for i, value in enumerate(values)) / \
        sum((i - middle) ** 2 for i in range(n))
    return slope * (n - 1) / mean


RECORD_KIND = 'steady_state'
# A window is judged once results have completed this long after its
# end: results of other hosts arrive a little out of order.
SLACK = 1.0
# Shortest and longest window (--steady-seconds is WINDOWS of them): a
# window holds whole results, and its end waits SLACK for them.
MIN_WINDOW = 0.5
MAX_WINDOW = 600.0
# Seconds between a result's completion, on the master's clock, and the
# master's clock when the watch takes it, past which the result is left
# out: workers send their results within a second or two.
SKEW = 10.0


class SteadyWatch(object):
    """Watches a step's results (add()) and ends its jobs (jobs()) once
    verdict() finds them steady.

    Windows are cut from the completion times, from the step's first
    request start plus `warmup` seconds; a result's latency is its
    response time in open loop (from its intended start), else its
    last-byte latency, and a failure counts at its time to failure.
    `offsets(worker_id)` is a worker's clock offset (seconds ahead of
    the master's) or None while not known; `wall` is the master's wall
    clock.
    """

    def __init__(self, warmup=0.0, window=WINDOW, needed=WINDOWS,
                 tolerance=TOLERANCE, latency_tolerance=LATENCY_TOLERANCE,
                 min_results=MIN_RESULTS, offsets=None, wall=time.time):
        if not MIN_WINDOW <= window <= MAX_WINDOW:
            raise ValueError('a window of %r s is not from %s to %s s' % (
                window, MIN_WINDOW, MAX_WINDOW))
        self.warmup = warmup
        self.window = window
        self.needed = needed
        self.judge = dict(needed=needed, tolerance=tolerance,
                          latency_tolerance=latency_tolerance,
                          min_results=min_results)
        self.offsets = offsets
        self.wall = wall
        self.origin = None
        self.latest = None
        self.open = {}          # window index -> latencies, not judged yet
        self.windows = collections.deque(maxlen=needed)
        self.judged = 0         # windows judged so far
        self.verdict = Verdict(False, 'no results yet')
        self.steady_after = None

    def add(self, results):
        """Take a list of result records."""
        now = self.wall()
        for result in results:
            completed = self._completed(result, now)
            latency = _latency(result)
            if completed is None or not is_non_negative(latency):
                continue
            if self.origin is None:
                self.origin = completed - latency + self.warmup
            index = int((completed - self.origin) // self.window)
            if index < 0 or index < self.judged:
                continue        # warm-up, or a window judged already
            latencies = self.open.get(index)
            if latencies is None:
                latencies = self.open[index] = []
            latencies.append(latency)
            if self.latest is None or completed > self.latest:
                self.latest = completed
        self._close()

    def _completed(self, result, now):
        """The result's completion time on the master's clock, or None
        when it cannot be placed (see the module's docstring)."""
        completed = result.get('completed_at')
        if completed is None:
            return None
        offset = None
        if self.offsets is not None:
            offset = self.offsets(result.get('worker_id'))
        if offset is not None:
            completed -= offset
            earliest = float('-inf')
        else:
            earliest = now - SKEW
        if not earliest <= completed <= now + SKEW:
            return None
        return completed

    def _close(self):
        """Judge every window that ended SLACK seconds before the latest
        completion (an empty one counts: a stall is not steady)."""
        if self.latest is None or self.steady_after is not None:
            return
        ended = int((self.latest - SLACK - self.origin) // self.window)
        while self.judged < ended:
            if self.judged not in self.open:
                # Empty windows up to the next with results: judging
                # more than `needed` of them in a row says no more.
                filled = min(self.open) if self.open else ended
                self.judged = max(self.judged,
                                  min(filled, ended) - self.needed)
            latencies = sorted(self.open.pop(self.judged, ()))
            self.judged += 1
            self.windows.append(Window(
                len(latencies), len(latencies) / self.window,
                percentile_of_sorted(latencies, 99)))
            self.verdict = verdict(list(self.windows), **self.judge)
            if self.verdict.steady:
                self.steady_after = self.warmup + self.judged * self.window
                return

    @property
    def steady(self):
        return self.steady_after is not None

    def jobs(self, jobs):
        """`jobs` until the results are steady."""
        for job in jobs:
            if self.steady_after is not None:
                log.info('Steady after %.0f s: %s; the benchmark ends',
                         self.steady_after, self.verdict.why)
                return
            yield job

    def record(self):
        """The stats file's control record of how the step ended."""
        return {'kind': RECORD_KIND, 'steady': self.steady,
                'after': self.steady_after, 'why': self.verdict.why,
                'windows': self.judged}


def over(seconds, tolerance, warmup=0.0):
    """The SteadyWatch of --until-steady: the last `seconds` in WINDOWS
    windows, throughput within `tolerance` and p99 within twice it."""
    return SteadyWatch(warmup=warmup, window=seconds / WINDOWS,
                       tolerance=tolerance, latency_tolerance=2 * tolerance)


def _latency(result):
    """A result's latency as the reports take it: in open loop its
    response time (ssbench.measure.record.response_wait), a failure at
    its time to failure."""
    if 'exception' in result:
        latency = result.get('time_to_failure')
    else:
        latency = result.get('last_byte_latency')
    intended = result.get('intended_start')
    if latency is None or intended is None:
        return latency
    wait = record.response_wait(latency, result['completed_at'], intended,
                                result.get('send_lag'),
                                result.get('worker_time'))
    return latency + max(0.0, wait)

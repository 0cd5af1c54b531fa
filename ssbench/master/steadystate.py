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
"""
from __future__ import absolute_import, division, print_function

import collections

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

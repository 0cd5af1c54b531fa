"""The span of a run's completion times that the reports keep.

A result whose completed_at is far from every other (a worker whose clock
says 1970, a hand-made time) would stretch every per-second structure
of a report (the rps histogram, the "Ran" line, the time series) over
the whole gap.  Such results are left out, counted in one warning.

"Far" is judged against the run itself, robustly: the 1st, 50th and
99th percentiles of the completion times, so up to 1% of strays on
either side cannot move it.  A result is kept within a margin of an hour
(MARGIN) plus ten times the span from the 1st to the 99th percentile on
either side: any real run, however uneven its pace, has its last percent
of results within ten times the span of the other 98, and an hour covers
the requests a short run leaves in flight (a large upload, a request
retried until its timeouts ran out).  So a result stamped a day after a
4 s run is left out, whatever the run.  Workers whose clocks are hours
apart each hold more than a percent of the results, which moves the
percentiles: they are kept (and their offsets, when the file has them,
corrected: ssbench.results.clockrecords).  The window is also never
wider than MAX_RUN_SECONDS plus a day each way from the median: a run
cannot last longer, so even a file with many strays (a whole worker at
1970) keeps bounded per-second structures, around the bulk of its
results.

The counts come from a TimeProfile: results per bin of completion time,
whose bins double in width (merging pairs) whenever they would number
more than MAX_BINS, so its memory is bounded whatever the times.

The percentiles cannot see strays in a file of 100 results or fewer:
there the 1st and 99th percentiles are the first and last results
themselves.  A file of at most SMALL results is therefore also judged
on its requests (idle_window()): each result is in flight from its
completion less its latency (its time to failure, for a failure) to its
completion.  Results are grouped by those spans: a result whose request
began more than IDLE seconds (an hour) after every request before it
had completed starts a new group, and every result is kept but for the
group holding more results than all the others together.  So a result
is left out only if, in a run that has one such majority of its
results, no request at all was in flight for an hour between it and
that majority.  A run of back-to-back requests (closed loop) never
idles so (however long its requests: a request in flight is no idle
time); an open-loop run whose rate leaves its requests an hour apart
makes groups of one, no majority, and nothing is left out; a worker's
clock hours off (corrected first where the file stores its offset)
holds less than half of the results, and is kept.  Two results an hour
apart and nothing else are two groups of one: both kept.
"""
from __future__ import absolute_import, division, print_function

import math

from ssbench.measure.rank import RunLengths, nearest_rank
from ssbench.measure.record import MAX_RUN_SECONDS

DAY = 86400
#: The least margin kept on either side of the bulk of a run's results.
MARGIN = 3600
#: The widest window kept: the longest run, and a day each way.
CAP = MAX_RUN_SECONDS + DAY
MAX_WIDTH = 2 * CAP
MAX_BINS = 8192
# Bins start at 64 s: a short run's bulk is then a bin or two, well
# under its margin of an hour, and a batch of results (a second or so of
# them) seldom straddles two bins, which would cost a loop over it.
FIRST_SHIFT = 6
#: Files of at most this many results are also judged by idle_window().
SMALL = 10000
#: An hour with no request in flight separates two groups of results.
IDLE = MARGIN


class TimeProfile(object):
    """Results per bin of completed_at (floor(t) >> shift); ``count``,
    ``first`` and ``last`` over all of them."""

    def __init__(self, max_bins=MAX_BINS):
        self.max_bins = max_bins
        self.shift = FIRST_SHIFT
        self.bins = {}
        self.count = 0
        self.first = self.last = None

    def add_all(self, stamps):
        """Count a batch's completion times (finite numbers)."""
        if not stamps:
            return
        shift = self.shift
        bins = self.bins
        first, last = min(stamps), max(stamps)
        if self.first is None or first < self.first:
            self.first = first
        if self.last is None or last > self.last:
            self.last = last
        self.count += len(stamps)
        lo = int(math.floor(first)) >> shift
        if lo == int(math.floor(last)) >> shift:
            bins[lo] = bins.get(lo, 0) + len(stamps)
        else:
            for stamp in stamps:
                key = int(math.floor(stamp)) >> shift
                bins[key] = bins.get(key, 0) + 1
        while len(self.bins) > self.max_bins:
            self._coarsen()

    def _coarsen(self):
        self.shift += 1
        bins = {}
        for key, count in self.bins.items():
            bins[key >> 1] = bins.get(key >> 1, 0) + count
        self.bins = bins

    def window(self):
        """(lo, hi) in epoch seconds, when some result may lie outside
        the window the module docstring describes; None when none does.
        """
        if not self.bins:
            return None
        keys = sorted(self.bins)
        ranked = RunLengths([self.bins[key] for key in keys],
                            keys.__getitem__)
        width = 1 << self.shift

        def key_at(pctile):
            # The key at the percentile's (first) nearest-rank position.
            return ranked[nearest_rank(len(ranked), pctile)[0] - 1]

        bulk_lo = key_at(1) * width
        bulk_hi = (key_at(99) + 1) * width
        median = key_at(50) * width
        margin = MARGIN + 10 * (bulk_hi - bulk_lo)
        lo = max(bulk_lo - margin, median - CAP)
        hi = min(bulk_hi + margin, median + width + CAP, lo + MAX_WIDTH)
        if keys[0] * width >= lo and (keys[-1] + 1) * width <= hi:
            return None
        return lo, hi


def idle_window(spans):
    """(lo, hi) in epoch seconds keeping only the majority group of
    `spans` ((began, completed) of each result; see the module
    docstring), or None when every result is kept."""
    groups = []             # [first completion, last completion, count]
    end = None
    for began, completed in sorted(spans):
        if end is None or began > end + IDLE:
            groups.append([completed, completed, 0])
        group = groups[-1]
        group[0] = min(group[0], completed)
        group[1] = max(group[1], completed)
        group[2] += 1
        end = completed if end is None else max(end, completed)
    if len(groups) < 2:
        return None
    main = max(groups, key=lambda group: group[2])
    if 2 * main[2] <= len(spans):
        return None
    # Completion times are floats near 1e9 (steps of 2e-7 s): a
    # microsecond past the last one keeps it in a half-open window.
    return main[0], main[1] + 1e-6

"""Log-bucket histograms of latencies.

Two kinds:

- decade_histogram(): the exact histogram of a latency series over the
  fixed edges 10**(k/20) seconds (20 buckets per decade), counted with a
  "how many values <= x" function (over sorted runs, exact).
- LogHist: counts of positive values in bins whose edges grow by GAMMA
  (BINS_PER_DECADE per decade); bin b holds the values v with
  floor(ln(v) * SCALE) + SHIFT == b.  A percentile read from it is the
  bin's representative value, within RELATIVE_ERROR of the exact
  percentile.  The time series keeps one per time bucket and operation.
"""
from __future__ import absolute_import, division, print_function

import math
import operator
from array import array

from ssbench.report.compute.rank import RunLengths

BINS_PER_DECADE = 40
GAMMA = 10 ** (1 / BINS_PER_DECADE)
SCALE = BINS_PER_DECADE / math.log(10)
# Added before int() truncates, so every positive double (down to 5e-324)
# gets a positive bin number and truncation is a floor.
SHIFT = 1 << 14
# A value v in a bin [lo, lo * GAMMA) and the bin's representative
# r = 2 * lo * GAMMA / (1 + GAMMA) differ by at most
# (GAMMA - 1) / (GAMMA + 1) = 0.02877 of v; rounded up, with room for the
# rounding of the logarithm near an edge.
RELATIVE_ERROR = 0.0288

# Count types, narrowest first: a bin overflowing one moves to the next.
# Most bins of a time bucket hold a few hundred values at most.
_TYPECODES = ('B', 'H', 'I', 'L')

DECADE_BUCKETS = 20
# The decade histogram stops at 1e300 s (past it 10 ** x overflows).
_LAST_EDGE = 300 * DECADE_BUCKETS


def bin_of(value):
    """The LogHist bin of a positive value."""
    return int(math.log(value) * SCALE + SHIFT)


def bin_value(b):
    """The value standing for bin b (see RELATIVE_ERROR)."""
    lo = math.exp((b - SHIFT) / SCALE)
    return 2 * lo * GAMMA / (1 + GAMMA)


def _fit(values):
    """An array of the narrowest count type holding every value."""
    top = max(values) if values else 0
    for code in _TYPECODES:
        counts = array(code)
        if top < 1 << (8 * counts.itemsize):
            counts.extend(values)
            return counts
    raise OverflowError('count too large: %d' % top)


class LogHist(object):
    """Counts per bin over the dense bin range off .. off + len(counts).

    The scanner increments ``counts[b - off]`` inline and falls back to
    add() for a bin outside the range or a count overflowing its type.
    """
    __slots__ = ('off', 'counts')

    def __init__(self, b):
        self.off = b
        self.counts = array(_TYPECODES[0], [0])

    def add(self, b, n=1):
        """Count n values in bin b, growing the range as needed."""
        counts = self.counts
        if b < self.off:
            counts = array(counts.typecode, [0]) * (self.off - b) + counts
            self.off = b
        i = b - self.off
        if i >= len(counts):
            counts.extend(array(counts.typecode, [0]) * (i + 1 - len(counts)))
        try:
            counts[i] += n
        except OverflowError:
            values = counts.tolist()
            values[i] += n
            counts = _fit(values)
        self.counts = counts

    def merge(self, other):
        """Add another LogHist's counts to this one."""
        lo = min(self.off, other.off)
        hi = max(self.off + len(self.counts), other.off + len(other.counts))
        self.counts = _fit(list(map(operator.add, self._padded(lo, hi),
                                    other._padded(lo, hi))))
        self.off = lo

    def _padded(self, lo, hi):
        before = self.off - lo
        return ([0] * before + self.counts.tolist() +
                [0] * (hi - lo - before - len(self.counts)))

    def total(self):
        return sum(self.counts)

    def percentiles(self, pctiles):
        """Nearest-rank percentiles (representative values), one per
        pctile; None for an empty histogram."""
        off = self.off
        ranked = RunLengths(self.counts, lambda j: bin_value(off + j))
        return [ranked.percentile(p) for p in pctiles]


def add_value(hists, slot, value):
    """Count value in hists[slot] (a LogHist or None, then created).

    Values that are not positive numbers have no bin and are left out.
    """
    try:
        if not value > 0:
            return
        b = bin_of(value)
    except (TypeError, ValueError, OverflowError):
        return
    hist = hists[slot]
    if hist is None:
        hist = hists[slot] = LogHist(b)
    hist.add(b)


def merged(hists):
    """One LogHist holding the counts of all non-None hists (or None)."""
    result = None
    for hist in hists:
        if hist is None:
            continue
        if result is None:
            result = LogHist(hist.off)
            result.counts = array(hist.counts.typecode, hist.counts)
        else:
            result.merge(hist)
    return result


def decade_edge(k):
    """Edge k of the decade histogram: 10 ** (k / 20) seconds."""
    return 10 ** (k / DECADE_BUCKETS)


def decade_histogram(count_le, lo, hi):
    """[[edge_k, edge_k+1, count], ...] for the non-empty buckets
    edge_k < v <= edge_k+1 of the positive values of a series.

    ``count_le(x)`` counts the series' values <= x; ``lo`` is its
    smallest positive value and ``hi`` its largest (None: no such value).
    """
    if lo is None or hi is None or not hi > 0:
        return []
    k = int(math.floor(DECADE_BUCKETS * math.log10(lo)))
    # log10 may round either way next to an edge.
    while decade_edge(k) >= lo:
        k -= 1
    while decade_edge(k + 1) < lo:
        k += 1
    below = count_le(decade_edge(k))
    rows = []
    while True:
        top = decade_edge(k + 1)
        upto = count_le(top)
        if upto > below:
            rows.append([decade_edge(k), top, upto - below])
        below = upto
        k += 1
        if top >= hi or k >= _LAST_EDGE:
            return rows

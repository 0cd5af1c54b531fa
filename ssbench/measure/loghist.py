"""The one log histogram: BINS_PER_DECADE bins per decade, for every
approximate figure of latencies, lags and waits (the report's time
series, the live view, the Prometheus histograms, the open-loop
schedule's summaries).

Bin b holds the positive values v with int(ln(v) * SCALE + SHIFT) == b,
that is bin_edge(b) <= v < bin_edge(b + 1), give or take the rounding of
the logarithm next to an edge; every positive double has a bin above
ZERO_BIN, and zero (or a negative value, counted as zero) goes in
ZERO_BIN.  A percentile read from a LogHist is the nearest-rank rule
(ssbench.measure.rank) over the bins' representative values
(bin_value), within RELATIVE_ERROR of the exact percentile; zeros are
exact.

edge_histogram() counts exactly between every few bin edges (the
report's decade histogram: every DECADE_STEP-th edge).
"""
from __future__ import absolute_import, division, print_function

import math
import operator
from array import array
from itertools import chain

from ssbench.measure.rank import RunLengths

BINS_PER_DECADE = 40
GAMMA = 10 ** (1 / BINS_PER_DECADE)
SCALE = BINS_PER_DECADE / math.log(10)
# Added before int() truncates, so every positive double (down to 5e-324)
# gets a positive bin number and truncation is a floor.
SHIFT = 1 << 14
# Below every positive value's bin: zeros.
ZERO_BIN = 0
# A value v in a bin [lo, lo * GAMMA) and the bin's representative
# r = 2 * lo * GAMMA / (1 + GAMMA) differ by at most
# (GAMMA - 1) / (GAMMA + 1) = 0.02877 of v; rounded up, with room for the
# rounding of the logarithm near an edge.
RELATIVE_ERROR = 0.0288

# Count types, narrowest first: a bin overflowing one moves to the next.
# Most bins of a time bucket hold a few hundred values at most.
_TYPECODES = ('B', 'H', 'I', 'L')

# The report's decade histogram: every DECADE_STEP-th edge, 20 a decade.
DECADE_STEP = 2
# Edges stop at 1e300 (past it 10 ** x overflows).
_LAST_BIN = SHIFT + 300 * BINS_PER_DECADE


def bin_of(value):
    """The bin of a positive value."""
    return int(math.log(value) * SCALE + SHIFT)


def bin_value(b):
    """The value standing for bin b (see RELATIVE_ERROR)."""
    # exp() and not bin_edge(): the report's time series has always
    # printed these very doubles.
    lo = math.exp((b - SHIFT) / SCALE)
    return 2 * lo * GAMMA / (1 + GAMMA)


def bin_edge(b):
    """The lower edge of bin b: 10 ** ((b - SHIFT) / BINS_PER_DECADE),
    exact at powers of ten (bin_edge(SHIFT) == 1.0)."""
    return 10 ** ((b - SHIFT) / BINS_PER_DECADE)


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
    """Counts per bin over the dense bin range off .. off + len(counts),
    zeros apart; `max` is the exact largest value when every value came
    through count() or count_even() (None otherwise).

    The report's scanner increments ``counts[b - off]`` inline and falls
    back to add() for a bin outside the range or a count overflowing its
    type.
    """
    __slots__ = ('off', 'counts', 'zeros', 'max')

    def __init__(self, b=SHIFT):
        self.off = b
        self.counts = array(_TYPECODES[0], [0])
        self.zeros = 0
        self.max = None

    def add(self, b, n=1):
        """Count n values in bin b, growing the range as needed."""
        if b <= ZERO_BIN:
            self.zeros += n
            return
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

    def count(self, value, n=1):
        """Count a value n times (a negative one as zero), keeping the
        max."""
        if value > 0:
            self.add(bin_of(value), n)
        else:
            value = 0.0
            self.zeros += n
        if self.max is None or value > self.max:
            self.max = value

    def count_even(self, high, step, n):
        """Count the n values high, high - step, ... (a negative one as
        zero) bin by bin, not one by one."""
        if n <= 0:
            return
        low = max(0.0, high - (n - 1) * step)
        positive = n
        if not low > 0:
            # Values high - k * step for k < positive are above zero;
            # the division may round either way.
            positive = max(0, min(n, int(math.ceil(high / step))))
            while positive and not high - (positive - 1) * step > 0:
                positive -= 1
            while positive < n and high - positive * step > 0:
                positive += 1

        def at_least(edge):
            # How many of the values are >= edge.
            if edge <= low:
                return n
            if edge > high:
                return 0
            return int(math.floor((high - edge) / step)) + 1

        b = bin_of(high) if positive else ZERO_BIN
        counted = 0
        while counted < positive:
            above = min(positive, at_least(bin_edge(b)))
            if above > counted:
                self.add(b, above - counted)
                counted = above
            b -= 1
        self.zeros += n - positive
        high = max(0.0, high)
        if self.max is None or high > self.max:
            self.max = high

    def merge(self, other):
        """Add another LogHist's counts to this one."""
        lo = min(self.off, other.off)
        hi = max(self.off + len(self.counts), other.off + len(other.counts))
        self.counts = _fit(list(map(operator.add, self._padded(lo, hi),
                                    other._padded(lo, hi))))
        self.off = lo
        self.zeros += other.zeros
        if other.max is not None and (self.max is None or
                                      other.max > self.max):
            self.max = other.max

    def _padded(self, lo, hi):
        before = self.off - lo
        return ([0] * before + self.counts.tolist() +
                [0] * (hi - lo - before - len(self.counts)))

    def total(self):
        """How many values it holds (zeros included)."""
        return self.zeros + sum(self.counts)

    def percentiles(self, pctiles):
        """Nearest-rank percentiles (representative values, 0.0 for
        zeros, never above a known max), one per pctile; None for an
        empty histogram."""
        off = self.off - 1
        top = self.max

        def value_at(j):
            # Run 0 is the zeros, run j > 0 bin off + j - 1.
            if not j:
                return 0.0
            value = bin_value(off + j)
            return value if top is None or value < top else top
        ranked = RunLengths(chain((self.zeros,), self.counts), value_at)
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


def from_bins(bins):
    """A LogHist of {bin: count} (None when it counts nothing)."""
    if not bins:
        return None
    hist = LogHist(max(bins))
    for b, n in bins.items():
        hist.add(b, n)
    return hist


def merged(hists):
    """One LogHist holding the counts of all non-None hists (or None)."""
    result = None
    for hist in hists:
        if hist is None:
            continue
        if result is None:
            result = LogHist(hist.off)
            result.counts = array(hist.counts.typecode, hist.counts)
            result.zeros = hist.zeros
            result.max = hist.max
        else:
            result.merge(hist)
    return result


def edge_histogram(count_le, lo, hi, step=DECADE_STEP):
    """[[edge_k, edge_k+1, count], ...] for the non-empty buckets
    edge_k < v <= edge_k+1 of the positive values of a series, edge_k
    being bin_edge(SHIFT + k * step).

    ``count_le(x)`` counts the series' values <= x, exactly; ``lo`` is
    its smallest positive value and ``hi`` its largest (None: no such
    value).
    """
    if lo is None or hi is None or not hi > 0:
        return []

    def edge(k):
        return bin_edge(SHIFT + k * step)
    k = int(math.floor(BINS_PER_DECADE / step * math.log10(lo)))
    # log10 may round either way next to an edge.
    while edge(k) >= lo:
        k -= 1
    while edge(k + 1) < lo:
        k += 1
    below = count_le(edge(k))
    rows = []
    while True:
        top = edge(k + 1)
        upto = count_le(top)
        if upto > below:
            rows.append([edge(k), top, upto - below])
        below = upto
        k += 1
        if top >= hi or SHIFT + k * step >= _LAST_BIN:
            return rows

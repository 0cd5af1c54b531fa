"""The one nearest-rank rule (docs/internals.rst, "Report numbers"),
computed exactly, and the
percentile it gives of a sorted sequence or of runs of equal values.

rank = n * pctile / 100 in exact arithmetic: a whole rank takes the mean
of the values at positions rank and rank + 1 (1-based), otherwise the
value at ceil(rank); positions are clamped to 1..n (pctile 0 and 100).
A float pctile stands for the decimal it was written as (its shortest
repr): 99.9 is 999/10, not the double just above it, so the rank of
p99.9 over 41,000 values is 40,959 (whole), not 40,959.00000000001.
"""
from __future__ import absolute_import, division, print_function

import bisect
from fractions import Fraction

# pctile / 100 as (numerator, denominator) per percentile seen; a few
# percentiles are ranked over and over (once per time bucket).
_RATIOS = {}
_RATIOS_KEPT = 64


def ratio(pctile):
    """pctile / 100 as an exact (numerator, denominator > 0)."""
    # Keyed by type too: the float 0.1 equals the Fraction of its exact
    # binary value, which is no tenth.
    key = (type(pctile), pctile)
    try:
        return _RATIOS[key]
    except KeyError:
        pass
    if isinstance(pctile, float):
        exact = Fraction(repr(float(pctile)))
    else:
        exact = Fraction(pctile)
    exact /= 100
    result = (exact.numerator, exact.denominator)
    if len(_RATIOS) < _RATIOS_KEPT:
        _RATIOS[key] = result
    return result


def percentile_name(pctile, dot='.'):
    """The one name of a percentile: 'p' + its shortest decimal, a whole
    one without '.0', '.' written as `dot` ('_' in the analysis
    document's keys): 99.9 -> 'p99.9' or 'p99_9', 99.0 -> 'p99'."""
    whole = int(pctile)
    return 'p' + repr(whole if whole == pctile else pctile).replace('.', dot)


def nearest_rank(n, pctile):
    """The positions (1-based) the percentile of n > 0 sorted values
    takes: (first, second, whole); whole means the mean of the values at
    first and second, otherwise first == second."""
    num, den = ratio(pctile)
    scaled = n * num
    if scaled % den:
        first = min(-(-scaled // den), n)
        return first, first, False
    rank = scaled // den
    first = min(max(rank, 1), n)
    second = min(first + 1, n) if rank >= 1 else first
    return first, second, True


def percentile_of_sorted(values, pctile):
    """The nearest-rank percentile of an ascending sequence (anything
    with len() and 0-based indexing), None when it is empty."""
    n = len(values)
    if not n:
        return None
    first, second, whole = nearest_rank(n, pctile)
    if whole:
        return (values[first - 1] + values[second - 1]) / 2
    return values[first - 1]


class RunLengths(object):
    """The ascending sequence holding value_at(j) counts[j] times: a
    histogram seen as the sorted list it stands for, without building
    it, so percentile_of_sorted() applies unchanged."""

    def __init__(self, counts, value_at):
        ends = []
        total = 0
        for count in counts:
            total += count
            ends.append(total)
        self._ends = ends
        self._value_at = value_at

    def __len__(self):
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i):
        # ends[j - 1] <= i < ends[j]: position i lies in run j (never an
        # empty run, whose end equals the one before it).
        return self._value_at(bisect.bisect_right(self._ends, i))

    def percentile(self, pctile):
        """The nearest-rank percentile (None when empty)."""
        return percentile_of_sorted(self, pctile)

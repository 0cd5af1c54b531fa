"""The report's percentile of a sorted list: SPEC section 5's nearest-rank
rule, shared by every figure that ranks latencies."""
from __future__ import absolute_import, division, print_function

from ssbench.results.sortedruns import nearest_rank


def percentile_of_sorted(values, pctile):
    """The SPEC's nearest-rank percentile of an ascending sequence.

    rank = len * pctile / 100, computed exactly (see
    ssbench.results.sortedruns.nearest_rank); a whole rank gives the mean
    of the values at positions rank and rank+1 (1-based), otherwise the
    value at ceil(rank).  Positions are clamped to the list (pctile 0 and
    100).  None for an empty sequence.
    """
    n = len(values)
    if not n:
        return None
    first, second, whole = nearest_rank(n, pctile)
    if whole:
        return (values[first - 1] + values[second - 1]) / 2
    return values[first - 1]

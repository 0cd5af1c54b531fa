"""The report's percentile of a sorted list: SPEC section 5's nearest-rank
rule, shared by every figure that ranks latencies."""
from __future__ import absolute_import, division, print_function

import math


def percentile_of_sorted(values, pctile):
    """The SPEC's nearest-rank percentile of an ascending list.

    rank = len * pctile / 100; a whole rank gives the mean of the values at
    positions rank and rank+1 (1-based), otherwise the value at
    ceil(rank).  Positions are clamped to the list (pctile 0 and 100).
    """
    n = len(values)
    if not n:
        return None
    rank = n * pctile / 100
    if rank == int(rank):
        lo = min(max(int(rank), 1), n)
        hi = min(lo + 1, n) if rank >= 1 else lo
        return (values[lo - 1] + values[hi - 1]) / 2
    return values[min(int(math.ceil(rank)), n) - 1]

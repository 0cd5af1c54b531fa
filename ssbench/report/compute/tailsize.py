"""How many results a percentile needs before an objective may judge it.

The pN of n results (nearest rank: the ceil(n * N / 100)-th smallest)
is their largest whenever n < 100 / (100 - N): the "p99" of 5 results
is their maximum, and says nothing of the 99th percentile.  A pN
objective (--slo, --fail-if, the capacity search's steps) is therefore
judged only on at least needed(N) = ceil(ABOVE * 100 / (100 - N))
results, so that at least ABOVE of them lie above the pN: p50 needs 2,
p90 10, p99 100, p99.9 1,000.  With fewer, its verdict is "too few
results", neither met nor missed.  max, avg, rps and errors need no
more than one result (max is p100: it is the largest by definition).

ABOVE is 1, the least that makes the pN a figure of its own rather than
the sample's maximum.  A larger ABOVE would tighten the estimate (with
ABOVE results above it, a step whose true share above the limit is
twice the allowed one passes with probability P(Poisson(2 ABOVE) <=
ABOVE): 41% at 1, 7% at 5), but p99 would need 100 ABOVE results: at 5,
a capacity search's 4 s steps could not judge p99 below 125 req/s, and
its steps would have to last minutes to judge p99.9.  Lengthen -r (or
--steady-seconds) for a tighter verdict: the count needed stays the
same, the results grow.
"""
from __future__ import absolute_import, division, print_function

import math

ABOVE = 1


def needed(percentile):
    """The least number of results a pN objective is judged on (1 for
    p100, the maximum)."""
    if percentile >= 100:
        return 1
    # round(): 100 - 99.9 is 0.0999999999999943, not 0.1.
    return int(math.ceil(round(ABOVE * 100.0 / (100 - percentile), 6)))


def too_few(count, percentile):
    """Whether `count` results are too few to judge the `percentile`
    (None: not a percentile, never too few)."""
    return percentile is not None and (count or 0) < needed(percentile)

"""Where a run's randomness comes from: one seed, separate streams.

Every random choice of a run (object sizes of the population, the
benchmark's size classes, CRUD types, sizes and containers, Poisson
arrivals, the ranks of skewed object popularity) comes from a
`random.Random` made here from the run's seed, one stream per purpose, so
that a change in one (say, a scenario with more
initial objects) does not shift the others.  The seed is stored in the
stats file's header: any run can be replayed.
"""
from __future__ import absolute_import, division, print_function

import random

# Drawn seeds stay below 2**31: short to type, exact in JSON everywhere.
DRAWN_SEED_LIMIT = 1 << 31
# Largest --seed: a msgpack (and SQL, and Java) signed 64-bit integer.
MAX_SEED = (1 << 63) - 1

# One stream per purpose; the seed is spread so streams never share one.
BENCH, POPULATION, ARRIVALS = range(3)
_STREAMS = 3
# Purposes added since are seeded past every seed of the first three (at
# most 3 * MAX_SEED + 2), each in a block of its own, so that those replay
# as before.
POPULARITY = 3
_LATER_BLOCK = 3 << 63


def draw_seed():
    """A fresh seed from the OS's randomness."""
    return random.SystemRandom().randrange(DRAWN_SEED_LIMIT)


def stream(seed, purpose):
    """The `random.Random` of one purpose (BENCH, POPULATION, ARRIVALS,
    POPULARITY) of a run seeded with `seed`."""
    if purpose < _STREAMS:
        return random.Random(seed * _STREAMS + purpose)
    return random.Random(_LATER_BLOCK * (purpose - _STREAMS + 1) + seed)

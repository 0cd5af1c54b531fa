"""Skewed object popularity: which rank a READ, UPDATE or DELETE picks
among a size class's live objects (see ssbench.load.objectring, which maps
the rank to an object; rank 0 is the hottest).

A scenario's `popularity` key (top level, or per size class, which wins):

    absent or {"kind": "uniform"}            0.3.9's rotation through the
                                             class, object after object
    {"kind": "zipf", "exponent": S}          rank k (1-based) with
                                             probability k**-S / H(n, S)
    {"kind": "hotspot", "objects": F,        the first F of the objects
     "share": P}                             take P of the picks, each
                                             alike; the others the rest

Zipf is sampled exactly (no table, O(1) expected) by rejection-inversion:
the density x**-S is inverted in closed form over [0.5, n + 0.5] and a
candidate rank k is kept with probability k**-S over the integral of its
cell, so kept ranks follow k**-S exactly (Hoermann and Derflinger, "Rejection-
inversion to generate variates from monotone discrete distributions",
1996).  About 1.1 draws per rank at S = 1.2.
"""
from __future__ import absolute_import, division, print_function

import math

from ssbench.load.scenariocheck import show

KINDS = ('uniform', 'zipf', 'hotspot')
# Beyond this a Zipf class is its first object alone.
MAX_EXPONENT = 100
# Exponents this close to 1 use the logarithm forms.
_NEAR_ONE = 1e-9
_ABOVE_MINUS_ONE = -1.0 + 2.0 ** -52


def check(checker, value, what):
    """The normalized popularity of a scenario value: None (uniform),
    ('zipf', exponent) or ('hotspot', objects, share); a one-line
    ScenarioError naming `what` (the key) otherwise."""
    if not isinstance(value, dict) or value.get('kind') not in KINDS:
        checker.fail('%s must be an object whose "kind" is "uniform", '
                     '"zipf" or "hotspot", not %s' % (what, show(value)))
    kind = value['kind']
    keys = {'uniform': (), 'zipf': ('exponent',),
            'hotspot': ('objects', 'share')}[kind]
    extra = sorted(set(value) - set(keys) - set(['kind']))
    if extra:
        checker.fail('%s: a "%s" popularity has no key "%s"' % (
            what, kind, extra[0]))
    for key in keys:
        if key not in value:
            checker.fail('%s: a "%s" popularity needs "%s"' % (
                what, kind, key))
    if kind == 'uniform':
        return None
    if kind == 'zipf':
        exponent = checker.positive_number(
            value['exponent'], '%s: "exponent"' % what, MAX_EXPONENT)
        return ('zipf', float(exponent))
    objects = _fraction(checker, value['objects'], '%s: "objects"' % what,
                        1.0, 'below 1')
    share = _fraction(checker, value['share'], '%s: "share"' % what,
                      1.0 + 1e-12, 'at most 1')
    return ('hotspot', float(objects), float(share))


def _fraction(checker, value, what, limit, wording):
    if (isinstance(value, bool) or not isinstance(value, (int, float)) or
            not 0 < value < limit):
        checker.fail('%s must be a fraction above 0 and %s, not %s' % (
            what, wording, show(value)))
    return value


def picker(spec, random):
    """The rank picker of a normalized popularity (see check()): a
    callable n -> rank in [0, n), drawing from `random` (a
    random.Random().random); None for uniform."""
    if spec is None:
        return None
    if spec[0] == 'zipf':
        return ZipfRanks(spec[1], random)
    return HotSpotRanks(spec[1], spec[2], random)


def pickers(scenario, rng):
    """{size name: rank picker} of the scenario's skewed size classes,
    all drawing from `rng` (a random.Random)."""
    found = {}
    for size in scenario.sizes:
        pick = picker(size.popularity, rng.random)
        if pick is not None:
            found[size.name] = pick
    return found


class ZipfRanks(object):
    """Zipf ranks over n objects with exponent s (see the module's doc);
    one instance serves any n, caching what depends on it."""

    __slots__ = ('s', 'random', 'one', 'squeeze', 'n', 'top', 'span')

    def __init__(self, exponent, random):
        self.s = float(exponent)
        self.random = random
        self.one = abs(1.0 - self.s) < _NEAR_ONE
        # Candidates this close below their rank are always kept: the
        # bound holds for every rank >= 2 once it holds for rank 2.
        self.squeeze = 2.0 - self._inverse(self._integral(2.5) -
                                           2.0 ** -self.s)
        self.n = None

    def _integral(self, x):
        """H(x), an antiderivative of x**-s."""
        if self.one:
            return math.log(x)
        t = 1.0 - self.s
        return math.expm1(t * math.log(x)) / t

    def _inverse(self, h):
        """x with H(x) = h."""
        if self.one:
            return math.exp(h)
        t = 1.0 - self.s
        # Above -1: with a large exponent x**(1 - s) underflows, and H(n)
        # rounds to its bound, where log1p would fail.
        return math.exp(math.log1p(max(t * h, _ABOVE_MINUS_ONE)) / t)

    def __call__(self, n):
        if n != self.n:
            self.n = n
            self.top = self._integral(n + 0.5)
            # Rank 1's cell is exactly its weight (1), so it needs no test.
            self.span = (self._integral(1.5) - 1.0) - self.top
        random = self.random
        s = self.s
        while True:
            h = self.top + random() * self.span
            x = self._inverse(h)
            k = int(x + 0.5)
            if k < 1:
                k = 1
            elif k > n:
                k = n
            if (k - x <= self.squeeze or
                    h >= self._integral(k + 0.5) - k ** -s):
                return k - 1


class HotSpotRanks(object):
    """The first `objects` (a fraction, at least one object) of n take
    `share` of the picks; every object of each part alike."""

    __slots__ = ('objects', 'share', 'random')

    def __init__(self, objects, share, random):
        self.objects = objects
        self.share = share
        self.random = random

    def __call__(self, n):
        hot = int(self.objects * n + 0.5) or 1
        u = self.random()
        if hot >= n:
            rank = int(u * n)
        elif u < self.share:
            rank = int(u / self.share * hot)
        else:
            rank = hot + int((u - self.share) / (1.0 - self.share) *
                             (n - hot))
        return rank if rank < n else n - 1

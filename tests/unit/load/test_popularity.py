"""ssbench.load.popularity: the scenario key and the rank pickers' draws."""
from __future__ import absolute_import, division, print_function

import collections
import random

import pytest

from ssbench.errors import ScenarioError
from ssbench.load import popularity, seeds
from ssbench.load.popularity import HotSpotRanks, ZipfRanks, check
from ssbench.load.scenario import Scenario
from ssbench.load.scenariocheck import Checker
from tests.unit.load.test_scenario import minimal

# Chi-square statistics must stay below the 99.9% quantile of their
# distribution (CHI2_999[degrees of freedom]): at a fixed seed the test
# is exact, and a sampler off by a few percent at any rank exceeds it.
CHI2_999 = {1: 10.83, 19: 43.82, 29: 58.30, 49: 85.35}


def chi_square(counts, expected):
    return sum((counts.get(rank, 0) - want) ** 2 / want
               for rank, want in enumerate(expected))


def zipf_expected(n, exponent, draws):
    weights = [k ** -exponent for k in range(1, n + 1)]
    total = sum(weights)
    return [draws * w / total for w in weights]


@pytest.mark.parametrize('exponent', [0.3, 0.8, 1.0, 1.2, 2.0])
def test_zipf_ranks_follow_the_distribution(exponent):
    pick = ZipfRanks(exponent, random.Random(11).random)
    n, draws = 30, 40000
    counts = collections.Counter(pick(n) for _ in range(draws))
    assert set(counts) <= set(range(n))
    assert chi_square(counts, zipf_expected(n, exponent, draws)) < \
        CHI2_999[n - 1]


def test_zipf_follows_the_class_as_it_grows_and_shrinks():
    pick = ZipfRanks(1.2, random.Random(12).random)
    for n in (1, 2, 20, 50):
        draws = 20000
        counts = collections.Counter(pick(n) for _ in range(draws))
        if n == 1:
            assert counts == {0: draws}
            continue
        degrees = min(n - 1, 49)
        expected = zipf_expected(n, 1.2, draws)
        # Small expected counts merged into the last cell keep chi-square
        # valid: at most `degrees` + 1 cells.
        cells = dict((rank, counts.get(rank, 0)) for rank in range(degrees))
        cells[degrees] = sum(counts.get(rank, 0)
                             for rank in range(degrees, n))
        tail = expected[:degrees] + [sum(expected[degrees:])]
        assert chi_square(cells, tail) < CHI2_999[degrees]


def test_zipf_large_exponent_is_the_first_object():
    pick = ZipfRanks(popularity.MAX_EXPONENT, random.Random(1).random)
    assert set(pick(1000) for _ in range(200)) == set([0])


def test_zipf_at_the_ends_of_the_uniform_draw():
    # random() at 0 is the far end of the cold side: with exponent 5 and
    # a million objects, (1 - s) * H there rounds to -1 exactly.
    for exponent in (1.0, 1.2, 5.0, popularity.MAX_EXPONENT):
        draws = iter([0.0, 1.0 - 2.0 ** -53])
        pick = ZipfRanks(exponent, lambda: next(draws))
        assert 0 <= pick(10 ** 6) < 10 ** 6
        assert pick(10 ** 6) == 0


def test_hot_spot_share_and_evenness():
    pick = HotSpotRanks(0.1, 0.9, random.Random(13).random)
    n, draws = 200, 50000
    counts = collections.Counter(pick(n) for _ in range(draws))
    hot = sum(counts.get(rank, 0) for rank in range(20))
    # Binomial(50000, 0.9): standard deviation 67; 4 of them.
    assert abs(hot - 0.9 * draws) < 4 * 67
    assert chi_square(dict((r, counts.get(r, 0)) for r in range(20)),
                      [hot / 20.0] * 20) < CHI2_999[19]
    cold = collections.Counter(dict((r // 9, 0) for r in range(20, n)))
    for rank in range(20, n):
        cold[(rank - 20) // 9] += counts.get(rank, 0)
    assert chi_square(cold, [(draws - hot) / 20.0] * 20) < CHI2_999[19]


def test_hot_spot_of_a_small_class():
    pick = HotSpotRanks(0.1, 0.5, random.Random(14).random)
    # One object, then a hot part of at least one object.
    assert set(pick(1) for _ in range(50)) == set([0])
    counts = collections.Counter(pick(3) for _ in range(30000))
    assert abs(counts[0] - 15000) < 4 * 87
    pick = HotSpotRanks(0.9, 1.0, random.Random(15).random)
    assert set(pick(2) for _ in range(200)) == set([0, 1])   # all hot


@pytest.mark.parametrize('spec', [('zipf', 1.2), ('hotspot', 0.2, 0.8)])
def test_picks_replay_under_a_seed(spec):
    def ranks(seed):
        pick = popularity.picker(
            spec, seeds.stream(seed, seeds.POPULARITY).random)
        return [pick(1000) for _ in range(300)]
    assert ranks(5) == ranks(5)
    assert ranks(5) != ranks(6)


def test_popularity_stream_leaves_the_others_alone():
    # The first three streams are seeded as before the fourth existed.
    for purpose in (seeds.BENCH, seeds.POPULATION, seeds.ARRIVALS):
        assert seeds.stream(5, purpose).random() == \
            random.Random(15 + purpose).random()
    mine = seeds.stream(5, seeds.POPULARITY).random()
    assert mine not in [random.Random(n).random() for n in range(40)]
    assert seeds.stream(seeds.MAX_SEED, seeds.ARRIVALS).random() != \
        seeds.stream(0, seeds.POPULARITY).random()


# -- the scenario key ----------------------------------------------------

def test_check_normalizes():
    checker = Checker('x')
    assert check(checker, {'kind': 'uniform'}, 'k') is None
    assert check(checker, {'kind': 'zipf', 'exponent': 1}, 'k') == \
        ('zipf', 1.0)
    assert check(checker, {'kind': 'hotspot', 'objects': 0.1,
                           'share': 1}, 'k') == ('hotspot', 0.1, 1.0)


@pytest.mark.parametrize('value, fragment', [
    ('zipf', '"popularity" must be an object whose "kind" is "uniform", '
             '"zipf" or "hotspot", not "zipf"'),
    ({'kind': 'pareto'}, 'not {"kind": "pareto"}'),
    ({'kind': 'zipf'}, '"popularity": a "zipf" popularity needs "exponent"'),
    ({'kind': 'zipf', 'exponent': 0}, '"popularity": "exponent" must be a '
                                      'number > 0, not 0'),
    ({'kind': 'zipf', 'exponent': True}, 'must be a number > 0, not true'),
    ({'kind': 'zipf', 'exponent': 101}, '"exponent" must be at most 100'),
    ({'kind': 'zipf', 'exponent': 1, 'share': 1},
     'a "zipf" popularity has no key "share"'),
    ({'kind': 'hotspot', 'objects': 0.1}, 'needs "share"'),
    ({'kind': 'hotspot', 'objects': 1, 'share': 0.5},
     '"objects" must be a fraction above 0 and below 1, not 1'),
    ({'kind': 'hotspot', 'objects': 0.1, 'share': 1.5},
     '"share" must be a fraction above 0 and at most 1, not 1.5'),
    ({'kind': 'hotspot', 'objects': 0.1, 'share': 0},
     '"share" must be a fraction above 0 and at most 1, not 0'),
])
def test_bad_popularity_is_one_line_naming_the_key(value, fragment):
    with pytest.raises(ScenarioError) as info:
        Scenario(minimal(popularity=value), source='s.scenario')
    message = str(info.value)
    assert message.startswith('s.scenario: "popularity"')
    assert fragment in message and '\n' not in message


def test_size_class_popularity_wins_over_the_top_level():
    data = minimal(popularity={'kind': 'zipf', 'exponent': 1.2})
    data['sizes'][1]['popularity'] = {'kind': 'uniform'}
    scenario = Scenario(data)
    assert scenario.size('zero').popularity == ('zipf', 1.2)
    assert scenario.size('tiny').popularity is None
    assert sorted(popularity.pickers(scenario, random.Random(1))) == ['zero']
    data['sizes'][1]['popularity'] = {'kind': 'hotspot'}
    with pytest.raises(ScenarioError) as info:
        Scenario(data, source='s')
    assert str(info.value).startswith('s: sizes[1] ("tiny"): "popularity": '
                                      'a "hotspot" popularity needs')


def test_no_popularity_is_uniform():
    scenario = Scenario(minimal())
    assert [size.popularity for size in scenario.sizes] == [None, None]
    assert popularity.pickers(scenario, random.Random(1)) == {}

from __future__ import absolute_import, division, print_function

import bisect
import random

import pytest

from ssbench.measure import loghist
from ssbench.measure.loghist import LogHist
from tests import analysis_naive as naive


def hist_of(values):
    hists = [None]
    for value in values:
        loghist.add_value(hists, 0, value)
    return hists[0]


def test_bins_hold_values_within_the_stated_error():
    rng = random.Random(1)
    for _ in range(20000):
        value = 10 ** rng.uniform(-7, 4)
        b = loghist.bin_of(value)
        assert b > 0
        rep = loghist.bin_value(b)
        assert abs(rep - value) <= loghist.RELATIVE_ERROR * value


def test_bins_are_monotonic_and_gamma_wide():
    assert loghist.bin_of(1.0) == loghist.SHIFT
    assert loghist.bin_of(loghist.GAMMA * 1.0000001) == loghist.SHIFT + 1
    assert loghist.bin_of(1.0 / loghist.GAMMA * 1.0000001) == (
        loghist.SHIFT - 1)
    assert loghist.bin_of(5e-324) > 0


def test_add_value_leaves_out_what_has_no_bin():
    hists = [None, None]
    for value in (0.0, -1.0, None, float('nan'), float('inf'), 'x'):
        loghist.add_value(hists, 1, value)
    assert hists == [None, None]


def test_hist_grows_both_ways():
    hist = LogHist(100)
    hist.add(100)
    hist.add(97, 2)
    hist.add(103)
    assert hist.off == 97
    assert hist.counts.tolist() == [2, 0, 0, 1, 0, 0, 1]
    assert hist.total() == 4


def test_counts_overflowing_their_type_widen_it():
    hist = LogHist(5)
    hist.add(5, 255)
    assert hist.counts.typecode == 'B'
    hist.add(5)
    assert hist.counts.typecode == 'H'
    hist.add(5, 65535 - 256)
    assert hist.counts.typecode == 'H'
    hist.add(5)
    assert hist.counts.typecode == 'I'
    assert hist.counts.tolist() == [65536]


def test_merge_adds_counts_over_both_ranges():
    a = LogHist(10)
    a.add(10, 3)
    a.add(12, 65535)
    b = LogHist(8)
    b.add(8)
    b.add(12, 2)
    a.merge(b)
    assert a.off == 8
    assert a.counts.tolist() == [1, 0, 3, 0, 65537]
    assert a.counts.typecode == 'I'
    both = loghist.merged([None, b, None, b])
    assert (both.off, both.counts.tolist()) == (8, [2, 0, 0, 0, 4])
    assert b.counts.tolist() == [1, 0, 0, 0, 2]  # merged() copies
    assert loghist.merged([None]) is None


@pytest.mark.parametrize('seed', range(5))
def test_percentiles_within_the_stated_error(seed):
    rng = random.Random(seed)
    values = [round(rng.lognormvariate(-3, 1.5), rng.choice([3, 6]))
              for _ in range(rng.randrange(1, 300))]
    values = [v for v in values if v > 0] or [0.5]
    pctiles = [0, 1, 25, 50, 90, 99, 99.9, 100]
    got = hist_of(values).percentiles(pctiles)
    for pctile, value in zip(pctiles, got):
        exact = naive.percentile(values, pctile)
        assert abs(value - exact) <= loghist.RELATIVE_ERROR * exact


def test_percentiles_follow_the_nearest_rank_rule():
    # Rank 1 of 2 is whole: the mean of the two values' bins.
    hist = hist_of([1.0, 100.0])
    p50 = hist.percentiles([50])[0]
    want = (loghist.bin_value(loghist.bin_of(1.0)) +
            loghist.bin_value(loghist.bin_of(100.0))) / 2
    assert p50 == want


def test_edges_are_exact_at_powers_of_ten_and_hold_their_bins():
    assert loghist.bin_edge(loghist.SHIFT) == 1.0
    assert loghist.bin_edge(loghist.SHIFT - 80) == 0.01
    assert loghist.bin_edge(loghist.SHIFT + 40) == 10.0
    for b in range(loghist.SHIFT - 300, loghist.SHIFT + 200, 7):
        middle = (loghist.bin_edge(b) + loghist.bin_edge(b + 1)) / 2
        assert loghist.bin_of(middle) == b


def decade_edge(k):
    return 10 ** (k / 20)


@pytest.mark.parametrize('seed', range(5))
def test_decade_histogram_equals_direct_binning(seed):
    rng = random.Random(seed)
    values = sorted(rng.choice([decade_edge(rng.randrange(-80, 40)),
                                rng.lognormvariate(-3, 2)])
                    for _ in range(rng.randrange(1, 200)))
    rows = loghist.edge_histogram(
        lambda x: bisect.bisect_right(values, x), values[0], values[-1])
    assert rows == naive.histogram(values)
    assert sum(row[2] for row in rows) == len(values)


def test_decade_histogram_of_nothing():
    count_le = lambda x: 0  # noqa: E731
    assert loghist.edge_histogram(count_le, None, None) == []
    assert loghist.edge_histogram(count_le, None, 0.0) == []


def counted(values):
    hist = LogHist()
    for value in values:
        hist.count(value)
    return hist


def test_zeros_are_counted_exactly_and_negatives_as_zeros():
    hist = counted([0.0, -1.0, 0.0, 2.0])
    assert (hist.zeros, hist.total(), hist.max) == (3, 4, 2.0)
    # Rank 3 of 4 is whole: the mean of a zero and the max.
    assert hist.percentiles([0, 50, 75]) == [0.0, 0.0, 1.0]
    assert hist.percentiles([100])[0] == 2.0
    only = counted([-0.5])
    assert (only.max, only.percentiles([50, 100])) == (0.0, [0.0, 0.0])
    assert LogHist().percentiles([50]) == [None]


def test_a_known_max_bounds_every_percentile():
    hist = counted([1.0, 1.0001])
    assert loghist.bin_value(loghist.bin_of(1.0)) > 1.0001
    assert hist.percentiles([50, 100]) == [1.0001, 1.0001]
    # The report's histograms count by bin, with no max.
    assert hist_of([1.0]).max is None
    assert hist_of([1.0]).percentiles([100]) == [
        loghist.bin_value(loghist.bin_of(1.0))]


@pytest.mark.parametrize('seed', range(5))
def test_percentiles_with_zeros_and_max_within_the_stated_error(seed):
    rng = random.Random(seed)
    values = [rng.choice([0.0, rng.expovariate(1000), 10 ** rng.uniform(
        -6, 2)]) for _ in range(rng.randrange(1, 2000))]
    hist = counted(values)
    assert hist.max == max(values)
    pctiles = [0, 1, 25, 50, 90, 99, 99.9, 100]
    for pctile, value in zip(pctiles, hist.percentiles(pctiles)):
        exact = naive.percentile(values, pctile)
        assert abs(value - exact) <= loghist.RELATIVE_ERROR * exact


def test_merge_adds_zeros_and_keeps_the_larger_max():
    a, b = counted([0.0, 3.0]), counted([0.0, 0.0, 5.0])
    a.merge(b)
    assert (a.zeros, a.total(), a.max) == (3, 5, 5.0)
    both = loghist.merged([b, counted([7.0])])
    assert (both.zeros, both.total(), both.max) == (2, 4, 7.0)
    assert b.max == 5.0
    a.merge(hist_of([100.0]))
    assert a.max == 5.0


@pytest.mark.parametrize('high, step, n', [
    (1.0, 0.001, 1000), (0.5, 0.001, 501), (0.5, 0.001, 700),
    (3e-4, 1e-5, 31), (2.0, 0.3, 1), (0.0, 0.1, 4), (120.0, 7.3, 17)])
def test_count_even_equals_counting_one_by_one(high, step, n):
    values = [max(0.0, high - k * step) for k in range(n)]
    hist = LogHist()
    hist.count_even(high, step, n)
    one_by_one = counted(values)
    assert (hist.zeros, hist.max) == (one_by_one.zeros, one_by_one.max)
    assert hist.total() == n
    # A value next to an edge may fall either side of it, within the
    # stated error all the same.
    pctiles = [0, 10, 50, 90, 99, 100]
    for pctile, value in zip(pctiles, hist.percentiles(pctiles)):
        exact = naive.percentile(values, pctile)
        assert abs(value - exact) <= loghist.RELATIVE_ERROR * exact


def test_from_bins():
    hist = loghist.from_bins({loghist.ZERO_BIN: 2, 20000: 1, 19990: 3})
    assert (hist.zeros, hist.off, hist.total()) == (2, 19990, 6)
    assert loghist.from_bins({}) is None

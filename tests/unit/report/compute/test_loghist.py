from __future__ import absolute_import, division, print_function

import bisect
import random

import pytest

from ssbench.report.compute import loghist
from ssbench.report.compute.loghist import LogHist
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


def test_decade_edges():
    assert loghist.decade_edge(0) == 1.0
    assert loghist.decade_edge(-40) == 0.01
    assert loghist.decade_edge(20) == 10.0


@pytest.mark.parametrize('seed', range(5))
def test_decade_histogram_equals_direct_binning(seed):
    rng = random.Random(seed)
    values = sorted(rng.choice([loghist.decade_edge(rng.randrange(-80, 40)),
                                rng.lognormvariate(-3, 2)])
                    for _ in range(rng.randrange(1, 200)))
    rows = loghist.decade_histogram(
        lambda x: bisect.bisect_right(values, x), values[0], values[-1])
    assert rows == naive.histogram(values)
    assert sum(row[2] for row in rows) == len(values)


def test_decade_histogram_of_nothing():
    count_le = lambda x: 0  # noqa: E731
    assert loghist.decade_histogram(count_le, None, None) == []
    assert loghist.decade_histogram(count_le, None, 0.0) == []

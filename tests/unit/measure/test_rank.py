"""The one nearest-rank rule: exact ranks against the tests' independent
reference (tests.analysis_naive.percentile), over lists and run
lengths."""
from __future__ import absolute_import, division, print_function

import decimal
import fractions
import random

import pytest

from ssbench.measure.rank import (RunLengths, nearest_rank,
                                  percentile_name, percentile_of_sorted)
from tests import analysis_naive as naive

PCTILES = [0, 0.1, 1, 12.3, 33.3, 50, 95, 99, 99.9, 99.99, 99.999, 100]
SIZES = list(range(1, 260)) + [
    999, 1000, 1001, 2999, 3000, 9999, 10000, 10001, 41000, 100000]
# (size, percentile) whose rank is whole but n * pctile / 100 in floats
# is not (40959.00000000001 for p99.9 of 41,000): the float rule took
# the value at ceil(rank) instead of the mean of it and the next.
FLOAT_OFF = [(41000, 99.9), (82000, 99.9), (3000, 33.3), (21000, 12.3)]


@pytest.mark.parametrize('n', SIZES)
def test_equals_the_reference(n):
    values = [float(i) for i in range(n)]
    for pctile in PCTILES:
        assert percentile_of_sorted(values, pctile) == naive.percentile(
            values, pctile), pctile


@pytest.mark.parametrize('n, pctile', FLOAT_OFF)
def test_whole_ranks_that_floats_miss(n, pctile):
    rank = n * pctile / 100
    assert rank != int(rank)  # what the float rule saw
    values = [float(i) for i in range(n)]
    whole = int(round(rank))
    # Positions whole and whole + 1 hold whole - 1 and whole.
    assert naive.percentile(values, pctile) == whole - 0.5
    assert percentile_of_sorted(values, pctile) == whole - 0.5


def test_positions():
    assert nearest_rank(41000, 99.9) == (40959, 40960, True)
    assert nearest_rank(1000, 99.9) == (999, 1000, True)
    assert nearest_rank(10000, 99.99) == (9999, 10000, True)
    assert nearest_rank(100000, 99.999) == (99999, 100000, True)
    assert nearest_rank(1001, 99.9) == (1000, 1000, False)
    assert nearest_rank(10, 100) == (10, 10, True)
    assert nearest_rank(10, 0) == (1, 1, True)
    assert nearest_rank(10, 0.1) == (1, 1, False)


def test_exact_types_are_taken_as_they_are():
    third = fractions.Fraction(100, 3)
    assert nearest_rank(3, third) == (1, 2, True)
    assert nearest_rank(3, 33.333333333333336) == (2, 2, False)
    assert nearest_rank(1000, decimal.Decimal('99.9')) == (999, 1000, True)
    # The float 0.1 and the Fraction of its binary value are equal, yet
    # only the float stands for a tenth.
    binary = fractions.Fraction(0.1)
    assert binary == 0.1
    assert nearest_rank(10000, 0.1) == (10, 11, True)
    assert nearest_rank(10000, binary) == (11, 11, False)
    assert nearest_rank(10000, 0.1) == (10, 11, True)


def test_many_percentiles():
    # More distinct percentiles than the ratio cache keeps.
    values = [float(i) for i in range(777)]
    for tenths in range(1001):
        pctile = tenths / 10
        assert percentile_of_sorted(values, pctile) == naive.percentile(
            values, pctile), pctile


def test_integer_values_average_as_before():
    # Whole ranks give the mean even of equal neighbours: 3 / 2 * 2 = 3.0,
    # as the text report's per-second rates have always printed.
    assert percentile_of_sorted([3, 3], 50) == 3.0
    assert percentile_of_sorted([1, 2, 3], 50) == 2
    assert percentile_of_sorted([], 50) is None


def test_runs_index_like_the_expanded_list():
    rng = random.Random(3)
    for _ in range(200):
        counts = [rng.choice([0, 0, 1, 2, 7]) for _ in range(rng.randrange(6))]
        values = [10 * j for j in range(len(counts))]
        expanded = [v for v, n in zip(values, counts) for _ in range(n)]
        ranked = RunLengths(counts, values.__getitem__)
        assert len(ranked) == len(expanded)
        assert [ranked[i] for i in range(len(expanded))] == expanded
        for pctile in (0, 10, 25, 50, 75, 99.9, 100):
            assert ranked.percentile(pctile) == naive.percentile(
                expanded, pctile)


def test_run_lengths_of_nothing():
    assert RunLengths([], None).percentile(50) is None
    assert RunLengths([0, 0], None).percentile(50) is None


@pytest.mark.parametrize('number,name,key', [
    (50, 'p50', 'p50'), (50.0, 'p50', 'p50'), (99.9, 'p99.9', 'p99_9'),
    (99.99, 'p99.99', 'p99_99'), (0.00001, 'p1e-05', 'p1e-05'),
    # Every digit kept: '%g' made p100 of this one.
    (99.999999, 'p99.999999', 'p99_999999')])
def test_percentile_name(number, name, key):
    """The document's key and the label of a percentile: one spelling,
    a whole one without '.0'."""
    assert percentile_name(number) == name
    assert percentile_name(number, '_') == key

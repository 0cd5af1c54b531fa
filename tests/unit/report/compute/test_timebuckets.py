from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.measure import loghist
from ssbench.report.compute.timebuckets import TimeBuckets


def fill(seconds, max_buckets):
    buckets = TimeBuckets(2, max_buckets)
    for second, value in seconds:
        row = buckets.row(second)
        row.bytes[second % 2] += 1
        loghist.add_value(row.hists, second % 2, value)
    return buckets


def snapshot(buckets):
    rows = {}
    for index, row in buckets.rows.items():
        rows[index] = (row.bytes, [
            None if h is None else (h.off, h.counts.tolist())
            for h in row.hists])
    return buckets.width, buckets.lo, buckets.hi, rows


@pytest.mark.parametrize('seed', range(6))
def test_doubling_equals_bucketing_at_the_final_width(seed):
    rng = random.Random(seed)
    span = rng.choice([5, 40, 1000, 100000])
    seconds = [(rng.randrange(-span, span), rng.lognormvariate(-3, 1))
               for _ in range(300)]
    grown = fill(seconds, 7)
    assert grown.count() <= 7
    # The same width from the start: no doubling at all.
    direct = TimeBuckets(2, 10 ** 9)
    direct.width = grown.width
    for second, value in seconds:
        row = direct.row(second)
        row.bytes[second % 2] += 1
        loghist.add_value(row.hists, second % 2, value)
    assert snapshot(grown) == snapshot(direct)
    # And the width is the smallest power of two that fits.
    indexes = [s // (grown.width // 2) for s, _ in seconds]
    assert grown.width == 1 or max(indexes) - min(indexes) + 1 > 7
    # Whatever the order of the results.
    rng.shuffle(seconds)
    assert snapshot(fill(seconds, 7)) == snapshot(grown)


def test_percentiles_per_bucket():
    buckets = TimeBuckets(2, 10)
    for second, slot, value in ((3, 0, 0.5), (3, 1, 1.5), (5, 0, 2.0)):
        loghist.add_value(buckets.row(second).hists, slot, value)
    got = buckets.percentiles([0, 1], [0, 100])
    rep = lambda v: loghist.bin_value(loghist.bin_of(v))  # noqa: E731
    assert got == [[rep(0.5), rep(1.5)], [None, None], [rep(2.0)] * 2]
    assert buckets.percentiles([1], [50]) == [[rep(1.5)], [None], [None]]
    assert TimeBuckets(1).percentiles([0], [50]) == []

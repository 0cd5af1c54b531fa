from __future__ import absolute_import, division, print_function

import random

from ssbench.report.compute.throughput import summarize
from tests import analysis_naive as naive


def per_second(seconds):
    counts = {}
    for second in seconds:
        counts[second] = counts.get(second, 0) + 1
    return sorted(counts.items())


def test_partial_first_and_last_seconds_are_left_out():
    got = summarize([(10, 1), (11, 50), (12, 60), (13, 40), (14, 2)])
    assert got == {'seconds': 3, 'fastest': 60.0, 'p75': 60.0,
                   'median': 50.0, 'p25': 40.0, 'slowest': 40.0,
                   'iqr': 20.0}


def test_short_runs_keep_every_second():
    assert summarize([(10, 5), (11, 7)])['seconds'] == 2
    one = summarize([(10, 5)])
    assert (one['seconds'], one['median'], one['iqr']) == (1, 5.0, 0.0)
    assert summarize([]) is None


def test_empty_seconds_count_as_zero():
    got = summarize([(0, 9), (2, 10), (3, 10), (9, 9)])
    assert got['seconds'] == 8
    assert (got['slowest'], got['median'], got['fastest']) == (0.0, 0.0,
                                                               10.0)


def test_equals_naive():
    rng = random.Random(4)
    for _ in range(100):
        seconds = [rng.randrange(0, rng.randrange(1, 30))
                   for _ in range(rng.randrange(1, 80))]
        assert summarize(per_second(seconds)) == naive.throughput(seconds)

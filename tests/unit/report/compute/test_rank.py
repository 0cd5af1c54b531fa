from __future__ import absolute_import, division, print_function

import random

from ssbench.report.compute.rank import RunLengths
from tests import analysis_naive as naive


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


def test_empty():
    assert RunLengths([], None).percentile(50) is None
    assert RunLengths([0, 0], None).percentile(50) is None

"""runs_percentile(): the exact percentile of a union of sorted runs on
disk, against the tests' independent reference."""
from __future__ import absolute_import, division, print_function

import random
from array import array

import pytest

from ssbench.results import sortedruns
from tests import analysis_naive as naive

PCTILES = [0, 0.1, 1, 12.3, 33.3, 50, 95, 99, 99.9, 99.99, 99.999, 100]


def percentiles_of_runs(values, run_sizes, pctiles):
    store = sortedruns.RunStore()
    try:
        runs = []
        i = 0
        for size in run_sizes:
            runs.append(store.add(array('d', values[i:i + size])))
            i += size
        store.open()
        n, lo, hi, _, _ = sortedruns.moments(runs)
        return [sortedruns.runs_percentile(store, runs, n, lo, hi, p)
                for p in pctiles]
    finally:
        store.close()


@pytest.mark.parametrize('seed', range(6))
def test_runs_equal_the_reference(monkeypatch, seed):
    monkeypatch.setattr(sortedruns, 'BLOCK', 4)
    monkeypatch.setattr(sortedruns, 'BLOCK_CACHE', 5)
    rng = random.Random(seed)
    n = rng.choice([1, 2, 7, 1000, 1001, 3000])
    # Few distinct values: ties across runs.
    values = [float(rng.randrange(50)) for _ in range(n)]
    sizes = []
    left = n
    while left:
        sizes.append(min(left, rng.randrange(1, 400)))
        left -= sizes[-1]
    got = percentiles_of_runs(values, sizes, PCTILES)
    assert got == [naive.percentile(values, p) for p in PCTILES]


@pytest.mark.parametrize('n, pctile', [(41000, 99.9), (3000, 33.3)])
def test_whole_ranks_that_floats_miss(n, pctile):
    rank = n * pctile / 100
    assert rank != int(rank)
    values = [float(i) for i in range(n)]
    random.Random(n).shuffle(values)
    got = percentiles_of_runs(values, [n // 3, n // 3, n - 2 * (n // 3)],
                              [pctile])
    assert got == [naive.percentile(values, pctile)]
    assert got == [int(round(rank)) - 0.5]

"""Reports of stats files written by ssbench 0.3.9, byte for byte.

tests/data/golden holds, for a real Swift run and a --noop run, the stats
file and the original's text report, --pctile 50 report, --csv report and
-r rps histogram.
"""
from __future__ import absolute_import, division, print_function

import io
import os

import pytest

from ssbench.report.render import classic
from ssbench.report.compute import classicstats
from ssbench.compat import PY2
from tests import paths

GOLDEN = paths.GOLDEN
RUNS = ('swift_u8_o2000_c10', 'noop_u4_w1_b1.run1')

_cache = {}


def run_stats(run, pctile):
    key = (run, pctile)
    if key not in _cache:
        _cache[key] = classicstats.compute(
            os.path.join(GOLDEN, run + '.stat.gz'), pctile)
    return _cache[key]


def render(func, run_stats_):
    out = io.BytesIO() if PY2 else io.StringIO()
    func(run_stats_, out)
    value = out.getvalue()
    return value if PY2 else value.encode('utf-8')


def expected(run, suffix):
    with io.open(os.path.join(GOLDEN, '%s.%s' % (run, suffix)), 'rb') as fp:
        return fp.read()


@pytest.mark.parametrize('run', RUNS)
@pytest.mark.parametrize('suffix, func, pctile', [
    ('report.txt', classic.render_text, 95),
    ('report.pctile50.txt', classic.render_text, 50),
    ('report.csv', classic.render_csv, 95),
    ('rps_histogram.csv', classic.render_rps_histogram, 95),
])
def test_golden_output(run, suffix, func, pctile):
    got = render(func, run_stats(run, pctile))
    want = expected(run, suffix)
    if got != want:  # a readable diff beats two 9 kB blobs
        got_lines = got.decode('utf-8').replace(',', ',\n').splitlines()
        want_lines = want.decode('utf-8').replace(',', ',\n').splitlines()
        assert got_lines == want_lines
    assert got == want


def test_golden_stats_values():
    # Spot checks of the numbers behind the text, straight from RunStats.
    rs = run_stats('swift_u8_o2000_c10', 95)
    assert rs.worker_count == 2
    assert rs.concurrency == 8
    assert rs.duration == pytest.approx(13.033514022827148, abs=0)
    assert [g.label for g in rs.groups] == [
        'TOTAL', 'CREATE', 'READ', 'UPDATE', 'DELETE']
    delete = rs.groups[-1]
    # No DELETE of a 'small' object happened, so it has no row.
    assert [s.size_name for s in delete.series] == [None, 'zero', 'tiny']
    assert sum(rs.rps_counts) == 2000

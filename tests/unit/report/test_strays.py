"""A stats file with results far outside the run (a worker whose clock
says 1970, one a year ahead, one result 100,000 s after a run of minutes)
reports as the same file without them, with
one warning: every output, in bounded memory (see
ssbench.results.timewindow)."""
from __future__ import absolute_import, division, print_function

import io
import os

import pytest

from ssbench.report.compute import analyze, classicnotes
from ssbench.report.render import classic
from ssbench.results.statsreader import open_stats
from ssbench.wire import protocol
from tests.unit.report.test_golden import GOLDEN, expected, render

RUN = 'swift_u8_o2000_c10'
YEAR = 365 * 86400


@pytest.fixture(scope='module')
def with_strays(tmpdir_factory):
    """The golden run's stats file plus four strays."""
    source = open_stats(os.path.join(GOLDEN, RUN + '.stat.gz'))
    batches = list(source.iter_batches())
    last = batches[-1][-1]
    strays = [dict(last, completed_at=5.0),
              dict(last, completed_at=last['completed_at'] + YEAR),
              # Within a day and a half, but far from a run of minutes.
              dict(last, completed_at=last['completed_at'] + 100000),
              dict(last, completed_at=0.0, exception='Boom',
                   last_byte_latency=None, first_byte_latency=None)]
    path = str(tmpdir_factory.mktemp('strays').join('strays.stat'))
    with io.open(path, 'wb') as fp:
        fp.write(protocol.pack(source.header))
        for i, batch in enumerate(batches):
            fp.write(protocol.pack(batch))
            if i in (3, 200, 500, 1000):
                fp.write(protocol.pack([strays.pop()]))
    return path


def warnings_of(caplog):
    return [r.getMessage() for r in caplog.records
            if 'far outside' in r.getMessage()]


@pytest.mark.parametrize('suffix, func, pctile', [
    ('report.txt', classic.render_text, 95),
    ('report.csv', classic.render_csv, 95),
    ('rps_histogram.csv', classic.render_rps_histogram, 95),
])
@pytest.mark.parametrize('skip', [0, 5])
def test_the_classic_outputs_leave_the_strays_out(with_strays, caplog,
                                                  suffix, func, pctile,
                                                  skip):
    got = classicnotes.compute(open_stats(with_strays), pctile, skip)
    if skip:
        want = classicnotes.compute(
            os.path.join(GOLDEN, RUN + '.stat.gz'), pctile, skip)
        got.notes = want.notes = []
        assert render(func, got) == render(func, want)
    else:
        assert render(func, got) == expected(RUN, suffix)
    assert warnings_of(caplog) == [
        "%s: left out 4 results completed far outside the run (before "
        "2026-11-22 02:02:24 or after 2026-11-22 04:47:12 UTC: a worker's "
        "clock?)" % (with_strays,)]


def test_the_analysis_leaves_the_strays_out(with_strays, caplog):
    stats_file = open_stats(with_strays)
    got = analyze.analyze(stats_file)
    want = analyze.analyze(os.path.join(GOLDEN, RUN + '.stat.gz'))
    assert got.pop('stats_file') == with_strays
    want.pop('stats_file')
    assert got == want
    # The text report of the same open file: one warning in all.
    classicnotes.compute(stats_file)
    assert len(warnings_of(caplog)) == 1


def test_a_stray_does_not_stretch_a_run_of_ninety_results(tmp_path):
    from ssbench.results.statswriter import StatsWriter
    from tests.analysis_naive import HEADER, res
    results = [res(at=1795317000.5 + i * 0.04) for i in range(90)]
    writer = StatsWriter(str(tmp_path / 'small.stat'), HEADER)
    writer.write_batch(results + [res(at=1795317000.5 + 100000)])
    doc = analyze.analyze(open_stats(writer.finalize()))
    assert doc['run']['duration'] < 5
    assert doc['operations'][0]['count'] == 90

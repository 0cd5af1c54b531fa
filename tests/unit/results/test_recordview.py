"""ssbench.results.recordview and ssbench.report.compute.classicnotes: the
warm-up left out of the text report exactly as analyze(skip=...) leaves it out,
control records dropped, and the header line that says so."""
from __future__ import absolute_import, division, print_function

import io
import os

import pytest

from ssbench.report.render import classic
from ssbench.report.compute import classicnotes
from ssbench.report.compute.analyze import analyze
from ssbench.compat import PY2
from ssbench.results.recordview import (RecordView, first_request_start,
                                        stored_warmup)
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter

from tests.unit.report.compute.test_classicstats import (HEADER, FakeStatsFile,
                                                         err, res)
from tests import paths

GOLDEN = paths.GOLDEN
HEALTH = {'kind': 'worker_health', 'worker_id': 1, 'cpu': 0.5}


def text(run_stats):
    out = io.BytesIO() if PY2 else io.StringIO()
    classic.render_text(run_stats, out)
    value = out.getvalue()
    return value.decode('utf-8') if PY2 else value


def results():
    # First request start: 100.0 (completed 100.5 after 0.5 s).
    return [res(at=100.5, last=0.5), res(at=101.0, last=0.1),
            err(at=101.5), res(at=102.0, last=0.9), res(at=103.5, last=0.2),
            res(at=104.0, last=0.1, worker=1)]


def test_first_request_start():
    assert first_request_start([results()]) == 100.0
    assert first_request_start([[err(at=99.0)], results()]) == 99.0
    assert first_request_start([[HEALTH]]) is None


def test_without_skip_control_batches_go_and_results_stay():
    batches = [results()[:3], [HEALTH, dict(HEALTH, worker_id=2)],
               results()[3:]]
    view = RecordView(FakeStatsFile(batches))
    assert list(view.iter_batches()) == [results()[:3], results()[3:]]
    assert view.skipped == 0


@pytest.mark.parametrize('skip, kept', [(0.5, 6), (1.1, 4), (2.0, 3),
                                        (3.6, 1), (10, 0)])
def test_skip_leaves_out_what_completed_before_start_plus_skip(skip, kept):
    view = RecordView(FakeStatsFile([results()[:2], [HEALTH],
                                     results()[2:]]), skip)
    out = [r for batch in view.iter_batches() for r in batch]
    assert out == [r for r in results() if r['completed_at'] >= 100 + skip]
    assert len(out) == kept and view.skipped == 6 - kept
    # Read again: the same view, the same answer.
    assert [r for b in view.iter_batches() for r in b] == out


def test_text_report_is_unchanged_without_skip():
    stats = FakeStatsFile([results()], HEADER)
    plain = text(classicnotes.compute(stats))
    from ssbench.report.compute.classicstats import compute
    assert plain == text(compute(stats))
    assert 'Warm-up' not in plain


def test_text_report_says_what_the_warmup_left_out():
    run_stats = classicnotes.compute(FakeStatsFile([results()], HEADER),
                                     skip=2)
    lines = text(run_stats).splitlines()
    assert lines[3] == ('Warm-up: the first 2 s of the run left out (3 '
                        'results)')
    assert lines[4].startswith('Object expiration')
    assert sum(g.count + g.errors for g in run_stats.groups[:1]) == 3


def write(tmpdir, batches):
    path = os.path.join(str(tmpdir), 'run.stat')
    writer = StatsWriter(path, HEADER)
    for batch in batches:
        writer.write_batch(batch)
    return writer.finalize()


@pytest.mark.parametrize('skip', [0, 1, 2.5, 3.9])
def test_counts_agree_with_analyze(tmpdir, skip):
    path = write(tmpdir, [results()[:2], [HEALTH], results()[2:]])
    doc = analyze(path, skip=skip)
    run_stats = classicnotes.compute(open_stats(path), skip=skip)
    by_key = dict((g.key, g) for g in run_stats.groups)
    for op in doc['operations']:
        group = by_key.get(op['operation'])
        count = group.count if group else 0
        errors = group.errors if group else 0
        assert (op['count'], op['errors']) == (count, errors)
    assert set(by_key) <= set(op['operation'] for op in doc['operations'])


def test_golden_file_through_the_view_is_byte_identical():
    path = os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz')
    with io.open(os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'),
                 encoding='utf-8') as fp:
        expected = fp.read()
    assert text(classicnotes.compute(path)) == expected


def test_report_scenario_skip_through_the_cli(tmpdir, capsys):
    from ssbench.cli import master as cli
    import json
    path = os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz')
    json_path = str(tmpdir.join('run.json'))
    status = cli.main(['report-scenario', '-s', path, '--skip', '3',
                       '--json', json_path])
    out, err = capsys.readouterr()
    assert status == 0, err
    line = out.splitlines()[3]
    assert line.startswith('Warm-up: the first 3 s of the run left out (')
    left_out = int(line.split('(')[1].split()[0])
    with io.open(json_path, encoding='utf-8') as fp:
        doc = json.load(fp)
    assert doc['run']['skip_seconds'] == 3
    total = doc['operations'][0]
    assert total['count'] + total['errors'] + left_out == 2000
    assert cli.main(['report-scenario', '-s', path, '--skip', '-1']) == 2
    assert '--skip' in capsys.readouterr()[1]


@pytest.mark.parametrize('header, seconds', [
    ({}, 0), ({'warmup': 2.5}, 2.5), ({'warmup': 10}, 10),
    ({'warmup': 0}, 0), ({'warmup': -3}, 0), ({'warmup': True}, 0),
    ({'warmup': '5'}, 0), ({'warmup': float('inf')}, 0),
    ({'warmup': float('nan')}, 0), ({'warmup': [1]}, 0)])
def test_stored_warmup_is_a_number_of_seconds_or_none(header, seconds):
    assert stored_warmup(header) == seconds


def rewrite_with_header(source, path, **changes):
    """A copy of stats file `source` at `path` with `changes` in its
    header."""
    stats_file = open_stats(source)
    header = dict(stats_file.header, **changes)
    writer = StatsWriter(path, header)
    for batch in stats_file.iter_batches():
        writer.write_batch(batch)
    writer.close()
    return path


def test_report_scenario_leaves_out_the_stored_warmup(tmpdir, capsys):
    from ssbench.cli import master as cli
    source = os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz')
    warm = rewrite_with_header(source, str(tmpdir.join('warm.stat')),
                               warmup=3)
    assert cli.main(['report-scenario', '-s', warm]) == 0
    stored = capsys.readouterr()[0]
    assert stored.splitlines()[3].startswith(
        'Warm-up: the first 3 s of the run left out (')
    assert cli.main(['report-scenario', '-s', source, '--skip', '3']) == 0
    assert capsys.readouterr()[0] == stored
    # --skip wins, --skip 0 included: the whole run, as 0.3.9 shows it.
    assert cli.main(['report-scenario', '-s', warm, '--skip', '0']) == 0
    with io.open(os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'),
                 encoding='utf-8') as fp:
        assert capsys.readouterr()[0] == fp.read()


def test_compare_leaves_out_each_files_own_warmup(tmpdir, capsys):
    from ssbench.cli import master as cli
    import json
    source = os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz')
    warm = rewrite_with_header(source, str(tmpdir.join('warm.stat')),
                               warmup=3)
    docs = {}
    for name, args in [('both', ['-s', warm, '--compare', warm]),
                       ('base', ['-s', source, '--compare', warm]),
                       ('skip0', ['-s', warm, '--compare', warm,
                                  '--skip', '0'])]:
        path = str(tmpdir.join(name + '.json'))
        assert cli.main(['report-scenario', '--json', path] + args) == 0
        with io.open(path, encoding='utf-8') as fp:
            docs[name] = json.load(fp)
    capsys.readouterr()
    assert docs['both']['run']['skip_seconds'] == 3
    assert docs['base']['run']['skip_seconds'] == 0
    assert docs['skip0']['run']['skip_seconds'] == 0
    # The base file's own warm-up is left out of it, not this run's.
    assert cli.main(['report-scenario', '-s', source, '--compare',
                     warm]) == 0
    out = capsys.readouterr()[0]
    successes = [line.split() for line in out.splitlines()
                 if line.split()[:1] == ['successes']][0]
    warm_count = analyze(warm, skip=3)['operations'][0]['count']
    assert warm_count < 2000
    assert successes[1:3] == [str(warm_count), '2000']


def test_response_time_is_each_clocks_own_part():
    # The master sent it 0.3 s late (its clock), the worker had it for
    # 0.5 s of which 0.2 s service (its clock); the worker's wall clock
    # is 2 s ahead, which no figure may show.
    record = dict(res(at=1002.5, last=0.2), first_byte_latency=0.05,
                  intended_start=1000.0, send_lag=0.3, worker_time=0.5)
    view = RecordView(FakeStatsFile([[record]]), response=True)
    (got,), = list(view.iter_batches())
    assert got['last_byte_latency'] == pytest.approx(0.8)
    assert got['first_byte_latency'] == pytest.approx(0.65)


@pytest.mark.parametrize('more', [{}, {'send_lag': 0.3},
                                  {'send_lag': True, 'worker_time': 0.5},
                                  {'send_lag': 0.3, 'worker_time': 'x'}])
def test_response_time_without_both_parts_reads_the_wall_clocks(more):
    # An older file: completed_at less the latency less intended_start.
    record = dict(res(at=1001.0, last=0.2), intended_start=1000.0, **more)
    view = RecordView(FakeStatsFile([[record]]), response=True)
    (got,), = list(view.iter_batches())
    assert got['last_byte_latency'] == pytest.approx(1.0)


@pytest.mark.parametrize('more, want', [
    # The master's lag and the worker's time: 0.3 + 20.5 - 20.0 waited.
    ({'send_lag': 0.3, 'worker_time': 20.5}, 20.8),
    # Wall clocks only: 1021.0 - 20.0 - 1000.0 waited.
    ({}, 21.0)])
def test_a_failures_time_to_failure_becomes_a_response_time(more, want):
    record = dict(err(at=1021.0), intended_start=1000.0, time_to_failure=20.0,
                  **more)
    view = RecordView(FakeStatsFile([[record]]), response=True)
    (got,), = list(view.iter_batches())
    assert got['time_to_failure'] == pytest.approx(want)
    assert 'last_byte_latency' not in got


@pytest.mark.parametrize('spent', [None, -1.0, 'x', float('inf')])
def test_a_failure_without_a_time_stays_without_one(spent):
    record = dict(err(at=1021.0), intended_start=1000.0, send_lag=0.3,
                  worker_time=20.5)
    if spent is not None:
        record['time_to_failure'] = spent
    before = dict(record)
    view = RecordView(FakeStatsFile([[record]]), response=True)
    (got,), = list(view.iter_batches())
    assert got == before

"""No file the user named is destroyed: real ssbench-master runs (--noop,
local workers; no Swift needed) against planted files."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import os

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

GOOD = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')


def noop_run(*args):
    args = list(args) + support.zmq_args()
    return support.master('run-scenario', '-f', GOOD, '--noop', '-o', '40',
                          '--workers', '1', *args, timeout=120)


def read(path):
    with io.open(str(path), 'rb') as fp:
        return fp.read()


def error_line(ran):
    lines = [line for line in ran.err.splitlines()
             if line.startswith('ERROR:')]
    assert len(lines) == 1, ran
    assert 'Traceback' not in ran.err, ran
    return lines[0]


def test_a_scenario_given_as_stats_file_is_refused_and_kept(tmpdir):
    scenario = tmpdir.join('my.scenario')
    scenario.write_binary(read(GOOD))
    ran = noop_run('-s', str(scenario))
    assert ran.status == 2, ran
    assert 'not an ssbench stats file' in error_line(ran)
    assert read(scenario) == read(GOOD)
    assert sorted(os.listdir(str(tmpdir))) == ['my.scenario']


def test_force_lets_the_user_replace_a_regular_file(tmpdir):
    target = tmpdir.join('old.txt')
    target.write('scratch')
    ran = noop_run('-s', str(target), '--force')
    assert ran.status == 0, ran
    assert os.path.exists(str(target) + '.gz')
    assert not os.path.exists(str(target))


def test_a_gz_stats_path_is_written_exactly(tmpdir):
    path = str(tmpdir.join('x.stat.gz'))
    first = noop_run('-s', path)
    assert first.status == 0, first
    assert sorted(os.listdir(str(tmpdir))) == ['x.stat.gz']
    assert len(support.read_results(path)) == 40
    # A second run may replace its own earlier stats file.
    second = noop_run('-s', path, '-o', '30')
    assert second.status == 0, second
    assert sorted(os.listdir(str(tmpdir))) == ['x.stat.gz']
    assert len(support.read_results(path)) == 30
    assert 'Scenario run results saved to %s' % path in second.err


def test_a_device_is_never_touched():
    before = os.stat(os.devnull)
    ran = noop_run('-s', os.devnull)
    assert ran.status == 2, ran
    assert 'not a regular file' in error_line(ran)
    after = os.stat(os.devnull)
    assert (before.st_ino, before.st_rdev) == (after.st_ino, after.st_rdev)


def test_an_unusable_stats_path_fails_before_the_run(tmpdir):
    blocker = tmpdir.join('blocker')
    blocker.write('')
    ran = noop_run('-s', str(blocker) + '/sub/x.stat')
    assert ran.status == 2, ran
    assert 'blocker' in error_line(ran)
    assert 'Starting scenario run' not in ran.err
    assert 'Spawning local ssbench-worker' not in ran.err


def test_the_stats_path_is_logged_before_the_report(tmpdir):
    path = str(tmpdir.join('r.stat.gz'))
    ran = support.master('run-scenario', '-f', GOOD, '--noop', '-o', '20',
                         '--workers', '1', '-s', path,
                         *support.zmq_args(), timeout=120)
    assert ran.status == 0, ran
    err = ran.err
    assert err.index('Scenario run results saved to') < err.index(
        'Calculating statistics')
    # Worker logs go to a directory of this run, named in the log, and
    # gone after a run that went well (tests/e2e/test_run_tidiness.py
    # checks the one an interrupted run keeps is private).
    log_dir = err.split('logging to ')[1].split('/worker-0.log')[0]
    assert os.path.basename(log_dir).startswith('ssbench-workers-')
    assert not os.path.exists(log_dir)


def test_report_refuses_to_overwrite_its_stats_file(tmpdir):
    path = str(tmpdir.join('r.stat.gz'))
    assert noop_run('-s', path).status == 0
    before = read(path)
    for output in (['-f', path], ['-r', path], ['-f', './' + os.path.relpath(
            path)]):
        ran = support.master('report-scenario', '-s', path, *output,
                             timeout=60)
        assert ran.status == 2, ran
        assert 'is the stats file' in error_line(ran)
        assert read(path) == before


def test_a_failing_report_leaves_no_half_written_file(tmpdir):
    corrupt = tmpdir.join('corrupt.stat.gz')
    corrupt.write_binary(b'\x1f\x8b\x08junk')
    report = tmpdir.join('report.txt')
    report.write('last week\n')
    ran = support.master('report-scenario', '-s', str(corrupt), '-f',
                         str(report), '--force', timeout=60)
    assert ran.status == 1, ran
    assert report.read() == 'last week\n'
    assert sorted(os.listdir(str(tmpdir))) == ['corrupt.stat.gz',
                                               'report.txt']


def test_report_writes_through_a_rename(tmpdir):
    path = str(tmpdir.join('r.stat.gz'))
    assert noop_run('-s', path).status == 0
    report = tmpdir.join('report.txt')
    ran = support.master('report-scenario', '-s', path, '-f', str(report),
                         '-r', str(tmpdir.join('rps.csv')), timeout=60)
    assert ran.status == 0, ran
    assert 'Distribution of requests per worker-ID' in report.read()
    assert tmpdir.join('rps.csv').read().startswith(
        '"Seconds Since Start","Requests Completed"')
    with gzip.open(path) as fp:
        assert fp.read(1)

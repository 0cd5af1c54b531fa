"""One rule for every output path (issue 19), through real processes: a
real `run-scenario --noop` with a local worker, `report-scenario` on its
stats file, and a hand-started ssbench-worker.  Every file that must
survive is compared byte for byte afterwards."""
from __future__ import absolute_import, division, print_function

import io
import json
import os

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

GOOD = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')


def read(path):
    with io.open(str(path), 'rb') as fp:
        return fp.read()


def noop_run(scenario, *args):
    return support.master('run-scenario', '-f', str(scenario), '--noop',
                          '-o', '40', '--workers', '1',
                          *(list(args) + support.zmq_args()), timeout=120)


def refused(ran, fragment):
    """`ran` stopped with exit 2 and one ERROR line holding `fragment`,
    before any run started."""
    assert ran.status == 2, ran
    lines = [line for line in ran.err.splitlines()
             if line.startswith('ERROR:')]
    assert len(lines) == 1 and fragment in lines[0], ran
    assert 'Traceback' not in ran.err
    assert 'Spawning local ssbench-worker' not in ran.err
    assert ran.out == ''


@pytest.fixture
def scenario(tmpdir):
    path = tmpdir.join('same.scenario')
    path.write_binary(read(GOOD))
    return path


@pytest.fixture(scope='module')
def stats(tmpdir_factory):
    """A stats file of a real noop run."""
    path = tmpdir_factory.mktemp('stats').join('run.stat.gz')
    ran = noop_run(GOOD, '-s', str(path), '-R')
    assert ran.status == 0, ran
    return str(path)


def test_run_outputs_never_replace_the_scenario(tmpdir, scenario):
    before = read(scenario)
    for flags in (['--json', str(scenario)], ['--html', str(scenario)],
                  ['-s', str(scenario), '--force'],
                  ['--json', './' + os.path.relpath(str(scenario))]):
        ran = noop_run(scenario, *flags)
        refused(ran, 'is the scenario file')
        assert read(scenario) == before
    assert tmpdir.listdir() == [scenario]


def test_an_existing_output_or_a_link_to_one_needs_force(tmpdir, stats):
    precious = tmpdir.join('precious.txt')
    precious.write_binary(b'precious\n')
    link = tmpdir.join('link.json')
    link.mksymlinkto(precious)
    for flag in ('-f', '-r', '--json', '--html'):
        for path in (precious, link):
            ran = support.master('report-scenario', '-s', stats, flag,
                                 str(path), timeout=60)
            refused(ran, '%s: exists' % path)
            assert read(precious) == b'precious\n'
    ran = noop_run(GOOD, '-s', str(tmpdir.join('r.stat.gz')), '--json',
                   str(link))
    refused(ran, 'link.json: exists (a symbolic link to %s)' % precious)
    assert read(precious) == b'precious\n'
    # --force replaces the file the link names, through a rename; the
    # link stays.
    ran = support.master('report-scenario', '-s', stats, '--json',
                         str(link), '--force', timeout=60)
    assert ran.status == 0, ran
    assert link.islink()
    assert json.loads(read(precious).decode('utf-8'))['format_version'] == 1
    assert sorted(p.basename for p in tmpdir.listdir()) == [
        'link.json', 'precious.txt']


def test_dash_is_standard_output_for_html_too(tmpdir, stats):
    report = tmpdir.join('report.txt')
    ran = support.master('report-scenario', '-s', stats, '--html', '-',
                         '-f', str(report), timeout=60)
    if ran.status == 2 and 'ssbench[html]' in ran.err:
        pytest.skip('needs ssbench[html] (plotly)')
    assert ran.status == 0, ran
    assert ran.out.startswith('<!DOCTYPE html>')
    assert 'Distribution of requests per worker-ID' in report.read()
    # Before, a file named '-' appeared where the command ran.
    assert not os.path.exists(os.path.join(support.ROOT, '-'))


def test_a_failing_output_is_named_before_any_report(tmpdir):
    path = str(tmpdir.join('run.stat.gz'))
    ran = noop_run(GOOD, '-s', path, '--json', '/dev/full')
    assert ran.status == 1, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert errors == ['ERROR:cannot write JSON file /dev/full: No space '
                      'left on device'], ran
    # The results are kept and said where; no report was printed.
    assert 'Scenario run results saved to %s' % path in ran.err
    assert len(support.read_results(path)) == 40
    assert ran.out == ''


def test_the_run_profile_is_replaced_only_with_force(tmpdir):
    path = str(tmpdir.join('p.stat.gz'))
    prof = tmpdir.join('p.stat.prof')
    prof.write_binary(b'old profile')
    refused(noop_run(GOOD, '-s', path, '--profile'),
            'profile %s: exists' % prof)
    assert read(prof) == b'old profile'
    ran = noop_run(GOOD, '-s', path, '--profile', '--force')
    assert ran.status == 0, ran
    import pstats
    assert pstats.Stats(str(prof)).total_calls > 0
    assert sorted(p.basename for p in tmpdir.listdir()) == [
        'p.stat.gz', 'p.stat.prof']


def test_a_worker_profile_goes_through_a_rename_with_force(tmpdir):
    prof = tmpdir.join('worker.prof')
    prof.write_binary(b'old profile')
    zmq = support.zmq_args()
    work_port, results_port = [int(zmq[zmq.index(flag) + 1]) for flag in (
        '--zmq-work-port', '--zmq-results-port')]
    log_path = str(tmpdir.join('worker.log'))
    refusing = support.start_worker(
        1, work_port, results_port, log_path,
        extra=['-p', '5', '--profile-file', str(prof)])
    assert support.wait_exit(refusing, 60) == 2
    assert '%s: exists; choose another path or give --force' % prof in \
        support.read_text(log_path)
    assert read(prof) == b'old profile'
    worker = support.start_worker(
        1, work_port, results_port, log_path,
        extra=['-p', '5', '--profile-file', str(prof), '--force'])
    try:
        ran = support.master('run-scenario', '-f', GOOD, '--noop', '-o',
                             '40', '-s', str(tmpdir.join('w.stat.gz')),
                             *zmq, timeout=120)
        assert ran.status == 0, ran
    finally:
        assert support.stop_process(worker) == 0
    import pstats
    assert pstats.Stats(str(prof)).total_calls > 0
    assert 'jobs written to %s\n' % prof in support.read_text(log_path)
    assert sorted(p.basename for p in tmpdir.listdir()) == [
        'w.stat.gz', 'worker.log', 'worker.prof']

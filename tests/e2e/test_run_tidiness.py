"""What an operator meets around a run (issue 48): the clean-up says what
it deletes, the local workers' log folder is gone after a run that went
well and kept (and named) after one that did not, or kept beside the
stats file on request, and the help names run-suite and shows percent
defaults as percentages."""
from __future__ import absolute_import, division, print_function

import os
import re
import signal
import subprocess
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

BOUND = 120
NOOP_SCENARIO = os.path.join(support.ROOT, 'scenarios',
                             'very_small.scenario')


def log_dirs(err):
    """The worker log folders the Spawning lines named."""
    return set(os.path.dirname(path) for path in
               re.findall(r'logging to (\S+)\)', err))


def test_a_good_run_says_what_it_deletes_and_leaves_no_log_folder(tmpdir):
    support.require_swift()
    path, data = support.write_scenario(tmpdir, operation_count=60,
                                        crud_profile=[60, 40, 0, 0])
    stats = str(tmpdir.join('run.stat'))
    try:
        ran = support.master('run-scenario', '-f', path, '-s', stats,
                             '--workers', '2', '-R', '--progress', 'none',
                             *support.auth_args(), timeout=BOUND * 2)
    finally:
        support.SwiftView().delete_everything(data['container_base'] + '_')
    assert ran.status == 0, ran
    deleting = re.findall(r'INFO:Deleting the (\d+) objects the benchmark '
                          r'created \(the initial objects stay for the next '
                          r'run\)', ran.err)
    assert len(deleting) == 1 and int(deleting[0]) > 0, ran.err
    assert 'population' not in ran.err
    folders = log_dirs(ran.err)
    assert len(folders) == 1, ran.err
    assert not os.path.exists(folders.pop())
    assert "workers' logs" not in ran.err


def test_an_interrupted_run_keeps_its_log_folder_and_says_where(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    err_path = str(tmpdir.join('err'))
    with open(err_path, 'wb') as err:
        master = subprocess.Popen(
            [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
             '-f', NOOP_SCENARIO, '--noop', '--workers', '2', '-R',
             '-o', '100000000', '-s', stats, '--progress', 'none'],
            stdout=err, stderr=err, cwd=support.ROOT,
            preexec_fn=support.die_with_parent)
    try:
        support.wait_for_a_result(stats, master, BOUND)
        master.send_signal(signal.SIGINT)
        status = support.wait_exit(master, BOUND)
    finally:
        support.stop_process(master)
    err = support.read_text(err_path)
    assert status == 130, err
    folder, = log_dirs(err)
    try:
        kept = re.findall(r"WARNING:The local workers' logs are in (\S+)",
                          err)
        assert kept == [folder], err
        # Private: nothing planted in /tmp can redirect a log.
        assert os.path.basename(folder).startswith('ssbench-workers-')
        assert os.stat(folder).st_mode & 0o777 == 0o700
        assert sorted(os.listdir(folder)) == ['worker-0.log', 'worker-1.log']
    finally:
        import shutil
        shutil.rmtree(folder, ignore_errors=True)


def test_keep_worker_logs_keeps_them_beside_the_stats_file(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    beside = stats + '.worker-logs'
    os.mkdir(beside)
    with open(os.path.join(beside, 'worker-7.log'), 'w') as old:
        old.write('an earlier run')
    ran = support.master('run-scenario', '-f', NOOP_SCENARIO, '--noop',
                         '--workers', '2', '-o', '200', '-R', '-s', stats,
                         '--keep-worker-logs', '--progress', 'none',
                         timeout=BOUND)
    assert ran.status == 0, ran
    assert log_dirs(ran.err) == set([beside])
    assert "INFO:The local workers' logs are in %s" % beside in ran.err
    assert sorted(os.listdir(beside)) == ['worker-0.log', 'worker-1.log']


def test_the_help_names_run_suite_and_shows_percentages():
    usage = support.master('-h', timeout=BOUND)
    assert usage.status == 0, usage
    assert '{report-scenario,kill-workers,run-scenario,run-suite,' \
        'cleanup-containers}' in usage.out
    suite = support.master('run-suite', '-h', timeout=BOUND)
    assert suite.status == 0, suite
    text = ' '.join(suite.out.split())
    assert '(p99: twice as far) (default: 10%)' in text
    assert 'within PERCENT of each other (default: 5%)' in text
    assert 'default: 0.1)' not in text and 'default: 0.05)' not in text

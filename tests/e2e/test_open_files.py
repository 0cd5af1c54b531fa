"""A run whose concurrency cannot fit under the open-file limit is refused
up front: real ssbench-master and ssbench-worker processes started under
`prlimit --nofile` (util-linux), the master against the local Swift."""
from __future__ import absolute_import, division, print_function

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

PRLIMIT = '/usr/bin/prlimit'
LIMIT = 256


def under_limit(argv):
    if not os.path.exists(PRLIMIT):
        pytest.skip('needs prlimit (util-linux)')
    return [PRLIMIT, '--nofile=%d:%d' % (LIMIT, LIMIT)] + argv


def error_lines(ran):
    assert 'Traceback' not in ran.err, ran
    return [line for line in ran.err.splitlines() if 'ERROR' in line]


def test_a_master_whose_workers_cannot_fit_stops_before_any_request(tmpdir):
    support.require_swift()
    scenario, data = support.write_scenario(tmpdir, user_count=1000)
    stats = str(tmpdir.join('run.stat'))
    ran = support.run(under_limit(
        [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
         '-f', scenario, '-s', stats, '--workers', '1', '-r', '5'] +
        support.auth_args() + support.zmq_args()), 120)
    assert ran.status == 1, ran
    (line,) = error_lines(ran)
    assert '-u 1000 over 1 local worker(s) needs about' in line, ran
    assert 'the open-file limit is %d' % LIMIT in line
    assert 'ulimit -n' in line
    assert 'Starting benchmark run' not in ran.err
    # No stats file (nor anything else) written, no container made.
    assert sorted(os.listdir(str(tmpdir))) == [os.path.basename(scenario)]
    assert support.SwiftView().containers(data['container_base']) == []


def test_a_worker_whose_concurrency_cannot_fit_exits_at_once():
    ran = support.run(under_limit(
        support.python_module('ssbench.cli.worker') +
        ['--zmq-host', '127.0.0.1', '--zmq-work-port',
         str(support.free_port()), '--zmq-results-port',
         str(support.free_port()), '--concurrency', '1000', '3']), 60)
    assert ran.status == 1, ran
    (line,) = error_lines(ran)
    assert 'worker 3 --concurrency 1000 needs about' in line, ran
    assert 'the open-file limit is %d' % LIMIT in line
    assert 'ulimit -n' in line
    assert 'connecting' not in ran.err


def test_processes_check_the_limit_once_per_process(tmpdir):
    """The limit is per process: --processes 4 of a concurrency that
    fits one process each start (then stop on SIGTERM); one that does
    not fit is refused once, by the parent, before any child starts."""
    log_dir = str(tmpdir.join('logs'))
    ran = support.run(under_limit(
        support.python_module('ssbench.cli.worker') +
        ['--processes', '4', '--log-dir', log_dir, '--zmq-host',
         '127.0.0.1', '--zmq-work-port', str(support.free_port()),
         '--zmq-results-port', str(support.free_port()),
         '--concurrency', '1000', '3']), 60)
    assert ran.status == 1, ran
    (line,) = error_lines(ran)
    assert 'each of 4 worker processes with --concurrency 1000 needs ' \
        'about' in line, ran
    assert 'the open-file limit is %d' % LIMIT in line
    assert 'started workers' not in ran.err
    assert not os.path.exists(log_dir) or os.listdir(log_dir) == []

    log_path = str(tmpdir.join('parent.log'))
    with open(log_path, 'wb') as log:
        parent = subprocess.Popen(under_limit(
            support.python_module('ssbench.cli.worker') +
            ['--processes', '4', '--log-dir', log_dir, '--zmq-host',
             '127.0.0.1', '--zmq-work-port', str(support.free_port()),
             '--zmq-results-port', str(support.free_port()),
             '--concurrency', str(LIMIT - 100), '3']),
            stdout=log, stderr=subprocess.STDOUT, cwd=support.ROOT,
            close_fds=True, preexec_fn=support.die_with_parent)
    try:
        deadline = time.time() + 60
        while not all('connecting to' in support.read_text(os.path.join(
                log_dir, 'worker-%d.log' % worker_id))
                for worker_id in range(3, 7)):
            assert parent.poll() is None, support.read_text(log_path)
            assert time.time() < deadline, support.read_text(log_path)
            time.sleep(0.05)
        parent.send_signal(signal.SIGTERM)
        assert support.wait_exit(parent, 30) == 0, \
            support.read_text(log_path)
    finally:
        support.stop_process(parent)


def test_a_concurrency_that_fits_runs_under_the_same_limit(tmpdir):
    """The limit the check uses is the real one: a noop run that fits
    goes through under it."""
    stats = str(tmpdir.join('run.stat'))
    ran = support.run(under_limit(
        [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
         '-f', os.path.join(support.ROOT, 'scenarios',
                            'very_small.scenario'),
         '-s', stats, '--noop', '-u', '100', '-o', '200', '--workers', '1']
        + support.zmq_args()), 120)
    assert ran.status == 0, ran
    assert os.path.exists(stats + '.gz'), ran

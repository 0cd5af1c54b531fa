"""Ctrl-C and SIGTERM with real processes (issue 13): a terminal's signal
reaches the master and its local workers together (one process group);
the master stops at the first one in every phase, keeps every result and
stops its workers itself, which leave quietly; it notices at once when
its workers are gone; a hand-started worker leaves quietly too.

No test measures speed: where the master must not wait out a drain or a
worker timeout, those are set far beyond the bound the test gives the
whole process (it is killed then, and the test fails)."""
from __future__ import absolute_import, division, print_function

import json
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.e2e import support
from tests.waiting import wait_for_text

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

SCENARIO = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
# Far beyond the bound each run gets (BOUND): never waited out.
LONG = '600'
BOUND = 120


def own_group_with_default_sigint():
    """preexec_fn: a process group of its own, as a terminal's job gets,
    and SIGINT and SIGHUP at their defaults even if this test runs in the
    background or under nohup (which the master keeps ignoring)."""
    os.setpgrp()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    support.die_with_parent()


class Job(object):
    """A command running as a terminal job: own process group, output in
    files under `directory`."""

    def __init__(self, argv, directory):
        self.out_path = os.path.join(str(directory), 'out')
        self.err_path = os.path.join(str(directory), 'err')
        with open(self.out_path, 'wb') as out, \
                open(self.err_path, 'wb') as err:
            self.proc = subprocess.Popen(
                argv, stdout=out, stderr=err, cwd=support.ROOT,
                preexec_fn=own_group_with_default_sigint)

    @property
    def err(self):
        return support.read_text(self.err_path)

    def wait_for(self, text, timeout=BOUND):
        wait_for_text(self.err_path, text, timeout, self.proc)

    def signal_group(self, signum):
        os.killpg(self.proc.pid, signum)

    def finish(self, timeout=BOUND):
        """Exit status, once the process (and its group) is gone; kills
        the group if it overstays `timeout`."""
        status = support.wait_exit(self.proc, timeout)
        if status is None:
            try:
                os.killpg(self.proc.pid, signal.SIGKILL)
            except OSError:
                pass
            self.proc.wait()
        return status

    def children(self):
        path = '/proc/%d/task/%d/children' % (self.proc.pid, self.proc.pid)
        with open(path) as fp:
            return [int(pid) for pid in fp.read().split()]


def master_job(tmpdir, *args):
    argv = [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
            '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', '0',
            '--zmq-results-port', '0', '--drain-seconds', LONG,
            '--worker-timeout', LONG, '-R'] + list(args)
    return Job(argv, tmpdir)


def worker_logs(err):
    """The text of the local workers' logs named in the master's log."""
    marker = 'logging to '
    paths = [line.split(marker, 1)[1].split(')', 1)[0]
             for line in err.splitlines() if marker in line]
    assert paths, err
    return [support.read_text(path) for path in paths]


def assert_quiet(text):
    for bad in ('Traceback', 'KeyboardInterrupt', 'ERROR'):
        assert bad not in text, text


@pytest.mark.parametrize('signame', ['SIGINT', 'SIGTERM', 'SIGHUP',
                                     'SIGUSR2'])
def test_a_signal_to_the_group_mid_benchmark(tmpdir, signame):
    """A hangup (a closed terminal, a dropped SSH session) and SIGUSR2
    too (issue 50, defect 6): the stats file gzipped, status 130, and
    the local workers stopped by the master."""
    stats = str(tmpdir.join('run.stat'))
    job = master_job(tmpdir, '-f', SCENARIO, '--noop', '--workers', '2',
                     '-o', '100000000', '-s', stats)
    job.wait_for('Starting benchmark run')
    # Both workers are past their start (a slow one may still be
    # starting when the first results come): each must say it stopped.
    support.wait_for_results_of(stats, job.proc, [0, 1], BOUND)
    job.signal_group(getattr(signal, signame))
    assert job.finish() == 130, job.err
    err = job.err
    assert 'Traceback' not in err and 'ERROR' not in err, err
    assert 'already counted as lost' not in err, err
    assert 'Interrupted: the benchmark phase stopped early' in err, err
    assert support.read_results(stats + '.gz'), err
    for text in worker_logs(err):
        assert_quiet(text)
        # The terminal's SIGINT is the master's: its workers ignore it,
        # and the master stops them with SIGTERM once it has the results.
        assert 'received SIGTERM: stopping' in text, text
        assert 'exiting' in text, text


def test_the_master_notices_at_once_that_its_workers_died(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    job = master_job(tmpdir, '-f', SCENARIO, '--noop', '--workers', '2',
                     '-o', '100000000', '-s', stats)
    job.wait_for('Starting benchmark run')
    # Killed only once results came back: they must be kept.
    support.wait_for_a_result(stats, job.proc, BOUND)
    for pid in job.children():
        os.kill(pid, signal.SIGKILL)
    assert job.finish() == 1, job.err
    err = job.err
    assert 'ERROR:every local ssbench-worker exited (signal 9; logs in ' \
        in err, err
    assert 'Traceback' not in err, err
    # What came back before they died is kept.
    assert support.read_results(stats + '.gz'), err


def test_a_drain_ends_once_the_workers_are_gone(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    job = master_job(tmpdir, '-f', SCENARIO, '--noop', '--workers', '2',
                     '-u', '32', '-o', '100000000', '-s', stats)
    job.wait_for('Starting benchmark run')
    # Stopped before the first jobs went out, the run would have nothing
    # in flight to say: wait until jobs come and go (32 of them out).
    support.wait_for_a_result(stats, job.proc, BOUND)
    children = job.children()
    for pid in children:
        os.kill(pid, signal.SIGSTOP)     # they hold their jobs...
    # ...once the master took in the results already on their way, each
    # making room for a job it sent them: interrupted before that, it
    # could still receive an answer to every job out (it did once in CI).
    support.wait_until_no_result_comes(stats, job.proc)
    os.kill(job.proc.pid, signal.SIGINT)
    job.wait_for('Stopping: no more jobs are sent')
    for pid in children:
        os.kill(pid, signal.SIGKILL)     # ...and die without answering
    assert job.finish() == 130, job.err
    assert 'Traceback' not in job.err, job.err
    # The jobs they held are said to be left out of the results.
    assert re.search(r'WARNING:\d+ requests still in flight when the run '
                     r'stopped are not in the results \(out for ', job.err)


def test_interrupted_while_authenticating(tmpdir):
    # A listener that never accepts: the auth request gets no answer.
    import socket
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    listener.listen(5)
    try:
        job = master_job(tmpdir, '-f', SCENARIO, '-A', 'http://127.0.0.1:%d'
                         '/auth/v1.0' % listener.getsockname()[1], '-U',
                         'a:b', '-K', 'k', '--connect-timeout', LONG,
                         '--network-timeout', LONG, '-s',
                         str(tmpdir.join('run.stat')))
        job.wait_for('SwiftStack Benchmark')
        time.sleep(1)
        job.signal_group(signal.SIGINT)
        assert job.finish() == 130, job.err
    finally:
        listener.close()
    assert job.err.splitlines()[-1] == 'ERROR:interrupted', job.err
    assert 'KeyboardInterrupt' not in job.err, job.err


def test_interrupted_while_waiting_for_workers(tmpdir):
    job = master_job(tmpdir, '-f', SCENARIO, '--noop', '--worker-wait',
                     LONG, '-s', str(tmpdir.join('run.stat')))
    job.wait_for('SwiftStack Benchmark')
    time.sleep(0.5)
    job.signal_group(signal.SIGINT)
    assert job.finish() == 130, job.err
    assert 'ERROR:interrupted while waiting for workers' in job.err
    assert 'Traceback' not in job.err
    assert not os.path.exists(str(tmpdir.join('run.stat.gz')))


def test_interrupted_while_loading_a_large_noop_population(tmpdir):
    path = str(tmpdir.join('big.scenario'))
    with open(SCENARIO) as fp:
        data = json.load(fp)
    data['initial_files'] = {'zero': 5000000, 'tiny': 5000000}
    with open(path, 'w') as fp:
        json.dump(data, fp)
    job = master_job(tmpdir, '-f', path, '--noop', '--workers', '1', '-s',
                     str(tmpdir.join('run.stat')))
    job.wait_for('Starting scenario run')
    job.signal_group(signal.SIGINT)
    assert job.finish() == 130, job.err
    assert 'ERROR:interrupted while loading the initial objects: no ' \
        'benchmark was run' in job.err, job.err
    for text in worker_logs(job.err):
        assert_quiet(text)


def test_interrupted_while_creating_a_million_containers(tmpdir):
    support.require_swift()
    path, data = support.write_scenario(tmpdir)
    job = master_job(tmpdir, '-f', path, '--workers', '1', '-c', '1000000',
                     '-s', str(tmpdir.join('run.stat')),
                     *support.auth_args())
    try:
        job.wait_for('Ensuring 1000000 containers')
        time.sleep(1)
        job.signal_group(signal.SIGINT)
        assert job.finish() == 130, job.err
        assert 'ERROR:interrupted while creating containers: no benchmark ' \
            'was run' in job.err, job.err
        assert 'Traceback' not in job.err
    finally:
        support.SwiftView().delete_everything(data['container_base'])


@pytest.mark.parametrize('signame, status', [('SIGINT', 130),
                                             ('SIGTERM', 0)])
def test_a_hand_started_worker_leaves_quietly(tmpdir, signame, status):
    job = Job([sys.executable, '-m', 'ssbench.cli.worker', '--zmq-host',
               '127.0.0.1', '--zmq-work-port', str(support.free_port()),
               '--zmq-results-port', str(support.free_port()), '7'], tmpdir)
    job.wait_for('connecting to')
    job.signal_group(getattr(signal, signame))
    assert job.finish() == status, job.err
    assert_quiet(job.err)
    assert 'worker 7 received %s: stopping' % signame in job.err
    assert job.err.rstrip().endswith('worker 7 exiting'), job.err


def test_a_terminal_that_hangs_up_mid_benchmark(tmpdir):
    """Issue 50 (6): the master runs on a terminal (a pty) that goes
    away, as a dropped SSH session's does.  The kernel sends SIGHUP, and
    every later write to the terminal fails: the run stops as on Ctrl-C,
    its stats file gzipped and its local workers stopped, status 130."""
    import pty
    import select
    stats = str(tmpdir.join('run.stat'))
    argv = [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
            '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', '0',
            '--zmq-results-port', '0', '--worker-timeout', LONG, '-f',
            SCENARIO, '--noop', '--workers', '2', '-o', '100000000', '-s',
            stats]
    pid, terminal = pty.fork()
    if pid == 0:    # the child: a session of its own, the pty its terminal
        try:
            # As a login shell's job: a hangup not ignored (nohup).
            signal.signal(signal.SIGHUP, signal.SIG_DFL)
            os.chdir(support.ROOT)
            os.execv(sys.executable, argv)
        finally:
            os._exit(127)
    said = b''

    def both_started():
        # A result of each worker: each is past its start, its SIGTERM
        # handler installed.  One still starting when the master stops it
        # dies of the SIGTERM before it logs a line, its log empty (a busy
        # machine's CI saw it).
        return support.workers_with_results(stats) >= set([0, 1])
    try:
        deadline = time.time() + BOUND
        while time.time() < deadline and not both_started():
            if select.select([terminal], [], [], 0.1)[0]:
                said += os.read(terminal, 65536)
        assert both_started(), said
    finally:
        os.close(terminal)          # hang up
    found = {}

    def reaped():
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            found['status'] = status
        return done == pid
    try:
        support.wait_for(reaped, BOUND, 'the master exiting', interval=0.05)
    finally:
        if not found:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
    status = found['status']
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 130, status
    assert support.read_results(stats + '.gz')
    logs = [support.read_text(path.split(b')', 1)[0].decode())
            for path in said.split(b'logging to ')[1:]]
    assert len(logs) == 2, said
    for text in logs:
        assert_quiet(text)
        assert 'received SIGTERM: stopping' in text, text

"""The local workers of `run-scenario --workers N` (issue 50): they die
with their master however it ends, `kill -9` included; a worker left
behind by an earlier master is refused by the next one on the same
ports; and no credential variable the master reads reaches a local
worker's environment.  --noop runs: no Swift needed."""
from __future__ import absolute_import, division, print_function

import os
import signal
import subprocess
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

SCENARIO = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
BOUND = 120
# Seconds a killed master's workers may take to go: well below the 30 s
# after which a local worker that hears no master exits anyway.
DEATH_BOUND = 15


def start_master(tmpdir, args, env=None):
    """`ssbench-master run-scenario ARGS` in the background, its output
    in files under `tmpdir`."""
    with open(str(tmpdir.join('out')), 'wb') as out, \
            open(str(tmpdir.join('err')), 'wb') as err:
        return subprocess.Popen(
            [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
             '-f', SCENARIO, '--noop'] + list(args),
            stdout=out, stderr=err, cwd=support.ROOT,
            env=dict(os.environ, **(env or {})),
            preexec_fn=support.die_with_parent)


def children(pid):
    with open('/proc/%d/task/%d/children' % (pid, pid)) as fp:
        return [int(child) for child in fp.read().split()]


def gone(pid):
    """True once `pid` exited (a zombie nobody reaped yet counts)."""
    try:
        with open('/proc/%d/status' % pid) as status:
            return any(line.split()[:2] == ['State:', 'Z']
                       for line in status)
    except (IOError, OSError):
        return True


def test_local_workers_die_with_a_master_killed_with_sigkill(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    master = start_master(tmpdir, ['--workers', '2', '-o', '100000000',
                                   '-s', stats] + support.zmq_args())
    try:
        support.wait_for_results_of(stats, master, [0, 1], BOUND)
        workers = children(master.pid)
        assert len(workers) == 2
        master.kill()
        master.wait()
        support.wait_for(lambda: all(gone(pid) for pid in workers),
                         DEATH_BOUND, 'the local workers exiting')
    finally:
        support.stop_process(master)
    for path in tmpdir.join('err').read().split('logging to ')[1:]:
        log = support.read_text(path.split(')', 1)[0])
        assert 'received SIGTERM: stopping' in log, log


def test_a_worker_left_behind_by_an_earlier_master_is_refused(tmpdir):
    """A local worker 0 of an earlier run, still connecting to the same
    ports, would hold id 0 and the new master's own worker 0 would be
    refused: now the leftover is refused, told why, and exits."""
    zmq = support.zmq_args()
    work_port, results_port = [int(zmq[zmq.index(flag) + 1]) for flag in (
        '--zmq-work-port', '--zmq-results-port')]
    leftover_log = str(tmpdir.join('leftover.log'))
    leftover = support.start_worker(
        0, work_port, results_port, leftover_log,
        env={'SSBENCH_LOCAL_RUN': '0123456789abcdef' * 2})
    stats = str(tmpdir.join('run.stat'))
    try:
        master = start_master(tmpdir, ['--workers', '1', '-o', '300', '-s',
                                       stats] + zmq)
        try:
            status = support.wait_exit(master, BOUND)
        finally:
            support.stop_process(master)
        leftover_status = support.wait_exit(leftover, BOUND)
    finally:
        support.stop_process(leftover)
    err = tmpdir.join('err').read()
    assert status == 0, err
    assert "worker 0 (%s) refused: it is a local worker (--workers) of " \
        "another master's run, left behind when that master ended" % (
            os.uname()[1],) in err, err
    assert leftover_status == 1
    assert 'refused by the master' in support.read_text(leftover_log)
    results = support.read_results(stats + '.gz')
    assert len(results) == 300 and all('exception' not in r
                                       for r in results)


def test_no_credential_variable_reaches_a_local_worker(tmpdir):
    """Issue 50 (7): the S3 secret was left in; now every variable the
    auth and S3 options read is left out, by one list each."""
    from ssbench.cli import authopts, s3opts
    secret = 'not-for-workers-%d' % os.getpid()
    env = dict((name, secret) for name in
               authopts.ENV_NAMES + s3opts.ENV_NAMES)
    assert 'AWS_SECRET_ACCESS_KEY' in env and 'ST_KEY' in env and \
        'AWS_SESSION_TOKEN' in env
    stats = str(tmpdir.join('run.stat'))
    master = start_master(tmpdir, ['--workers', '1', '-o', '100000000',
                                   '-s', stats] + support.zmq_args(),
                          env=env)
    try:
        support.wait_for_a_result(stats, master, BOUND)
        (worker,) = children(master.pid)
        with open('/proc/%d/environ' % worker, 'rb') as fp:
            environ = fp.read()
        master.send_signal(signal.SIGTERM)
        assert support.wait_exit(master, BOUND) == 130
    finally:
        support.stop_process(master)
    names = set(entry.split(b'=', 1)[0] for entry in environ.split(b'\0'))
    assert not names & set(name.encode() for name in env)
    assert secret.encode() not in environ
    assert b'SSBENCH_LOCAL_RUN' in names

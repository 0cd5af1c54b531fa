from __future__ import absolute_import, division, print_function

import os
import shutil

import pytest

from ssbench.master.localworkers import LOCAL_RUN_ENV, LocalWorkers
from tests.waiting import wait_for_text


def environ_of(pid):
    with open('/proc/%d/environ' % pid, 'rb') as fp:
        return dict(entry.decode('utf-8').split('=', 1)
                    for entry in fp.read().split(b'\0') if entry)


@pytest.mark.skipif(not os.path.isdir('/proc/self'), reason='no /proc')
def test_a_real_worker_has_its_token_and_none_of_the_dropped(tmpdir,
                                                             monkeypatch):
    monkeypatch.setenv('AWS_SECRET_ACCESS_KEY', 'sekrit')
    workers = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1, log_dir=str(tmpdir),
                           drop_env=['AWS_SECRET_ACCESS_KEY'])
    with workers:
        env = environ_of(workers.procs[0].pid)
    assert 'AWS_SECRET_ACCESS_KEY' not in env
    assert env[LOCAL_RUN_ENV] == workers.token


def test_start_and_stop_real_processes(tmpdir):
    workers = LocalWorkers(2, '127.0.0.1', 1, 2, 1, 1, log_dir=str(tmpdir))
    # A worker pointed at closed ports keeps retrying; stop must reap it.
    with workers:
        assert len(workers.alive()) == 2
        pids = [p.pid for p in workers.procs]
    assert workers.procs == []
    for pid in pids:
        try:
            os.kill(pid, 0)
            alive = True
        except OSError:
            alive = False
        assert not alive
    assert os.path.exists(str(tmpdir.join('worker-0.log')))
    assert os.path.exists(str(tmpdir.join('worker-1.log')))


def test_logs_go_to_a_new_private_directory_per_run():
    first = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1)
    second = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1)
    try:
        with first, second:
            assert first.log_dir != second.log_dir
            for workers in (first, second):
                mode = os.stat(workers.log_dir).st_mode & 0o777
                assert mode == 0o700
                assert os.path.exists(workers.log_path(0))
    finally:
        for workers in (first, second):
            if workers.log_dir:
                shutil.rmtree(workers.log_dir)


def test_workers_ignore_sigint_and_leave_quietly_on_sigterm(tmpdir):
    import signal
    workers = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1, log_dir=str(tmpdir))
    with workers:
        proc = workers.procs[0]
        path = workers.log_path(0)
        wait_for_text(path, 'connecting to', 60, proc)
        # A terminal's Ctrl-C is the master's: the worker stays.
        proc.send_signal(signal.SIGINT)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait() == 0
        text = wait_for_text(path, 'worker 0 exiting', 60, proc)
        assert workers.exited() == ('every local ssbench-worker exited '
                                    '(status 0; logs in %s)' % tmpdir)
    assert 'received SIGTERM: stopping' in text
    assert 'SIGINT' not in text
    for bad in ('Traceback', 'KeyboardInterrupt', 'ERROR'):
        assert bad not in text


def test_exited_is_none_while_one_runs_or_none_started(tmpdir):
    import signal
    workers = LocalWorkers(2, '127.0.0.1', 1, 2, 1, 1, log_dir=str(tmpdir))
    assert workers.exited() is None
    with workers:
        workers.procs[0].send_signal(signal.SIGKILL)
        workers.procs[0].wait()
        assert workers.exited() is None
        workers.procs[1].send_signal(signal.SIGKILL)
        workers.procs[1].wait()
        assert workers.exited() == ('every local ssbench-worker exited '
                                    '(signal 9; logs in %s)' % tmpdir)

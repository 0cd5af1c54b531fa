from __future__ import absolute_import, division, print_function

import os
import sys

from ssbench.localworkers import LocalWorkers, worker_command, _scrubbed_env


def test_worker_command_carries_no_credential_and_a_master_timeout():
    argv = worker_command(3, '127.0.0.1', 1, 2, concurrency=6, batch_size=4)
    assert argv[:3] == [sys.executable, '-m', 'ssbench.cli.worker']
    assert argv[-1] == '3'
    text = ' '.join(argv)
    assert '--concurrency 6' in text and '--batch-size 4' in text
    assert '--master-timeout 30' in text
    for flag in ('-K', '--key', '--os-password', '-T', '--token'):
        assert flag not in argv


def test_credentials_are_scrubbed_from_the_worker_environment(monkeypatch):
    monkeypatch.setenv('ST_KEY', 'sekrit')
    monkeypatch.setenv('OS_PASSWORD', 'sekrit')
    monkeypatch.setenv('OS_AUTH_TOKEN', 'sekrit')
    env = _scrubbed_env()
    assert 'sekrit' not in env.values()
    assert env.get('PATH') == os.environ.get('PATH')


def test_start_and_stop_real_processes(tmpdir):
    log_path = os.path.join(str(tmpdir), 'w-%d.log')
    workers = LocalWorkers(2, '127.0.0.1', 1, 2, 1, 1, log_path=log_path)
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
    assert os.path.exists(log_path % 0) and os.path.exists(log_path % 1)

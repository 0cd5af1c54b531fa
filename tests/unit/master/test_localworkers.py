from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from ssbench.errors import SsbenchError
from ssbench.master.localworkers import (LocalWorkers, fresh_log_dir,
                                         scrubbed_env, worker_command)


def test_worker_command_carries_no_credential_and_a_master_timeout():
    argv = worker_command(3, '127.0.0.1', 1, 2, concurrency=6, batch_size=4)
    assert argv[:3] == [sys.executable, '-m', 'ssbench.cli.worker']
    assert argv[-1] == '3'
    text = ' '.join(argv)
    assert '--concurrency 6' in text and '--batch-size 4' in text
    assert '--master-timeout 30' in text
    for flag in ('-K', '--key', '--os-password', '-T', '--token'):
        assert flag not in argv


def test_the_variables_named_are_left_out_of_the_worker_environment():
    env = scrubbed_env(('ST_KEY', 'AWS_SECRET_ACCESS_KEY', 'UNSET'), {
        'ST_KEY': 'sekrit', 'AWS_SECRET_ACCESS_KEY': 'sekrit', 'PATH': 'p'})
    assert env == {'PATH': 'p'}


def test_each_run_has_a_token_of_its_own():
    first = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1)
    second = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1)
    assert len(first.token) == 32 and first.token != second.token
    int(first.token, 16)


def test_a_planted_link_is_never_followed(tmpdir):
    victim = tmpdir.join('victim')
    victim.write('precious')
    logs = tmpdir.mkdir('logs')
    os.symlink(str(victim), str(logs.join('worker-0.log')))
    workers = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1, log_dir=str(logs))
    with pytest.raises(SsbenchError):
        workers.start()
    assert workers.procs == []
    assert victim.read() == 'precious'


def own_logs(tmpdir):
    """LocalWorkers whose log folder it made itself, as start() does."""
    workers = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1)
    workers.log_dir = str(tmpdir.mkdir('ssbench-workers-x'))
    workers._own_dir = True
    return workers


def test_the_private_log_folder_goes_after_a_run_that_went_well(tmpdir,
                                                                caplog):
    workers = own_logs(tmpdir)
    workers.settle_logs(went_well=True)
    assert not os.path.exists(workers.log_dir)
    assert caplog.messages == []


def test_a_failed_run_keeps_its_logs_and_says_where(tmpdir, caplog):
    workers = own_logs(tmpdir)
    workers.settle_logs(went_well=False)
    assert os.path.isdir(workers.log_dir)
    assert caplog.messages == [
        "The local workers' logs are in %s" % workers.log_dir]


def test_a_folder_asked_for_is_kept_and_named(tmpdir, caplog):
    caplog.set_level('INFO')
    workers = LocalWorkers(1, '127.0.0.1', 1, 2, 1, 1,
                           log_dir=str(tmpdir))
    workers.settle_logs(went_well=True)
    assert tmpdir.check(dir=True)
    assert caplog.messages == ["The local workers' logs are in %s" % tmpdir]


def test_a_kept_folder_loses_only_an_earlier_runs_worker_logs(tmpdir):
    tmpdir.join('worker-0.log').write('old')
    tmpdir.join('worker-12.log').write('old')
    tmpdir.join('notes.txt').write('mine')
    assert fresh_log_dir(str(tmpdir)) == str(tmpdir)
    assert sorted(p.basename for p in tmpdir.listdir()) == ['notes.txt']
    fresh = str(tmpdir.join('new.worker-logs'))
    fresh_log_dir(fresh)
    assert os.listdir(fresh) == []


def test_a_kept_folder_that_cannot_be_is_one_error(tmpdir):
    blocker = tmpdir.join('run.stat.worker-logs')
    blocker.write('a file')
    with pytest.raises(SsbenchError) as info:
        fresh_log_dir(str(blocker))
    assert str(info.value).startswith(
        'cannot keep the worker logs in %s: ' % blocker)

from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from ssbench.errors import SsbenchError
from ssbench.master.localworkers import (LocalWorkers, scrubbed_env,
                                         worker_command)


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

"""Pure pieces of `ssbench-worker --processes`."""
from __future__ import absolute_import, division, print_function

import argparse
import os
import signal

import pytest

from ssbench.worker import supervisor
from ssbench.errors import UsageError


def test_processes_takes_a_count_or_auto():
    assert supervisor.parse_processes('3') == 3
    assert supervisor.parse_processes('auto') == 'auto'
    for bad in ('0', '-1', 'x', '4097', '1.5'):
        with pytest.raises(argparse.ArgumentTypeError):
            supervisor.parse_processes(bad)


def test_auto_is_one_per_core():
    assert supervisor.process_count('auto', 32) == 32
    assert supervisor.process_count('auto', None) == 1
    assert supervisor.process_count(5, 32) == 5


def test_wants_processes_sees_abbreviations_not_other_flags():
    assert supervisor.wants_processes(['--processes', '2', '1'])
    assert supervisor.wants_processes(['--processes=auto', '1'])
    assert supervisor.wants_processes(['--proc', '2', '1'])
    assert not supervisor.wants_processes(['--pro', '2', '1'])
    assert not supervisor.wants_processes(['--profile-count', '2', '1'])
    assert not supervisor.wants_processes(['--', '--processes'])


def test_child_index_from_the_environment():
    assert supervisor.child_index({}) is None
    assert supervisor.child_index({supervisor.CHILD_INDEX: '3'}) == 3
    with pytest.raises(UsageError):
        supervisor.child_index({supervisor.CHILD_INDEX: 'x'})


def test_status_lines():
    assert supervisor.describe_status(0) == 'exited with status 0'
    assert supervisor.describe_status(2) == 'exited with status 2'
    assert 'SIGKILL' in supervisor.describe_status(-signal.SIGKILL) or \
        'signal 9' in supervisor.describe_status(-signal.SIGKILL)


def test_log_is_appended_never_truncated(tmpdir):
    path = str(tmpdir.join('worker-1.log'))
    with open(path, 'wb') as out:
        out.write(b'earlier run\n')
    with supervisor.open_log(path) as out:
        out.write(b'this run\n')
    with open(path, 'rb') as got:
        assert got.read() == b'earlier run\nthis run\n'


def test_log_refuses_a_symbolic_link(tmpdir):
    target = str(tmpdir.join('elsewhere'))
    open(target, 'w').close()
    link = str(tmpdir.join('worker-1.log'))
    os.symlink(target, link)
    with pytest.raises(supervisor.SsbenchError):
        supervisor.open_log(link)

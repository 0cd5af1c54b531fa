"""Pure pieces of `ssbench-worker --processes`."""
from __future__ import absolute_import, division, print_function

import argparse
import os
import signal

import pytest

from ssbench.cli import workerprocs
from ssbench.errors import UsageError


def test_processes_takes_a_count_or_auto():
    assert workerprocs.parse_processes('3') == 3
    assert workerprocs.parse_processes('auto') == 'auto'
    for bad in ('0', '-1', 'x', '4097', '1.5'):
        with pytest.raises(argparse.ArgumentTypeError):
            workerprocs.parse_processes(bad)


def test_auto_is_one_per_core():
    assert workerprocs.process_count('auto', 32) == 32
    assert workerprocs.process_count('auto', None) == 1
    assert workerprocs.process_count(5, 32) == 5


def test_wants_processes_sees_abbreviations_not_other_flags():
    assert workerprocs.wants_processes(['--processes', '2', '1'])
    assert workerprocs.wants_processes(['--processes=auto', '1'])
    assert workerprocs.wants_processes(['--proc', '2', '1'])
    assert not workerprocs.wants_processes(['--pro', '2', '1'])
    assert not workerprocs.wants_processes(['--profile-count', '2', '1'])
    assert not workerprocs.wants_processes(['--', '--processes'])


def test_child_index_from_the_environment():
    assert workerprocs.child_index({}) is None
    assert workerprocs.child_index({workerprocs.CHILD_INDEX: '3'}) == 3
    with pytest.raises(UsageError):
        workerprocs.child_index({workerprocs.CHILD_INDEX: 'x'})


def test_status_lines():
    assert workerprocs.describe_status(0) == 'exited with status 0'
    assert workerprocs.describe_status(2) == 'exited with status 2'
    assert 'SIGKILL' in workerprocs.describe_status(-signal.SIGKILL) or \
        'signal 9' in workerprocs.describe_status(-signal.SIGKILL)


def test_log_is_appended_never_truncated(tmpdir):
    path = str(tmpdir.join('worker-1.log'))
    with open(path, 'wb') as out:
        out.write(b'earlier run\n')
    with workerprocs.open_log(path) as out:
        out.write(b'this run\n')
    with open(path, 'rb') as got:
        assert got.read() == b'earlier run\nthis run\n'


def test_log_refuses_a_symbolic_link(tmpdir):
    target = str(tmpdir.join('elsewhere'))
    open(target, 'w').close()
    link = str(tmpdir.join('worker-1.log'))
    os.symlink(target, link)
    with pytest.raises(workerprocs.SsbenchError):
        workerprocs.open_log(link)

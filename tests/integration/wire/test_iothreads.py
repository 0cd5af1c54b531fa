"""The contexts' ZeroMQ I/O threads run under SCHED_BATCH on Linux, and
nothing else does."""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest
import zmq

from ssbench.wire.iothreads import new_context
from ssbench.wire.transport import MasterSockets, WorkerSockets
from tests.waiting import wait_for

from tests.unit.wire.test_iothreads import SCHED_BATCH

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.skipif(not sys.platform.startswith('linux') or
                       not hasattr(zmq, 'THREAD_SCHED_POLICY'),
                       reason='SCHED_BATCH is Linux\'s; libzmq >= 4.3')]


SCHED_OTHER = 0


def policies():
    """{thread id: (name, policy)} of this process's threads, from /proc
    (the policy is field 41 of a task's stat)."""
    found = {}
    base = '/proc/self/task'
    for tid in os.listdir(base):
        with open(os.path.join(base, tid, 'comm')) as comm:
            name = comm.read().strip()
        with open(os.path.join(base, tid, 'stat')) as stat:
            text = stat.read()
        fields = text[text.rindex(')') + 2:].split()
        found[int(tid)] = (name, int(fields[41 - 3]))
    return found


def zmq_policies(before, count):
    """The policies of the `count` threads started since `before` (a
    context's reaper and I/O thread: libzmq 4.3.3 on names them), once
    there are so many and each has set its policy."""
    def started():
        found = [policy for tid, (name, policy) in policies().items()
                 if tid not in before]
        if len(found) == count and set(found) == set([SCHED_BATCH]):
            return found
        return None
    return wait_for(started, 10, lambda: '%d SCHED_BATCH threads (%r)' % (
        count, policies()))


def test_a_new_context_starts_its_io_thread_batch_and_leaves_ours():
    before = policies()
    context = new_context()
    try:
        sock = context.socket(zmq.PUSH)
        try:
            assert zmq_policies(before, 2)
            # This thread, and every one that was there, as they were.
            after = policies()
            assert after[os.getpid()][1] == SCHED_OTHER
            assert all(after[tid] == before[tid] for tid in before
                       if tid in after)
        finally:
            sock.close(0)
    finally:
        context.term()


def test_master_and_worker_sockets_use_such_contexts():
    before = policies()
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    try:
        worker = WorkerSockets('127.0.0.1', master.work_port,
                               master.results_port, green=False)
        try:
            assert zmq_policies(before, 4)
        finally:
            worker.close()
    finally:
        master.close()

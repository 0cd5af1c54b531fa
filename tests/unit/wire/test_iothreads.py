"""The contexts' ZeroMQ I/O threads run under SCHED_BATCH on Linux, and
nothing else does."""
from __future__ import absolute_import, division, print_function

import sys

import pytest
import zmq

from ssbench.wire.iothreads import IO_THREAD_POLICY

pytestmark = [
    pytest.mark.timeout(30),
    pytest.mark.skipif(not sys.platform.startswith('linux') or
                       not hasattr(zmq, 'THREAD_SCHED_POLICY'),
                       reason='SCHED_BATCH is Linux\'s; libzmq >= 4.3')]

SCHED_BATCH = 3


def test_the_policy_is_batch():
    assert IO_THREAD_POLICY == SCHED_BATCH

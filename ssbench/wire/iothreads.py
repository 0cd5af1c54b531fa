"""The ZeroMQ context of a master or a worker, whose I/O threads do not
preempt the thread that hands them a message.

libzmq moves every message through an I/O thread of its own: a send
queues it and wakes that thread, which writes it to the socket, and a
receive is woken by it.  Under Linux's default policy a woken thread
preempts the one running on its core, so each message handed over costs
the sender its core for a moment, with two context switches, in the
middle of the jobs or results it is working through.  On a client host
whose cores are all busy (a master and workers on two cores) that is
most of what a message costs.  SCHED_BATCH (sched(7)) keeps the I/O
threads' share of the CPU (same nice value, same weight) but takes away
their wake-up preemption: they run on an idle core at once, else when
the sender waits.  Only ZeroMQ's threads get it: the master's loop and
the workers' requests, whose clocks make the figures, keep the default
policy.  Where libzmq or the OS has no such setting, the context is the
default one.
"""
from __future__ import absolute_import, division, print_function

import os
import sys

import zmq

# sched(7)'s SCHED_BATCH (3 on Linux; Python 2.7's os does not name it).
IO_THREAD_POLICY = getattr(os, 'SCHED_BATCH', 3) \
    if sys.platform.startswith('linux') else None


def new_context():
    """A zmq.Context whose I/O threads (started with its first socket)
    run under IO_THREAD_POLICY where there is one."""
    context = zmq.Context()
    option = getattr(zmq, 'THREAD_SCHED_POLICY', None)   # libzmq >= 4.3
    if IO_THREAD_POLICY is not None and option is not None:
        try:
            context.set(option, IO_THREAD_POLICY)
        except zmq.ZMQError:  # pragma: no cover - a libzmq without it
            pass
    return context

"""Waiting for a plain ZeroMQ socket from a greenlet.

zmq.green wraps every socket call in gevent machinery (per-call watchers,
results and timers, IntFlag arithmetic) that costs more CPU per message
than the rest of a worker's bookkeeping.  A HubPoller keeps one watcher on
the socket's ZMQ_FD for good and only sleeps in the gevent hub when libzmq
says the socket is not ready; sends and receives stay plain NOBLOCK calls.
"""
from __future__ import absolute_import, division, print_function

import sys

import zmq
from greenlet import getcurrent

from ssbench.compat import monotonic

POLLIN = int(zmq.POLLIN)
POLLOUT = int(zmq.POLLOUT)
# What the watchers of HubPoller._wait() wake its greenlet with.
_TIMED_OUT = 'timed out'


def gevent_patched():
    """True when this process has had gevent.monkey.patch_all() applied."""
    monkey = sys.modules.get('gevent.monkey')
    return bool(monkey is not None and monkey.is_module_patched('socket'))


class HubPoller(object):
    """`poll(timeout_ms, flag)` for one socket, as Socket.poll() has it
    (-1: no timeout; returns the flag when ready, else 0), except that
    other greenlets run while it waits."""

    def __init__(self, sock):
        import gevent
        self._hub = gevent.get_hub()
        self._sock = sock
        self._fd = sock.getsockopt(zmq.FD)
        self._io = self._hub.loop.io(self._fd, 1)

    def poll(self, timeout_ms=-1, flag=POLLIN):
        sock = self._sock
        flag = int(flag)
        deadline = None if timeout_ms is None or timeout_ms < 0 \
            else monotonic() + timeout_ms / 1000.0
        while True:
            # ZMQ_FD only signals that libzmq has news, and reading EVENTS
            # consumes the signal: ask EVENTS first, sleep only if not ready.
            if sock.getsockopt(zmq.EVENTS) & flag:
                return flag
            left = None if deadline is None else deadline - monotonic()
            if left is not None and left <= 0:
                return 0
            self._wait(left)

    def _wait(self, left):
        """Sleep in the hub until ZMQ_FD signals or `left` seconds (None:
        no limit) have passed.  A gevent.Timeout and hub.wait() would make
        a Timeout, a timer and a Waiter per call: here the watchers
        switch back to this greenlet themselves."""
        hub = self._hub
        watcher = self._io
        if watcher.active:     # another greenlet waits on this socket
            watcher = hub.loop.io(self._fd, 1)
        switch = getcurrent().switch
        watcher.start(switch)
        timer = None
        if left is not None:
            # The hub's clock may lag (it is updated once per loop turn), so
            # the timer can fire early: poll() checks the real deadline.
            timer = hub.loop.timer(left)
            timer.start(switch, _TIMED_OUT)
        try:
            hub.switch()
        finally:
            watcher.stop()
            if timer is not None:
                timer.stop()

"""Sends and receives of a plain TCP socket under gevent, past gevent's
socket wrapper.

HTTPConnection's hot path under gevent (every worker's requests): gevent's
own receive tries first, failing with an exception when the answer is not
there yet, and then makes a timer, a Timeout and a Waiter for each wait.
A GreenIO calls the socket below gevent's directly and waits through an
I/O watcher and a timer made once per connection.  TLS sockets, and
processes without gevent, do not use it.
"""
from __future__ import absolute_import, division, print_function

import errno
import socket
import ssl

from greenlet import getcurrent

# What a non-blocking receive or send says when it would have to wait.
WOULD_BLOCK = (errno.EAGAIN, errno.EWOULDBLOCK)
# What wakes a greenlet waiting in GreenIO.wait_readable().
_READY = 'ready'
_TIMED_OUT = 'timed out'


class GreenIO(object):
    """Sends and receives of a plain TCP socket under gevent, without
    gevent's socket wrapper on the way: its receive tries first (a
    receive that fails, and an exception, when the answer is not there
    yet) and then waits through a new timer, Timeout and Waiter per call.
    Here the one socket below it is called directly, and a wait uses an
    I/O watcher and a timer made once per connection."""

    __slots__ = ('raw', 'hub', 'io', 'timer')

    def __init__(self, sock, timeout):
        import gevent
        self.raw = sock._sock
        self.hub = gevent.get_hub()
        loop = self.hub.loop
        self.io = loop.io(sock.fileno(), 1)
        # Armed by again(), from its repeat: see wait_readable().
        self.timer = loop.timer(timeout, timeout) if timeout else None

    @staticmethod
    def of(sock, timeout):
        """A GreenIO for gevent's plain socket `sock`, else None."""
        if type(sock).__module__.startswith('gevent.') and \
                hasattr(sock, '_sock') and \
                not isinstance(sock, ssl.SSLSocket):
            return GreenIO(sock, timeout)
        return None

    def wait_readable(self):
        """Let other greenlets run until the socket is readable;
        socket.timeout after the connection's network_timeout."""
        switch = getcurrent().switch
        io, timer = self.io, self.timer
        io.start(switch, _READY)
        if timer is not None:
            # Not start(): a libev timer started again after a stop has
            # only what was left of it, so the connection's waits would
            # share one network_timeout.  again() arms it for its whole
            # repeat, from the clock read now rather than the loop's as
            # of its last turn, which lags after a long callback.
            timer.again(switch, _TIMED_OUT, update=True)
        try:
            woke = self.hub.switch()
        finally:
            io.stop()
            if timer is not None:
                timer.stop()
        if woke is _TIMED_OUT:
            raise socket.timeout('timed out')

    def recv_into(self, view, want, wait_first):
        """recv_into() on the socket, waiting as long as it would block;
        `wait_first` when the answer cannot be there yet."""
        if wait_first:
            self.wait_readable()
        raw = self.raw
        while True:
            try:
                return raw.recv_into(view, want)
            except socket.error as exc:
                if exc.args[0] not in WOULD_BLOCK:
                    raise
            self.wait_readable()

    def close(self):
        """Close the watcher and the timer; the socket is the caller's."""
        self.io.close()
        if self.timer is not None:
            self.timer.close()

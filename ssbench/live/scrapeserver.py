"""An HTTP server for scrapes that no client can stall.

One real OS thread (not a greenlet: the master's loop blocks in plain
ZeroMQ polls, during which no greenlet runs) polls the listener and every
open connection at once, on the socket and select modules gevent left
unpatched.  Each connection has REQUEST_DEADLINE seconds from its accept
for its whole exchange, request in and answer out; a client that trickles,
idles or sends garbage is answered or dropped by then, and meanwhile the
others are served.  At most MAX_CONNECTIONS are open: a new one past that
replaces the oldest still sending its request.  stop() wakes the thread
through a pipe and returns once it has closed everything, without waiting
for any client.
"""
from __future__ import absolute_import, division, print_function

import errno
import logging
import os

from ssbench.compat import monotonic
from ssbench.errors import UsageError

log = logging.getLogger(__name__)

# Seconds a connection has, from its accept, to send its request and take
# the answer.
REQUEST_DEADLINE = 2.0
MAX_CONNECTIONS = 64
MAX_REQUEST = 16384
# The longest poll: deadlines are checked at least this often (seconds).
POLL_SECONDS = 0.1
# How long stop() waits for the thread to close everything.
STOP_SECONDS = 2.0
_RETRY = (errno.EAGAIN, errno.EWOULDBLOCK, errno.EINTR)


class _Connection(object):
    __slots__ = ('sock', 'deadline', 'request', 'answer', 'status')

    def __init__(self, sock, deadline):
        self.sock = sock
        self.deadline = deadline
        self.request = b''
        self.answer = None      # the bytes still to send, once known
        self.status = None


def http_response(status, content_type, body):
    """The bytes of a whole HTTP/1.1 answer that closes the connection."""
    return ('HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n'
            'Connection: close\r\n\r\n' % (status, content_type,
                                           len(body))).encode('ascii') + body


class ScrapeServer(object):
    """Serves `respond(head)` on (host, port): `head` is a request's text
    up to its blank line, and respond() gives (status, content type, body
    bytes).  `sent(status)` is called once an answer is wholly sent.
    `monotonic` (seconds of the monotonic clock) times the deadlines;
    tests inject theirs.
    """

    def __init__(self, host, port, respond, sent=None, monotonic=monotonic,
                 deadline=REQUEST_DEADLINE, max_connections=MAX_CONNECTIONS):
        from gevent import monkey
        socket_module = __import__('socket')
        self._poll = monkey.get_original('select', 'poll')
        self._start_thread = monkey.get_original(
            'thread' if str is bytes else '_thread', 'start_new_thread')
        self.sleep = monkey.get_original('time', 'sleep')
        self.respond = respond
        self.sent = sent
        self.monotonic = monotonic
        self.deadline = deadline
        self.max_connections = max_connections
        self.connections = {}      # fd -> _Connection
        self.dropped = 0           # connections closed unanswered
        self.stopping = False
        self.stopped = False
        family = socket_module.AF_INET6 if ':' in host else \
            socket_module.AF_INET
        listener = monkey.get_original('socket', 'socket')(
            family, socket_module.SOCK_STREAM)
        try:
            listener.setsockopt(socket_module.SOL_SOCKET,
                                socket_module.SO_REUSEADDR, 1)
            listener.bind((host, port))
            listener.listen(128)
        except (OSError, IOError) as exc:
            listener.close()
            raise UsageError('--metrics %s:%d: cannot listen there (%s)' % (
                host, port, getattr(exc, 'strerror', None) or exc))
        listener.setblocking(False)
        self.listener = listener
        self.address = listener.getsockname()[:2]
        self._wake_read, self._wake_write = os.pipe()

    def start(self):
        self._start_thread(self._serve, ())

    def stop(self, timeout=STOP_SECONDS):
        """End the thread (it closes every connection) and wait for it, at
        most `timeout` seconds; True once it has ended."""
        if not self.stopping:
            self.stopping = True
            try:
                os.write(self._wake_write, b'x')
            except OSError:
                pass
        until = monotonic() + timeout
        while not self.stopped and monotonic() < until:
            self.sleep(0.005)
        return self.stopped

    # -- the thread -----------------------------------------------------

    def _serve(self):
        try:
            while not self.stopping:
                self._turn()
        except Exception:
            log.exception('the metrics endpoint failed')
        finally:
            for fd in list(self.connections):
                self._close(fd)
            self.listener.close()
            for fd in (self._wake_read, self._wake_write):
                os.close(fd)
            self.stopped = True

    def _turn(self):
        import select
        poller = self._poll()
        poller.register(self._wake_read, select.POLLIN)
        poller.register(self.listener.fileno(), select.POLLIN)
        for fd, conn in self.connections.items():
            poller.register(fd, select.POLLIN if conn.answer is None
                            else select.POLLOUT)
        now = self.monotonic()
        wait = POLL_SECONDS
        if self.connections:
            first = min(c.deadline for c in self.connections.values())
            wait = min(wait, max(0.0, first - now))
        try:
            events = poller.poll(wait * 1000.0)
        except (OSError, IOError, select.error) as exc:
            if _errno(exc) in _RETRY:
                return
            raise
        for fd, event in events:
            if self.stopping:
                return
            if fd == self._wake_read:
                continue
            if fd == self.listener.fileno():
                self._accept()
            elif fd in self.connections:
                self._work(fd, event)
        now = self.monotonic()
        for fd in [fd for fd, c in self.connections.items()
                   if c.deadline <= now]:
            self._close(fd)

    def _accept(self):
        while True:
            try:
                sock = self.listener.accept()[0]
            except (OSError, IOError) as exc:
                if _errno(exc) not in _RETRY:
                    log.debug('metrics accept failed: %s', exc)
                return
            sock.setblocking(False)
            if len(self.connections) >= self.max_connections:
                reading = [(c.deadline, fd) for fd, c in
                           self.connections.items() if c.answer is None]
                if not reading:
                    sock.close()
                    self.dropped += 1
                    continue
                self._close(min(reading)[1])
            self.connections[sock.fileno()] = _Connection(
                sock, self.monotonic() + self.deadline)

    def _work(self, fd, event):
        conn = self.connections[fd]
        try:
            if conn.answer is None:
                self._read(fd, conn)
            else:
                self._write(fd, conn)
        except (OSError, IOError) as exc:
            if _errno(exc) not in _RETRY:
                log.debug('metrics connection failed: %s', exc)
                self._close(fd)

    def _read(self, fd, conn):
        chunk = conn.sock.recv(4096)
        if not chunk:
            self._close(fd)
            return
        conn.request += chunk
        if b'\r\n\r\n' in conn.request:
            head = conn.request.split(b'\r\n\r\n', 1)[0]
            status, content_type, body = self.respond(head.decode('latin-1'))
        elif len(conn.request) >= MAX_REQUEST:
            status, content_type, body = (
                '431 Request Header Fields Too Large', 'text/plain',
                b'request too large\n')
        else:
            return
        conn.status = status
        conn.answer = http_response(status, content_type, body)
        self._write(fd, conn)

    def _write(self, fd, conn):
        sent = conn.sock.send(conn.answer)
        conn.answer = conn.answer[sent:]
        if conn.answer:
            return
        # Counted before the close, which the client sees.
        if self.sent is not None:
            self.sent(conn.status)
        conn.status = 'sent'
        self._close(fd)

    def _close(self, fd):
        conn = self.connections.pop(fd)
        if conn.status != 'sent':
            self.dropped += 1
        try:
            conn.sock.close()
        except (OSError, IOError):
            pass


def _errno(exc):
    number = getattr(exc, 'errno', None)
    if number is None and getattr(exc, 'args', None):
        number = exc.args[0]
    return number

"""A keep-alive HTTP/1.1 client connection, for the requests ssbench times.

The standard library's client builds a message object per response (through
the `email` package) and several layers of buffered files; that is most of
the client CPU a small Swift request costs.  This connection does only
what a store's client needs: one bytes buffer per request sent, one
reusable bytearray per connection for everything received, and a status
line and headers split with plain string operations.

    conn = HTTPConnection('127.0.0.1', 8080, 10.0, 20.0)
    conn.send('PUT', '/v1/a/c/o', [('X-Auth-Token', t)], size, block)
    resp = conn.read_response()          # status, reason, headers, ...
    got = conn.discard_body(65536)       # or: body = conn.read_body()

Header names are lower-cased; header values are native strings (latin-1 on
Python 3).  The socket module is looked up at connect time, so a caller that
monkey-patched it with gevent gets cooperative sockets.

Deadlines: `network_timeout` bounds each send and receive, and also the
whole response head from its first bytes (a server that trickles it a
byte at a time cannot stretch it past the timeout; the wait for the first
bytes is a receive, bounded alike) and the whole of a body read with
read_body(), which is for small bodies read whole (listings, /info,
auth); discard_body() bounds only each receive, as a large object's body
may take longer than that in all.  A head that comes in one receive, as
nearly all do, costs no clock reading (one costs 5 us on Python 2.7); a
longer one reads the clock before each further receive.

Sizes: a body read whole is bounded in bytes too.  Over read_body()'s
`limit` (MAX_BODY by default) it is BodyTooLarge: refused by its
Content-Length before a byte of it is read, or as it comes when chunked
or read to the close (an endless body costs the limit, not all it
sends); with `cut`, its first `limit` bytes are kept instead and the
rest left unread.

Errors: socket errors (timeouts included) propagate as they are.
`StaleConnection` means a reused keep-alive connection that the server had
closed while it sat idle, found before any of the request went out: the
request may be sent again on a new connection.  Once the request went out,
a connection that breaks is an attempt that failed (the server may have
read it): the socket error, or `NoResponse` for a close without a byte of
an answer.  `ProtocolError` is a malformed or truncated response.

A server may answer before it has read the whole request (a 401, 413 or 503
to a PUT) and close: when sending fails so, the answer that came is what
read_response() returns, as it would have been had the body gone out.
"""
from __future__ import absolute_import, division, print_function

import re
import socket
import ssl
from select import POLLIN

from gevent.monkey import get_original

from ssbench.compat import PY2, monotonic
from ssbench.store.greenio import WOULD_BLOCK, GreenIO

# The system's poll(), even where gevent patched select: an idle socket is
# only ever polled with a zero timeout, which must not go through the hub.
_poll = get_original('select', 'poll')
# One header line, from its CRLF on: a name without white space, and the
# value without the white space around it (what str.strip() takes off).
# A line it does not take (folded, bad, with a lone CR or LF) leaves
# fewer matches than lines: then they are parsed one by one.
_FIELD = re.compile(r'\r\n([^\s:]+):[^\S\r\n]*((?:[^\r\n]*\S)?)[^\S\r\n]*'
                    r'(?=\r\n|$)')

BUFFER_SIZE = 65536
MAX_HEAD = 1024 * 1024     # response head larger than this: not Swift
# A body read whole larger than this by default: no listing page of
# Swift's (10,000 names of up to 1024 bytes) comes near it.
MAX_BODY = 32 * 1024 * 1024
# What a deadline that passed says (%g: the timeout).
_HEAD_LATE = 'response head not complete within %g s of its first bytes'
_BODY_LATE = 'response body not complete within %g s'


class HTTPError(Exception):
    """Base of this module's errors."""


class ProtocolError(HTTPError):
    """The response could not be parsed, or ended early."""


class NoResponse(ProtocolError):
    """The server closed the connection after the request went out,
    without a byte of a response."""


class BodyTooLarge(ProtocolError):
    """A body read whole that is over its limit (the connection is
    closed, the rest of the body unread)."""


class StaleConnection(HTTPError):
    """A reused connection that the server had closed (or reset) while it
    sat idle: found before any of the request went out.

    `cause` is the socket error, or None when the connection was seen to
    be closed before sending.
    """

    def __init__(self, message, cause=None):
        HTTPError.__init__(self, message)
        self.cause = cause


def _fields(head, eol):
    """{lower-case name: value} of the header lines of a response head
    whose status line ends at `eol` (-1: no header line)."""
    if eol < 0:
        return {}
    # Plain "Name: value" lines, each name once, as nearly every head has
    # them: one C call for the lot.
    fields = _FIELD.findall(head, eol)
    if len(fields) == head.count('\r\n'):
        headers = dict([(name.lower(), value) for name, value in fields])
        if len(headers) == len(fields):
            return headers
    return _fields_by_line(head[eol + 2:].split('\r\n'))


def _fields_by_line(lines):
    """_fields() of header lines, line by line: folded lines continue a
    value, repeated names join theirs with ', '; ProtocolError for a line
    that is no header."""
    headers = {}
    name = None
    for line in lines:
        if line[:1] in (' ', '\t') and name is not None:
            # obsolete line folding: continues the previous value
            headers[name] += ' ' + line.strip()
            continue
        name, colon, value = line.partition(':')
        name = name.strip().lower()
        if not colon or not name:
            raise ProtocolError('bad header line %r' % line[:100])
        value = value.strip()
        if name in headers:
            headers[name] += ', ' + value
        else:
            headers[name] = value
    return headers


class Response(object):
    """Status line, headers and body framing of one response."""

    __slots__ = ('status', 'reason', 'version', 'headers', 'will_close',
                 'length', 'chunked')

    def __init__(self, status, reason, version, headers):
        self.status = status
        self.reason = reason
        self.version = version
        self.headers = headers
        self.will_close = False
        self.length = 0        # bytes of body left; None: read to close
        self.chunked = False


def ssl_context(cacert=None, insecure=False):
    """A TLS client context: verifying against `cacert` (None: the
    system's CAs), or not verifying at all when `insecure`."""
    context = ssl.create_default_context(cafile=cacert)
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


def _is_timeout(exc):
    return isinstance(exc, socket.timeout)


def host_header(host, port, tls):
    """The Host header of a connection to `host`:`port` (the port only
    when not the scheme's own)."""
    name = '[%s]' % host if ':' in host else host
    return name if port == (443 if tls else 80) else '%s:%d' % (name, port)


class HTTPConnection(object):
    """One keep-alive connection; `ssl_context` makes it HTTPS.

    Connects lazily on the first send.  `connect_timeout` bounds the TCP
    (and TLS) set-up, `network_timeout` every later send and receive, each
    response head and each body read whole (see the module's docstring);
    `clock` (monotonic seconds) is injectable for tests.
    """

    def __init__(self, host, port, connect_timeout=None,
                 network_timeout=None, ssl_context=None,
                 buffer_size=BUFFER_SIZE, clock=monotonic):
        self.host = host
        self.port = port
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.ssl_context = ssl_context
        self.host_header = host_header(host, port, ssl_context is not None)
        self.sock = None
        self._poller = None    # polls sock for input while it is idle
        self.reused = False    # this exchange runs on an older socket
        self._buf = bytearray(buffer_size)
        self._view = memoryview(self._buf)
        self._start = self._end = 0   # unread bytes are _buf[_start:_end]
        self._method = None
        self._resp = None     # the response whose body is still unread
        self._early = None    # a response that came while sending failed
        self._clock = clock
        self._bounded = False  # the socket waits less than network_timeout
        self._green = None     # a GreenIO under gevent, for plain TCP
        self._sent = False     # a request went out, no byte received yet

    def connect(self):
        sock = socket.create_connection((self.host, self.port),
                                        self.connect_timeout)
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            if self.ssl_context is not None:
                sock.settimeout(self.connect_timeout)
                sock = self.ssl_context.wrap_socket(
                    sock, server_hostname=self.host)
            sock.settimeout(self.network_timeout)
            poller = _poll()
            poller.register(sock.fileno(), POLLIN)
        except Exception:
            sock.close()
            raise
        self.sock = sock
        self._poller = poller
        if self.ssl_context is None:      # TLS reads go through ssl
            self._green = GreenIO.of(sock, self.network_timeout)

    def close(self):
        sock, self.sock = self.sock, None
        self._poller = None
        green, self._green = self._green, None
        if green is not None:
            green.close()
        self._sent = False
        self._start = self._end = 0
        self._resp = None
        self._early = None
        self._bounded = False
        if sock is not None:
            sock.close()

    # -- sending ------------------------------------------------------------

    def send(self, method, path, headers=(), size=0, block=None):
        """Send a request whose body is `size` bytes taken from `block`.

        `headers` is a sequence of (name, value) pairs.  Bodies longer
        than `block` repeat it; they go out as memoryview slices of that
        one buffer, so no object-sized string is ever built.
        """
        if self._resp is not None:   # the last body was left unread
            self.close()
        self.reused = self.sock is not None
        if self.reused and self._poller.poll(0):
            # Input on an idle connection: the server closed or reset it
            # (or said something unasked).  Nothing of this request left.
            self.close()
            raise StaleConnection('kept-alive connection closed by the '
                                  'server')
        if not self.reused:
            self.connect()
        self._start = self._end = 0
        self._method = method
        self._early = None
        head = '%s %s HTTP/1.1\r\nHost: %s\r\n' % (method, path,
                                                   self.host_header)
        head += ''.join(['%s: %s\r\n' % pair for pair in headers]) + '\r\n'
        if not (PY2 and isinstance(head, str)):
            head = head.encode('latin-1')
        try:
            if not size:
                self._send(head)
            elif size <= len(block):
                # One segment for a small request: header and body together.
                self._send(head + (block if size == len(block)
                                   else block[:size]))
            else:
                self._send(head)
                sendall = self.sock.sendall
                view = memoryview(block)
                step = len(block)
                while size >= step:
                    sendall(view)
                    size -= step
                if size:
                    sendall(view[:size])
        except socket.error as exc:
            self._send_failed(exc)

    def _send(self, data):
        """sendall(data), at the cost of one send() when the socket takes
        it all, as it does a request head: gevent's sendall() costs a
        getsockopt() and a deadline per call on top."""
        green = self._green
        self._sent = True
        try:
            sent = self.sock.send(data) if green is None \
                else green.raw.send(data)
        except socket.error as exc:
            if green is None or exc.args[0] not in WOULD_BLOCK:
                if self.reused and not _is_timeout(exc):
                    # Not a byte of the request left: the connection had
                    # been reset while idle, after it was polled.
                    self.close()
                    raise StaleConnection('kept-alive connection closed: '
                                          '%s' % (exc,), exc)
                raise
            sent = 0                  # sendall() below waits for room
        if sent < len(data):
            self.sock.sendall(memoryview(data)[sent:])

    def _send_failed(self, exc):
        """Sending failed with `exc`: keep the response the server sent
        before it stopped reading, for read_response(); without one, close
        and raise `exc`."""
        try:
            if self._poller.poll(0):
                resp = self._read_response()
                resp.will_close = True
                self._early = resp
                return
        except (socket.error, HTTPError):
            pass
        self.close()
        raise exc

    # -- receiving ----------------------------------------------------------

    def _deadline(self):
        """The monotonic time by which a whole head (or body) must have
        come, or None without a network_timeout."""
        if self.network_timeout is None:
            return None
        return self._clock() + self.network_timeout

    def _recv_by(self, deadline, what, view, want=0):
        """sock.recv_into(view, want), waiting only until `deadline`;
        socket.timeout saying `what` (a message with a %g for the
        timeout) once it has passed."""
        left = deadline - self._clock()
        if left > 0:
            self.sock.settimeout(min(left, self.network_timeout))
            self._bounded = True
            try:
                return self.sock.recv_into(view, want)
            except socket.timeout:
                pass
        raise socket.timeout(what % self.network_timeout)

    def _recv_into(self, view, want):
        """sock.recv_into(view, want), bounded by network_timeout."""
        green = self._green
        if green is None:
            return self.sock.recv_into(view, want)
        # Right after a request the answer cannot be there yet: wait for
        # it rather than try a receive that would fail.
        sent, self._sent = self._sent, False
        return green.recv_into(view, want, sent)

    def _unbound(self):
        """Back to the per-receive timeout after a bounded read."""
        if self.sock is not None:
            self.sock.settimeout(self.network_timeout)
        self._bounded = False

    def _fill(self, deadline=None, what=None):
        """Receive more bytes at the end of the buffer; 0 at end of stream.
        With a `deadline`, the receive ends by then (see _recv_by)."""
        if self._start == self._end:
            self._start = self._end = 0
        elif self._end == len(self._buf):
            # Full: move the unread tail to the front, or (a head longer
            # than the buffer) double it; a memoryview pins the old one.
            left = self._end - self._start
            if self._start:
                self._buf[:left] = self._buf[self._start:self._end]
            elif left >= MAX_HEAD:
                raise ProtocolError('response head over %d bytes'
                                    % MAX_HEAD)
            else:
                buf = bytearray(2 * len(self._buf))
                buf[:left] = self._buf
                self._buf, self._view = buf, memoryview(buf)
            self._start, self._end = 0, left
        if deadline is None:
            got = self._recv_into(self._view[self._end:], 0)
        else:
            got = self._recv_by(deadline, what, self._view[self._end:])
        self._end += got
        return got

    def read_response(self):
        """Read and parse the response head; the body is left to read."""
        early, self._early = self._early, None
        if early is not None:
            return early
        return self._read_response()

    def _read_response(self):
        while True:
            resp = self._read_head()
            if resp.status != 100:    # skip an interim 100 Continue
                break
        if self._bounded:
            self._unbound()
        method = self._method
        status = resp.status
        headers = resp.headers
        connection = headers.get('connection')
        if connection is not None:
            tokens = [t.strip() for t in connection.lower().split(',')]
            resp.will_close = 'close' in tokens or (
                resp.version == 'HTTP/1.0' and 'keep-alive' not in tokens)
        else:
            resp.will_close = resp.version == 'HTTP/1.0'
        if method == 'HEAD' or status < 200 or status in (204, 304):
            pass
        elif 'chunked' in headers.get('transfer-encoding', '').lower():
            resp.chunked = True
        elif 'content-length' in headers:
            try:
                resp.length = int(headers['content-length'])
            except ValueError:
                resp.length = -1
            if resp.length < 0:
                self.close()
                raise ProtocolError('bad Content-Length %r'
                                    % headers['content-length'])
        else:
            resp.length = None
            resp.will_close = True
        if resp.chunked or resp.length != 0:
            self._resp = resp
        return resp

    def _read_head(self):
        """The next response head in the stream, complete within
        network_timeout of its first receive."""
        first = True
        deadline = None
        while True:
            end = self._buf.find(b'\r\n\r\n', self._start, self._end)
            if end >= 0:
                break
            if not first and deadline is None:
                # The first receive waited network_timeout at most, and
                # the usual head came whole in it: only now the clock.
                deadline = self._deadline()
            waiting = self._start == self._end   # nothing of it yet
            try:
                got = self._fill(deadline, _HEAD_LATE)
                first = False
            except (ProtocolError, socket.error):
                self.close()
                raise
            if not got:
                self.close()
                if not waiting:
                    raise ProtocolError('connection closed inside the '
                                        'response head')
                raise NoResponse('connection closed without a response')
        # One decode, then str operations: values must be native str anyway.
        if PY2:
            head = self._view[self._start:end].tobytes()
        else:
            head = str(self._view[self._start:end], 'latin-1')
        self._start = end + 4
        eol = head.find('\r\n')
        status_line = head if eol < 0 else head[:eol]
        parts = status_line.split(None, 2)
        try:
            if len(parts) < 2 or not parts[0].startswith('HTTP/1.'):
                raise ValueError
            status = int(parts[1])
            if not 100 <= status <= 999:
                raise ValueError
        except ValueError:
            self.close()
            raise ProtocolError('bad status line %r' % status_line[:100])
        try:
            headers = _fields(head, eol)
        except ProtocolError:
            self.close()
            raise
        return Response(status, parts[2] if len(parts) > 2 else '',
                        parts[0], headers)

    # -- the body -------------------------------------------------------

    def discard_body(self, chunk=BUFFER_SIZE):
        """Read the body and drop it, in receives of at most `chunk` bytes
        into the connection's buffer: nothing is allocated per chunk.
        Returns the number of body bytes read."""
        return self._body(None, max(1, min(chunk, len(self._buf))), None)

    def read_body(self, limit=MAX_BODY, cut=False):
        """The whole body, as bytes, within network_timeout in all and of
        at most `limit` bytes: BodyTooLarge for a longer one or, with
        `cut`, its first `limit` bytes (the connection then closed)."""
        resp = self._resp
        if resp is None:             # no clock reading (a HEAD's)
            return b''
        parts = _Kept(limit)
        if resp.length is not None and resp.length > limit and \
                not resp.chunked and not cut:
            self.close()
            raise BodyTooLarge('response body of %d bytes, over the %d '
                               'read whole' % (resp.length, limit))
        try:
            self._body(parts, len(self._buf), self._deadline())
        except BodyTooLarge:
            if not cut:
                raise
            resp.will_close = True
        return parts.joined()

    def _body(self, parts, chunk, deadline):
        """Consume the pending body (appended to `parts`, a _Kept, if not
        None) by
        `deadline` (None: each receive bounded alone); returns its length
        in bytes."""
        resp, self._resp = self._resp, None
        if resp is None:
            return 0
        try:
            if resp.chunked:
                got = self._chunked(parts, chunk, deadline)
            else:
                got = self._exact(resp.length, parts, chunk, deadline)
        except (socket.error, HTTPError):
            self.close()
            raise
        if self._bounded:
            self._unbound()
        return got

    def _exact(self, left, parts, chunk, deadline=None):
        """Consume `left` body bytes (None: up to end of stream) by
        `deadline`; returns how many were consumed."""
        size = left
        read = 0      # counted only when reading up to end of stream
        avail = self._end - self._start
        if avail:
            take = avail if left is None or avail < left else left
            if parts is not None:
                parts.append(self._view[self._start:self._start + take]
                             .tobytes())
            self._start += take
            if left is None:
                read = take
            else:
                left -= take
        if left == 0:
            return size
        self._start = self._end = 0
        recv_into = self._recv_into
        view = self._view
        while True:
            want = chunk if left is None or left > chunk else left
            if deadline is None:
                got = recv_into(view, want)
            else:
                got = self._recv_by(deadline, _BODY_LATE, view, want)
            if not got:
                if left is None:
                    return read
                raise ProtocolError('connection closed with %d body bytes '
                                    'unread' % left)
            if parts is not None:
                parts.append(view[:got].tobytes())
            if left is None:
                read += got
            else:
                left -= got
                if not left:
                    return size

    def _line(self, deadline):
        """One CRLF-terminated line from the stream, without the CRLF."""
        while True:
            end = self._buf.find(b'\r\n', self._start, self._end)
            if end >= 0:
                line = self._view[self._start:end].tobytes()
                self._start = end + 2
                return line
            if not self._fill(deadline, _BODY_LATE):
                raise ProtocolError('connection closed inside a chunk '
                                    'header')

    def _chunked(self, parts, chunk, deadline):
        total = 0
        while True:
            line = self._line(deadline)
            try:
                size = int(line.split(b';', 1)[0].strip(), 16)
                if size < 0:
                    raise ValueError
            except ValueError:
                raise ProtocolError('bad chunk size line %r' % line[:100])
            if not size:
                while self._line(deadline):   # trailer, to a blank line
                    pass
                return total
            total += self._exact(size, parts, chunk, deadline)
            if self._line(deadline):
                raise ProtocolError('chunk data longer than its size')


class _Kept(object):
    """The parts of a body read whole, at most `limit` bytes of them:
    append() raises BodyTooLarge for the first byte over."""

    __slots__ = ('parts', 'size', 'limit')

    def __init__(self, limit):
        self.parts = []
        self.size = 0
        self.limit = limit

    def append(self, data):
        room = self.limit - self.size
        if len(data) > room:
            if room > 0:
                self.parts.append(data[:room])
                self.size = self.limit
            raise BodyTooLarge('response body over the %d bytes read whole'
                               % self.limit)
        self.parts.append(data)
        self.size += len(data)

    def joined(self):
        return b''.join(self.parts)

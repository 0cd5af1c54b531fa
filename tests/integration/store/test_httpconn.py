"""httpconn against a loopback server that serves canned byte responses."""
from __future__ import absolute_import, division, print_function

import collections
import errno
import socket
import struct
import threading
import time

import pytest

from ssbench.store import httpconn
from ssbench.compat import PY2
from ssbench.store.httpconn import (HTTPConnection, HTTPError, NoResponse,
                                    ProtocolError, StaleConnection)
from tests.clocks import FakeClock
from tests.fakes import CLOSE, RESET, SILENT, CannedServer
from tests.waiting import wait_for

from tests.unit.store.test_httpconn import ok

pytestmark = pytest.mark.timeout(60)


@pytest.fixture(autouse=True, params=['threads', 'gevent'])
def sockets(request, monkeypatch):
    """Every test runs on the standard library's sockets, and on gevent's
    as in a worker (monkey-patched), where a plain TCP connection waits
    through watchers of its own (greenio.GreenIO)."""
    if request.param == 'gevent':
        import gevent.socket
        monkeypatch.setattr(socket, 'create_connection',
                            gevent.socket.create_connection)
    return request.param


@pytest.fixture
def server():
    srv = CannedServer()
    yield srv
    srv.stop()


@pytest.fixture
def conn(server):
    c = HTTPConnection('127.0.0.1', server.port, 5, 5)
    yield c
    c.close()


class Wrapped(object):
    """A socket's stand-in: what a subclass does not define is the
    wrapped socket's."""

    def __init__(self, real):
        self.real = real

    def __getattr__(self, name):
        return getattr(self.real, name)


def wrap(conn, kind):
    """Put kind(socket) in place of the connection's socket and, under
    gevent, of the socket below gevent's, which the connection calls
    directly; returns a function that puts them back."""
    real, green = conn.sock, conn._green
    conn.sock = kind(real)
    if green is not None:
        raw = green.raw
        green.raw = kind(raw)

    def unwrap():
        conn.sock = real
        if green is not None:
            green.raw = raw
    return unwrap


def exchange(conn, method='GET', path='/x', headers=(), keep=True):
    """(response, body), or (response, bytes discarded) if not `keep`."""
    conn.send(method, path, headers)
    resp = conn.read_response()
    body = conn.read_body() if keep else conn.discard_body(1000)
    return resp, body


def test_content_length_and_keep_alive(server, conn):
    server.replies.extend([ok(b'hello', b'X-Trans-Id: tx1\r\n'),
                           ok(b'world')])
    resp, body = exchange(conn, headers=[('X-Auth-Token', 't')])
    assert (resp.status, resp.reason, resp.version) == (200, 'OK',
                                                        'HTTP/1.1')
    assert body == b'hello' and isinstance(body, bytes)
    assert resp.headers.get('x-trans-id') == 'tx1'
    assert not resp.will_close and not conn.reused
    resp, body = exchange(conn)
    assert body == b'world' and conn.reused
    assert server.connections == 1
    head = server.requests[0][1].split(b'\r\n')
    assert head[0] == b'GET /x HTTP/1.1'
    assert head[1] == b'Host: 127.0.0.1:%d' % server.port
    assert b'X-Auth-Token: t' in head
    assert not [h for h in head if h.lower().startswith(b'accept-enc')]


def test_header_names_lowered_values_native_str(server, conn):
    server.replies.append(ok(extra=(
        b'Location: http://h:8080/a:b\r\nX-Odd:a: b :c\r\n'
        b'Set-Thing: 1\r\nset-thing: 2\r\nX-Folded: one\r\n  two\r\n'
        b'X-Latin: caf\xe9\r\n')))
    resp, _ = exchange(conn)
    headers = resp.headers
    assert headers['location'] == 'http://h:8080/a:b'
    assert headers['x-odd'] == 'a: b :c'
    assert headers['set-thing'] == '1, 2'
    assert headers['x-folded'] == 'one two'
    assert headers['x-latin'] == (b'caf\xe9' if PY2 else u'caf\xe9')
    assert all(type(k) is str and type(v) is str
               for k, v in headers.items())
    assert all(k == k.lower() for k in headers)


def test_chunked_body_then_reuse(server, conn):
    chunked = (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
               b'5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n'
               b'\r\n')
    server.replies.extend([chunked, chunked, ok(b'next')])
    resp, body = exchange(conn)
    assert resp.chunked and body == b'hello world'
    resp, body = exchange(conn, keep=False)
    assert body == 11          # discarded: the count of bytes read
    assert exchange(conn)[1] == b'next'
    assert server.connections == 1


def test_chunked_large_and_split(server, conn):
    piece = b'x' * 70000
    server.replies.append([
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n',
        b'%x\r\n' % len(piece) + piece[:1000], piece[1000:] + b'\r\n1',
        b'\r\ny\r\n0\r\n\r\n'])
    assert exchange(conn)[1] == piece + b'y'


def test_bad_chunk_size(server, conn):
    server.replies.append(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked'
                          b'\r\n\r\nzz\r\n')
    conn.send('GET', '/')
    conn.read_response()
    with pytest.raises(ProtocolError):
        conn.read_body()
    assert conn.sock is None


def test_read_to_close(server, conn):
    server.replies.append((b'HTTP/1.1 200 OK\r\n\r\n' + b'z' * 100000,
                           CLOSE))
    conn.send('GET', '/')
    resp = conn.read_response()
    assert resp.will_close and resp.length is None
    assert conn.read_body() == b'z' * 100000


def test_read_to_close_discarded(server, conn):
    server.replies.append((b'HTTP/1.1 200 OK\r\n\r\n' + b'z' * 100000,
                           CLOSE))
    resp, body = exchange(conn, keep=False)
    assert resp.will_close and body == 100000


def test_discard_body_returns_the_bytes_read(server):
    # A small buffer: part of each body comes with the head, the rest in
    # receives of its own.
    conn = HTTPConnection('127.0.0.1', server.port, 5, 5, buffer_size=256)
    chunked = (b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
               b'3e8\r\n' + b'c' * 1000 + b'\r\n5\r\nhello\r\n0\r\n\r\n')
    server.replies.extend([
        ok(b'x' * 5000), ok(), chunked,
        b'HTTP/1.1 204 No Content\r\n\r\n',
        (b'HTTP/1.1 200 OK\r\n\r\n' + b'z' * 3000, CLOSE)])
    try:
        sizes = []
        for _ in range(5):
            conn.send('GET', '/')
            conn.read_response()
            sizes.append(conn.discard_body(100))
        assert sizes == [5000, 0, 1005, 0, 3000]
        assert server.connections == 1
    finally:
        conn.close()


@pytest.mark.parametrize('status', [204, 304])
def test_no_body_statuses(server, conn, status):
    server.replies.extend([b'HTTP/1.1 %d X\r\nX-A: 1\r\n\r\n' % status,
                           ok(b'after')])
    resp, body = exchange(conn)
    assert resp.status == status and body == b'' and not resp.will_close
    assert exchange(conn)[1] == b'after'
    assert server.connections == 1


def test_head_has_no_body(server, conn):
    server.replies.extend([b'HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n',
                           ok(b'after')])
    resp, body = exchange(conn, 'HEAD')
    assert resp.headers['content-length'] == '1000' and body == b''
    assert exchange(conn)[1] == b'after'


def test_interim_100_skipped(server, conn):
    server.replies.append(b'HTTP/1.1 100 Continue\r\n\r\n' + ok(b'done'))
    resp, body = exchange(conn)
    assert resp.status == 200 and body == b'done'


@pytest.mark.parametrize('extra,version,closes', [
    (b'Connection: close\r\n', b'1.1', True),
    (b'Connection: Keep-Alive, Close\r\n', b'1.1', True),
    (b'', b'1.0', True),
    (b'Connection: TE\r\n', b'1.0', True),
    (b'Connection: keep-alive\r\n', b'1.0', False),
    (b'Connection: keep-alive\r\n', b'1.1', False)])
def test_will_close(server, conn, extra, version, closes):
    server.replies.append(ok(b'b', extra).replace(b'HTTP/1.1',
                                                  b'HTTP/' + version))
    resp, body = exchange(conn)
    assert body == b'b' and resp.will_close is closes


def idle_input(conn):
    """Whether the kernel has something for this idle connection (the
    server's FIN or RST, or bytes)."""
    return bool(conn._poller.poll(0))


class HeadServer(object):
    """Reads each request's head only and hands the socket to the next
    of `actions`: action(sock, head, rest, stopping) returns the bytes
    read past the request, or None to end the connection (`stopping` is
    set when the server stops).  `heads` gets every head.
    """

    def __init__(self):
        self.listener = socket.socket()
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(16)
        self.listener.settimeout(0.1)
        self.port = self.listener.getsockname()[1]
        self.actions = collections.deque()
        self.heads = []
        self.stopping = threading.Event()
        self.threads = []
        self.socks = []
        self.acceptor = threading.Thread(target=self._accept)
        self.acceptor.daemon = True
        self.acceptor.start()

    def _accept(self):
        while not self.stopping.is_set():
            try:
                sock = self.listener.accept()[0]
            except socket.timeout:
                continue
            except (socket.error, OSError):
                return
            self.socks.append(sock)
            thread = threading.Thread(target=self._serve, args=(sock,))
            thread.daemon = True
            self.threads.append(thread)
            thread.start()

    def _serve(self, sock):
        sock.settimeout(10)
        data = b''
        try:
            while data is not None:
                while b'\r\n\r\n' not in data:
                    more = sock.recv(65536)
                    if not more:
                        return
                    data += more
                head, data = data.split(b'\r\n\r\n', 1)
                self.heads.append(head)
                data = self.actions.popleft()(sock, head, data,
                                              self.stopping)
        except (socket.error, OSError):
            pass
        finally:
            sock.close()

    def stop(self):
        self.stopping.set()
        self.listener.close()
        self.acceptor.join(5)
        for sock in self.socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except (socket.error, OSError):
                pass
        for thread in self.threads:
            thread.join(5)
        assert not any(t.is_alive() for t in self.threads + [self.acceptor])


def _content_length(head):
    for line in head.split(b'\r\n')[1:]:
        name, _, value = line.partition(b':')
        if name.strip().lower() == b'content-length':
            return int(value)
    return 0


def answer(reply, then='keep'):
    """A HeadServer action: 'keep' reads the body, answers `reply` and
    keeps the connection; the others answer at once, leaving the body
    unread, then 'close' (the kernel resets: data was left unread),
    'reset', or 'hold' the connection open, reading nothing more, until
    the server stops."""
    def action(sock, head, rest, stopping):
        if then == 'keep':
            # Read the body and drop it (it may be large).
            left = _content_length(head) - len(rest)
            rest = rest[len(rest) + left:] if left < 0 else b''
            while left > 0:
                more = sock.recv(min(left, 65536))
                if not more:
                    return None
                left -= len(more)
        if reply:
            sock.sendall(reply)
        if then == 'keep':
            return rest
        if then == 'reset':
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                            struct.pack('ii', 1, 0))
        elif then == 'hold':
            stopping.wait(30)
        return None
    return action


@pytest.fixture
def heads():
    srv = HeadServer()
    yield srv
    srv.stop()


@pytest.mark.parametrize('how', ['close', 'reset'])
def test_server_closed_idle_connection_is_stale(heads, how):
    # The server answers, then closes (or resets) the connection while it
    # sits idle in our pool: found before the next request goes out.
    heads.actions.extend([answer(ok(b'one'), how), answer(ok(b'two'))])
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 5)
    try:
        assert exchange(conn)[1] == b'one'
        wait_for(lambda: idle_input(conn), 10, 'idle_input(conn)')
        with pytest.raises(StaleConnection):
            exchange(conn)
        assert conn.sock is None
        assert len(heads.heads) == 1        # nothing of it was sent
        assert exchange(conn)[1] == b'two'    # a new connection
        assert len(heads.socks) == 2
    finally:
        conn.close()


def test_reset_between_poll_and_send_is_stale(server, conn):
    """An idle connection reset after it was polled: the first send()
    fails, nothing of the request left."""
    server.replies.append(ok(b'one'))
    assert exchange(conn)[1] == b'one'
    real = conn.sock

    class Reset(Wrapped):
        def send(self, data):
            raise socket.error(errno.ECONNRESET, 'reset')
    wrap(conn, Reset)
    try:
        with pytest.raises(StaleConnection) as info:
            conn.send('GET', '/')
    finally:
        real.close()
    assert info.value.cause.errno == errno.ECONNRESET
    assert conn.sock is None


@pytest.mark.parametrize('how', [CLOSE, RESET])
def test_dropped_after_the_request_went_out_is_a_failure(server, conn, how):
    """The server read the request, then closed or reset the connection:
    no reconnect (the request may have been acted on) but a failure named
    for what happened."""
    server.replies.extend([ok(b'one'), how])
    assert exchange(conn)[1] == b'one'
    with pytest.raises((NoResponse, socket.error)) as info:
        exchange(conn)
    assert not isinstance(info.value, StaleConnection)
    if how == CLOSE:
        assert isinstance(info.value, NoResponse)
    assert len(server.requests) == 2
    assert conn.sock is None


@pytest.mark.parametrize('how', [CLOSE, RESET])
def test_fresh_connection_dropped_is_not_stale(server, conn, how):
    server.replies.append(how)
    with pytest.raises((ProtocolError, socket.error)) as info:
        exchange(conn)
    assert not isinstance(info.value, StaleConnection)
    assert not isinstance(info.value, socket.timeout)


def test_timeout_is_not_stale(server):
    server.replies.extend([ok(b'one'), SILENT])
    conn = HTTPConnection('127.0.0.1', server.port, 5, 0.3)
    try:
        assert exchange(conn)[1] == b'one'
        started = time.time()
        with pytest.raises(socket.timeout):
            exchange(conn)
        assert 0.2 < time.time() - started < 3
        assert conn.sock is None
    finally:
        conn.close()


@pytest.mark.parametrize('reply', [
    b'garbage\r\n\r\n', b'HTTP/1.1 abc OK\r\n\r\n', b'ICY 200 OK\r\n\r\n',
    b'HTTP/1.1 200 OK\r\nno colon here\r\n\r\n',
    b'HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n',
    b'HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n',
    (b'HTTP/1.1 200 OK\r\nContent-Len', CLOSE)])
def test_malformed_responses(server, conn, reply):
    server.replies.append(reply)
    conn.send('GET', '/')
    with pytest.raises(ProtocolError) as info:
        conn.read_response()
    assert isinstance(info.value, HTTPError)
    assert not isinstance(info.value, StaleConnection)
    assert conn.sock is None


def test_truncated_body(server, conn):
    server.replies.append((b'HTTP/1.1 200 OK\r\nContent-Length: 100000'
                           b'\r\n\r\n' + b'a' * 5000, CLOSE))
    conn.send('GET', '/')
    conn.read_response()
    with pytest.raises(ProtocolError):
        conn.discard_body()


def test_large_bodies_and_split_head(server, conn):
    big = bytes(bytearray(range(256))) * 4096         # 1 MiB
    server.replies.extend([
        [b'HTTP/1.1 200 OK\r\nCont', b'ent-Length: %d\r\n' % len(big),
         b'\r\n' + big[:10], big[10:]],
        ok(big), ok(b'end')])
    assert exchange(conn)[1] == big
    sizes = []

    class Spy(Wrapped):
        def recv_into(self, buf, nbytes=0):
            sizes.append(nbytes or len(buf))
            return self.real.recv_into(buf, nbytes)
    unwrap = wrap(conn, Spy)
    resp, body = exchange(conn, keep=False)     # 1000-byte receives
    assert body == len(big) and len(sizes) > 100
    assert max(sizes[1:]) <= 1000
    unwrap()
    assert exchange(conn)[1] == b'end'
    assert server.connections == 1


@pytest.mark.parametrize('interim', [b'', b'HTTP/1.1 100 Continue\r\n\r\n'])
def test_long_head_grows_the_buffer(server, interim):
    # After an interim response the head starts mid-buffer: moved first.
    conn = HTTPConnection('127.0.0.1', server.port, 5, 5, buffer_size=64)
    long_header = b'X-Long: %s\r\n' % (b'v' * 500)
    server.replies.append(interim + ok(b'b', long_header))
    try:
        resp, body = exchange(conn)
        assert resp.headers['x-long'] == 'v' * 500 and body == b'b'
    finally:
        conn.close()


def test_request_bodies(server, conn):
    block = b'B' * 1000
    sent = []
    server.replies.extend([ok(), ok(), ok()])
    conn.connect()

    class Spy(Wrapped):
        def send(self, data):
            sent.append(data)
            return self.real.send(data)

        def sendall(self, data):
            sent.append(data)
            return self.real.sendall(data)
    unwrap = wrap(conn, Spy)
    for size in (10, 1000, 3500):
        conn.send('PUT', '/o', [('Content-Length', str(size))], size, block)
        conn.read_response()
        conn.discard_body()
    unwrap()
    assert [b for _, _, b in server.requests] == [
        b'B' * 10, b'B' * 1000, b'B' * 3500]
    assert len(sent) == 1 + 1 + 5    # header and body together when small
    assert sent[0].endswith(b'\r\n\r\n' + b'B' * 10)
    assert [len(d) for d in sent[3:]] == [1000, 1000, 1000, 500]
    assert all(isinstance(d, memoryview) for d in sent[3:])
    assert conn.reused is True


def test_a_partial_send_sends_the_rest(server, conn):
    server.replies.append(ok())
    conn.connect()
    rest = []

    class Short(Wrapped):
        """A socket whose send() takes 7 bytes."""

        def send(self, data):
            return self.real.send(data[:7])

        def sendall(self, data):
            rest.append(bytes(bytearray(data)))
            return self.real.sendall(data)
    unwrap = wrap(conn, Short)
    conn.send('PUT', '/o', [('Content-Length', '3')], 3, b'xyz')
    unwrap()
    assert conn.read_response().status == 200
    head, body = server.requests[0][1:]
    assert head.startswith(b'PUT /o HTTP/1.1\r\n') and body == b'xyz'
    assert len(rest) == 1 and rest[0].endswith(b'\r\n\r\nxyz')


def test_unread_body_closes_before_next_request(server, conn):
    server.replies.extend([ok(b'x' * 10), ok(b'y')])
    conn.send('GET', '/')
    conn.read_response()
    conn.send('GET', '/')        # the first body was never read
    conn.read_response()
    assert conn.read_body() == b'y' and not conn.reused
    assert server.connections == 2


def test_socket_options_timeouts_and_tls(server, monkeypatch):
    seen = {}
    real = socket.create_connection

    def create_connection(address, timeout=None):
        seen['connect_timeout'] = timeout
        return real(address, timeout)
    monkeypatch.setattr(socket, 'create_connection', create_connection)

    class Context(object):      # stands in for ssl.SSLContext
        def wrap_socket(self, sock, server_hostname=None):
            seen['hostname'] = server_hostname
            seen['handshake_timeout'] = sock.gettimeout()
            return sock
    conn = HTTPConnection('127.0.0.1', server.port, 2.5, 7.5, Context())
    server.replies.append(ok(b'tls'))
    try:
        assert exchange(conn)[1] == b'tls'
        assert conn.sock.gettimeout() == 7.5
        assert conn.sock.getsockopt(socket.IPPROTO_TCP,
                                    socket.TCP_NODELAY) != 0
    finally:
        conn.close()
    assert seen == {'connect_timeout': 2.5, 'hostname': '127.0.0.1',
                    'handshake_timeout': 2.5}


BIG = 64 * 1024 * 1024      # more than any socket buffer takes


def put_big(conn, size=BIG):
    block = b'B' * 65536
    conn.send('PUT', '/o', [('Content-Length', str(size))], size, block)


@pytest.mark.parametrize('then', ['close', 'reset'])
def test_an_early_answer_is_read_when_the_send_fails(heads, then):
    """Swift answers a PUT before reading its body (413, 401...) and
    closes: the send fails, and the answer is what read_response()
    gives, not the socket error."""
    early = (b'HTTP/1.1 413 Request Entity Too Large\r\nX-Trans-Id: tx413'
             b'\r\nContent-Length: 9\r\n\r\ntoo large')
    heads.actions.extend([answer(ok(b'one')), answer(early, then)])
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 5)
    sent = []
    try:
        assert exchange(conn)[1] == b'one'    # a reused connection
        real = conn.sock

        class Counting(object):
            def sendall(self, data):
                sent.append(len(data))
                return real.sendall(data)

            def __getattr__(self, name):
                return getattr(real, name)
        conn.sock = Counting()
        put_big(conn)
        conn.sock = real
        resp = conn.read_response()
        assert (resp.status, resp.headers['x-trans-id']) == (413, 'tx413')
        assert resp.will_close
        assert conn.read_body() == b'too large'
    finally:
        conn.close()
    assert sum(sent) < BIG       # the send did fail midway


def test_an_early_answer_on_a_new_connection(heads):
    early = b'HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n'
    heads.actions.append(answer(early, 'close'))
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 5)
    try:
        put_big(conn)
        resp = conn.read_response()
        assert resp.status == 401 and resp.will_close
        assert conn.discard_body() == 0
    finally:
        conn.close()


def test_an_early_answer_to_a_send_that_times_out(heads):
    """The server answers and stops reading, but keeps the connection:
    the send times out, and the answer is still read."""
    early = b'HTTP/1.1 503 Busy\r\nContent-Length: 0\r\n\r\n'
    heads.actions.append(answer(early, 'hold'))
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 0.3)
    try:
        put_big(conn)
        assert conn.read_response().status == 503
    finally:
        conn.close()


@pytest.mark.parametrize('then', ['close', 'reset'])
def test_a_send_that_fails_without_an_answer_raises(heads, then):
    """Reset mid-body with no answer: the socket error, on a reused
    connection too (the head went out: no reconnect)."""
    heads.actions.extend([answer(ok(b'one')), answer(b'', then)])
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 5)
    try:
        assert exchange(conn)[1] == b'one'
        with pytest.raises(socket.error) as info:
            put_big(conn)
        assert not isinstance(info.value, socket.timeout)
        assert conn.sock is None
    finally:
        conn.close()


def test_a_head_in_one_receive_reads_no_clock(server):
    clock = FakeClock()
    conn = HTTPConnection('127.0.0.1', server.port, 5, 5, clock=clock)
    server.replies.append(ok(b'abc'))
    try:
        conn.send('GET', '/x')
        sock = conn.sock
        calls = []
        conn.sock = type('Spy', (object,), {
            'settimeout': lambda self, t: calls.append(t),
            '__getattr__': lambda self, name: getattr(sock, name)})()
        conn.read_response()
        assert conn.discard_body() == 3
        # Neither the socket's timeout nor the clock: the hot path; nor
        # for a body-less answer read whole (a HEAD's).
        server.replies.append(ok())
        conn.send('HEAD', '/x')
        conn.read_response()
        assert conn.read_body() == b''
        assert calls == [] and clock.calls == 0
    finally:
        conn.sock = sock
        conn.close()


def test_under_gevent_an_answer_is_waited_for_then_read_once(
        server, conn, sockets):
    """No receive is tried before the answer can be there: one receive
    for a small answer, none that fails."""
    server.replies.extend([ok(b'one'), ok(b'two')])
    assert exchange(conn)[1] == b'one'
    if sockets == 'threads':
        assert conn._green is None
        return
    calls = []

    class Spy(Wrapped):
        def recv_into(self, buf, nbytes=0):
            try:
                got = self.real.recv_into(buf, nbytes)
            except socket.error as exc:
                calls.append(exc.args[0])
                raise
            calls.append(got)
            return got
    unwrap = wrap(conn, Spy)
    assert exchange(conn)[1] == b'two'
    unwrap()
    assert len(calls) == 1 and calls[0] > 0


def answer_when(released, reply):
    """A HeadServer action: answer `reply` once `released` is set."""
    def action(sock, head, rest, stopping):
        released.wait(10)
        released.clear()
        sock.sendall(reply)
        return rest
    return action


def block_then_release(block, released):
    """A greenlet's work: block the whole thread (and so gevent's loop,
    whose clock then lags) for `block` seconds, let the loop turn once
    (a timer due by now fires in that turn), then have the server
    answer."""
    import gevent
    from gevent.monkey import get_original
    get_original('time', 'sleep')(block)
    gevent.sleep(0)
    gevent.sleep(0.01)
    released.set()


def test_every_wait_has_the_whole_network_timeout(heads, sockets):
    """network_timeout bounds each wait for an answer, not the sum of a
    kept-alive connection's waits: a libev timer started again after a
    stop keeps only what was left of it (after 20 s of waiting, summed
    over its requests, a connection of a 20 s timeout timed out at
    once)."""
    released = threading.Event()
    heads.actions.extend(answer_when(released, ok(b'%d' % i))
                         for i in range(7))
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 1.0)
    try:
        conn.connect()
        if sockets == 'threads':
            assert conn._green is None
            return
        import gevent
        for i in range(7):
            # Seven waits of 0.15 s or more outlast one timeout, however
            # slow the machine; each stays well within its own.
            blocker = gevent.spawn(block_then_release, 0.15, released)
            assert exchange(conn)[1] == b'%d' % i
            blocker.join()
    finally:
        released.set()        # a server thread still waiting answers
        conn.close()


def test_a_wait_after_a_blocked_loop_has_the_whole_timeout(heads, sockets):
    """A wait begun outside the loop's callbacks (here the main greenlet)
    after the loop was blocked longer than network_timeout does not
    time out at once: libev times a timer from the loop's clock as of
    its last turn unless told to read the clock again."""
    import gevent
    from gevent.monkey import get_original
    released = threading.Event()
    heads.actions.extend([answer(ok(b'one')),
                          answer_when(released, ok(b'two'))])
    conn = HTTPConnection('127.0.0.1', heads.port, 5, 0.7)
    try:
        assert exchange(conn)[1] == b'one'
        if sockets == 'threads':
            assert conn._green is None
            return
        get_original('time', 'sleep')(0.8)       # the loop is blocked
        blocker = gevent.spawn(block_then_release, 0, released)
        assert exchange(conn)[1] == b'two'
        blocker.join()
    finally:
        released.set()
        conn.close()


def test_a_body_declared_over_the_limit_is_refused_unread(server, conn):
    # A terabyte declared and never sent: refused at once, nothing read.
    server.replies.append(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n'
                          b'abc' % 10 ** 12)
    conn.send('GET', '/')
    conn.read_response()
    with pytest.raises(httpconn.BodyTooLarge) as info:
        conn.read_body(1000)
    assert str(info.value) == ('response body of %d bytes, over the 1000 '
                               'read whole' % 10 ** 12)
    assert conn.sock is None


@pytest.mark.parametrize('framing', ['chunked', 'to close'])
def test_a_body_over_the_limit_as_it_comes_is_refused(server, conn,
                                                      framing):
    piece = b'x' * 50000
    if framing == 'chunked':
        chunks = b''.join(b'%x\r\n%s\r\n' % (len(piece), piece)
                          for _ in range(4))
        server.replies.append(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: '
                              b'chunked\r\n\r\n' + chunks + b'0\r\n\r\n')
    else:
        server.replies.append((b'HTTP/1.1 200 OK\r\n\r\n' + piece * 4,
                               CLOSE))
    conn.send('GET', '/')
    conn.read_response()
    with pytest.raises(httpconn.BodyTooLarge) as info:
        conn.read_body(120000)
    assert str(info.value) == 'response body over the 120000 bytes read ' \
        'whole'
    assert conn.sock is None


def test_a_body_of_the_limit_is_read(server, conn):
    server.replies.extend([ok(b'y' * 1000), ok(b'z' * 1000)])
    conn.send('GET', '/')
    conn.read_response()
    assert conn.read_body(1000) == b'y' * 1000
    # And the default limit is MAX_BODY.
    assert exchange(conn)[1] == b'z' * 1000
    assert httpconn.MAX_BODY == 32 * 1024 * 1024


@pytest.mark.parametrize('declared', [True, False])
def test_a_cut_body_keeps_its_first_bytes_and_closes(server, conn,
                                                     declared):
    body = b'<Error><Code>SlowDown</Code></Error>' + b' ' * 300000
    if declared:
        server.replies.append(ok(body))
    else:
        server.replies.append((b'HTTP/1.1 500 Oops\r\n\r\n' + body, CLOSE))
    conn.send('GET', '/')
    resp = conn.read_response()
    assert conn.read_body(100, cut=True) == body[:100]
    assert resp.will_close and conn.sock is None

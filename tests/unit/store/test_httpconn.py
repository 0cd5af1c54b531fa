"""httpconn against a loopback server that serves canned byte responses."""
from __future__ import absolute_import, division, print_function

import socket

import pytest

from ssbench.store import httpconn
from ssbench.store.httpconn import HTTPConnection, ProtocolError
from tests.clocks import FakeClock

pytestmark = pytest.mark.timeout(60)


def ok(body=b'', extra=b''):
    return (b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n'
            % (len(body), extra)) + body


def test_host_header_default_ports():
    assert HTTPConnection('h', 80).host_header == 'h'
    assert HTTPConnection('h', 443, ssl_context=object()).host_header == 'h'
    assert HTTPConnection('h', 8080).host_header == 'h:8080'
    assert HTTPConnection('::1', 80).host_header == '[::1]'
    assert httpconn.MAX_HEAD >= 65536


# -- the response comes first ----------------------------------------------

class TrickleSocket(object):
    """A connected socket that hands out `data` a byte per receive, each
    receive taking `step` seconds of `clock`; records every timeout it
    was given."""

    def __init__(self, data, clock, step=1.0):
        self.data = bytearray(data)
        self.clock = clock
        self.step = step
        self.timeouts = []

    def settimeout(self, value):
        self.timeouts.append(value)

    def recv_into(self, view, nbytes=0):
        self.clock.now += self.step
        if self.timeouts and self.timeouts[-1] < self.step:
            raise socket.timeout('timed out')
        if not self.data:
            return 0
        view[:1] = self.data[:1]
        del self.data[:1]
        return 1

    def close(self):
        pass


def trickled(data, timeout=5):
    """A connection of timeout `timeout` whose socket trickles `data`."""
    clock = FakeClock()
    conn = HTTPConnection('127.0.0.1', 80, 5, timeout, clock=clock)
    conn.sock = TrickleSocket(data, clock)
    conn._method = 'GET'
    return conn, clock


def test_a_trickled_head_ends_at_the_timeout_in_all():
    # A byte a second never trips a 5 s receive timeout: only the
    # deadline of the whole head does, 5 s after its first byte.
    conn, clock = trickled(b'HTTP/1.1 200 OK\r\n' + b'X-A: b\r\n' * 100)
    with pytest.raises(socket.timeout) as info:
        conn.read_response()
    assert str(info.value) == ('response head not complete within 5 s of '
                               'its first bytes')
    assert clock.now - 100.0 <= 7.0
    assert conn.sock is None


def test_a_head_within_the_timeout_restores_the_receive_timeout():
    conn, clock = trickled(ok(b'xy'), timeout=100)
    sock = conn.sock
    resp = conn.read_response()
    assert resp.status == 200
    # Each receive after the first waited only for what was left of the
    # timeout from the first, then the socket went back to the timeout
    # of one receive, for the body.
    waits = sock.timeouts[:-1]
    assert waits[0] == 100 and waits[-1] == 100 - len(waits) + 1
    assert sorted(waits, reverse=True) == waits
    assert sock.timeouts[-1] == 100


@pytest.mark.parametrize('chunked', [False, True])
def test_a_trickled_body_read_whole_ends_at_the_timeout(chunked):
    if chunked:
        body = b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n' + \
            b'1\r\nx\r\n' * 50 + b'0\r\n\r\n'
    else:
        body = ok(b'x' * 50)
    conn, clock = trickled(body, timeout=1000)
    conn.read_response()
    conn.network_timeout = 5    # the head came; now the body's deadline
    with pytest.raises(socket.timeout) as info:
        conn.read_body()
    assert str(info.value) == 'response body not complete within 5 s'
    assert conn.sock is None


def test_a_discarded_body_is_bounded_per_receive_only():
    # A large object's body may take longer than the timeout in all.
    conn, clock = trickled(ok(b'x' * 50), timeout=1000)
    conn.read_response()
    conn.network_timeout = 5
    assert conn.discard_body() == 50
    assert clock.now - 100.0 > 50


def test_header_lines_in_one_go_as_line_by_line():
    """The one-call parse of plain header lines gives what the line by
    line parse gives, or leaves the head to it."""
    import random
    draw = random.Random(7)
    pieces = ['X-Trans-Id', 'etag', 'Content-Length', ':', ' ', '\t',
              '\x0b', '\x1c', '\xa0', '\xe9', 'a', '1', '\r', '\n',
              '\r\n', '\r\n ', '\r\nX-A: ', '\r\nx-a:', ': b', ', ']
    for _ in range(20000):
        head = 'HTTP/1.1 200 OK' + ''.join(
            draw.choice(pieces) for _ in range(draw.randint(0, 12)))
        eol = head.find('\r\n')
        try:
            expected = httpconn._fields_by_line(
                head.split('\r\n')[1:]) if eol >= 0 else {}
        except ProtocolError:
            expected = ProtocolError
        try:
            got = httpconn._fields(head, eol)
        except ProtocolError:
            got = ProtocolError
        assert got == expected, repr(head)


# -- bodies read whole are bounded in bytes ----------------------------------

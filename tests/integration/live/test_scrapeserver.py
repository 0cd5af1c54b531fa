"""The scrape server with real local sockets: slow, idle and garbage
clients are each answered or dropped by their own deadline while others
are served, and stop() never waits for a client.  Deadlines run on a
FakeClock, moved by the tests."""
from __future__ import absolute_import, division, print_function

import errno
import socket

from ssbench.live import scrapeserver
from tests.clocks import FakeClock
from tests.waiting import wait_for


def _respond(head):
    return '200 OK', 'text/plain', ('saw %s\n' % head.split()[1]).encode(
        'ascii')


def _server(**kwargs):
    clock = FakeClock()
    answered = []
    server = scrapeserver.ScrapeServer('127.0.0.1', 0, _respond,
                                       answered.append, monotonic=clock,
                                       **kwargs)
    server.start()
    return server, clock, answered


def _connect(server):
    return socket.create_connection(server.address, timeout=10)


def _read_all(conn):
    """What the server sent before it closed the connection (a close
    with bytes of ours unread is a reset: closed all the same)."""
    data = b''
    while True:
        try:
            chunk = conn.recv(65536)
        except socket.error as exc:
            if exc.errno != errno.ECONNRESET:
                raise
            return data
        if not chunk:
            return data
        data += chunk


def _get(server, path='/metrics'):
    conn = _connect(server)
    try:
        conn.sendall(('GET %s HTTP/1.1\r\nHost: x\r\n\r\n' % path).encode(
            'ascii'))
        return _read_all(conn)
    finally:
        conn.close()


def test_a_scrape_is_answered_while_others_trickle_and_idle():
    server, clock, answered = _server()
    idle = [_connect(server) for _ in range(31)]
    trickler = _connect(server)
    try:
        trickler.sendall(b'GE')
        wait_for(lambda: len(server.connections) == 32, 10,
                 'the 32 connections accepted')
        answer = _get(server, '/a')
        assert answer.startswith(b'HTTP/1.1 200 OK\r\n')
        assert answer.endswith(b'saw /a\n')
        assert answered == ['200 OK']
        trickler.sendall(b'T')
        assert len(server.connections) == 32
    finally:
        for conn in idle + [trickler]:
            conn.close()
        assert server.stop()


def test_a_client_past_its_deadline_is_dropped():
    server, clock, _ = _server()
    trickler = _connect(server)
    try:
        trickler.sendall(b'GET /metrics HT')
        wait_for(lambda: server.connections, 10, 'the connection accepted')
        clock.advance(scrapeserver.REQUEST_DEADLINE - 0.1)
        trickler.sendall(b'T')
        assert len(server.connections) == 1
        clock.advance(0.2)
        wait_for(lambda: not server.connections, 10, 'the trickler dropped')
        assert _read_all(trickler) == b''
        assert server.dropped == 1
    finally:
        trickler.close()
        assert server.stop()


def test_garbage_and_oversized_requests_get_an_answer_and_are_closed():
    server, _, answered = _server()
    try:
        conn = _connect(server)
        conn.sendall(b'\x00\xff garbage \x01\r\n\r\n')
        assert _read_all(conn).startswith(b'HTTP/1.1 200')
        conn.close()
        conn = _connect(server)
        conn.sendall(b'A' * scrapeserver.MAX_REQUEST)
        assert _read_all(conn).startswith(b'HTTP/1.1 431')
        conn.close()
        assert answered == ['200 OK', '431 Request Header Fields Too Large']
    finally:
        assert server.stop()


def test_past_the_bound_the_oldest_unanswered_connection_makes_room():
    server, clock = _server(max_connections=3)[:2]
    first = _connect(server)
    try:
        wait_for(lambda: len(server.connections) == 1, 10, 'one accepted')
        clock.advance(0.5)
        others = [_connect(server) for _ in range(2)]
        wait_for(lambda: len(server.connections) == 3, 10, 'three accepted')
        assert _get(server).endswith(b'saw /metrics\n')
        assert _read_all(first) == b''          # the oldest went
        for conn in others:
            conn.close()
    finally:
        first.close()
        assert server.stop()


def test_stop_ends_at_once_with_clients_connected():
    server = _server()[0]
    conns = [_connect(server) for _ in range(5)]
    conns[0].sendall(b'GET / HTTP/1.1\r\n')
    wait_for(lambda: len(server.connections) == 5, 10, 'five accepted')
    assert server.stop(timeout=5)
    assert server.stopped and not server.connections
    for conn in conns:
        assert _read_all(conn) == b''
        conn.close()

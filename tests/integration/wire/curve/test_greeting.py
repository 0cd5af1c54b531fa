"""The greeting probe: which mechanism a real ZeroMQ peer announces."""
from __future__ import absolute_import, division, print_function

import socket
import threading

import pytest
import zmq

from ssbench.wire.curve.greeting import (GREETING_SIZE, peer_mechanism,
                                         tcp_address)
from ssbench.wire.curve.keys import CurveKeys, create_curve_keys

pytestmark = pytest.mark.timeout(30)


def bound(kind=zmq.ROUTER, curve_dir=None, address='tcp://127.0.0.1'):
    context = zmq.Context()
    sock = context.socket(kind)
    sock.setsockopt(zmq.LINGER, 0)
    if curve_dir is not None:
        (_, secret), _ = CurveKeys(curve_dir).master_keys()
        sock.setsockopt(zmq.CURVE_SERVER, 1)
        sock.setsockopt(zmq.CURVE_SECRETKEY, secret)
    port = sock.bind_to_random_port(address)
    host = address[len('tcp://'):]
    return context, sock, 'tcp://%s:%d' % (host, port)


def test_tcp_address():
    assert tcp_address('tcp://127.0.0.1:5555') == ('127.0.0.1', 5555)
    assert tcp_address('tcp://[::1]:6') == ('::1', 6)
    assert tcp_address('ipc:///tmp/x') is None


@pytest.mark.parametrize('kind', [zmq.ROUTER, zmq.PULL])
def test_a_plain_socket_greets_with_null(kind):
    context, sock, where = bound(kind)
    try:
        assert peer_mechanism(where) == 'NULL'
        # No connection was made: nothing arrives, nothing can be sent.
        assert sock.poll(100) == 0
    finally:
        sock.close()
        context.term()


def test_a_curve_socket_does_not_greet_with_null(tmpdir):
    path = str(tmpdir.join('keys'))
    create_curve_keys(path)
    context, sock, where = bound(curve_dir=path)
    try:
        # It answers CURVE, or hangs up first: never NULL.
        assert peer_mechanism(where) in ('CURVE', None)
    finally:
        sock.close()
        context.term()


def test_no_peer_or_not_zeromq_is_none():
    listener = socket.socket()
    listener.bind(('127.0.0.1', 0))
    port = listener.getsockname()[1]
    listener.close()
    assert peer_mechanism('tcp://127.0.0.1:%d' % port) is None

    # A server that answers with something else, or nothing at all.
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(2)
    answers = [b'HTTP/1.1 400 Bad Request\r\n\r\n'.ljust(GREETING_SIZE),
               b'']

    def serve():
        for answer in answers:
            conn, _ = server.accept()
            conn.recv(GREETING_SIZE)
            conn.sendall(answer)
            conn.close()
    thread = threading.Thread(target=serve)
    thread.start()
    where = 'tcp://127.0.0.1:%d' % server.getsockname()[1]
    try:
        assert peer_mechanism(where) is None
        assert peer_mechanism(where) is None
    finally:
        thread.join(10)
        server.close()


def test_a_silent_peer_times_out():
    server = socket.socket()
    server.bind(('127.0.0.1', 0))
    server.listen(1)
    try:
        where = 'tcp://127.0.0.1:%d' % server.getsockname()[1]
        assert peer_mechanism(where, timeout=0.2) is None
    finally:
        server.close()

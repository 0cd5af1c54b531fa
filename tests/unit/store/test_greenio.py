"""GreenIO over a gevent socket pair: its waits and receives alone (the
connection's use of it is in test_httpconn)."""
from __future__ import absolute_import, division, print_function

import errno
import socket

import gevent
import gevent.socket
import pytest

from ssbench.store.greenio import GreenIO

pytestmark = pytest.mark.timeout(60)


@pytest.fixture
def pair():
    """(a, b): gevent sockets connected to each other."""
    a, b = gevent.socket.socketpair()
    yield a, b
    a.close()
    b.close()


def test_only_a_gevent_socket_gets_one(pair):
    plain = socket.socket()
    try:
        assert GreenIO.of(plain, 5) is None
    finally:
        plain.close()
    green = GreenIO.of(pair[0], 5)
    try:
        assert isinstance(green, GreenIO)
        assert green.raw is pair[0]._sock
    finally:
        green.close()


@pytest.mark.parametrize('timeout', [None, 5])
@pytest.mark.parametrize('wait_first', [True, False])
def test_a_receive_waits_for_the_answer(pair, timeout, wait_first):
    """Whether it waits first or tries first, a receive lets the sender
    run and returns what it sent."""
    a, b = pair
    green = GreenIO.of(a, timeout)
    assert (green.timer is None) == (timeout is None)
    sender = gevent.spawn(b.sendall, b'answer')
    buf = bytearray(16)
    try:
        got = green.recv_into(memoryview(buf), 0, wait_first)
    finally:
        green.close()
    sender.join()
    assert bytes(buf[:got]) == b'answer'


def test_a_wait_with_nothing_to_read_times_out(pair):
    green = GreenIO.of(pair[0], 0.05)
    try:
        with pytest.raises(socket.timeout):
            green.recv_into(memoryview(bytearray(16)), 0, True)
        # The timer fired; a later wait is armed again and served.
        pair[1].sendall(b'x')
        assert green.recv_into(memoryview(bytearray(16)), 0, True) == 1
    finally:
        green.close()


def test_a_receive_error_other_than_would_block_propagates(pair):
    class Reset(object):
        def recv_into(self, view, want):
            raise socket.error(errno.ECONNRESET, 'reset')
    green = GreenIO.of(pair[0], 5)
    green.raw = Reset()
    try:
        with pytest.raises(socket.error) as caught:
            green.recv_into(memoryview(bytearray(16)), 0, False)
    finally:
        green.close()
    assert caught.value.args[0] == errno.ECONNRESET


def test_closing_leaves_the_socket_open(pair):
    a, b = pair
    GreenIO.of(a, 5).close()
    a.sendall(b'still')
    assert b.recv(16) == b'still'

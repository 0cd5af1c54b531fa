"""HubPoller: waits for plain zmq sockets without blocking other greenlets."""
from __future__ import absolute_import, division, print_function

import itertools
import time

import gevent
import pytest
import zmq

from ssbench.greenpoll import POLLIN, POLLOUT, HubPoller

_names = itertools.count()


@pytest.fixture
def pair():
    """(push, pull): a connected plain-zmq pipe over inproc."""
    context = zmq.Context()
    name = 'inproc://greenpoll-%d' % next(_names)
    pull = context.socket(zmq.PULL)
    pull.bind(name)
    push = context.socket(zmq.PUSH)
    push.connect(name)
    yield push, pull
    for sock in (push, pull):
        sock.close(linger=0)
    context.term()


def ticker(ticks):
    """A greenlet that counts while it gets to run."""
    def tick():
        while True:
            ticks.append(1)
            gevent.sleep(0.005)
    return gevent.spawn(tick)


def test_wakes_on_a_message_while_other_greenlets_run(pair):
    push, pull = pair
    ticks = []
    others = ticker(ticks)
    sender = gevent.spawn_later(0.1, push.send, b'job')
    try:
        assert HubPoller(pull).poll(5000, POLLIN) == POLLIN
        assert pull.recv(zmq.NOBLOCK) == b'job'
        assert len(ticks) >= 5          # the ticker ran during the wait
    finally:
        others.kill()
        sender.kill()


def test_times_out_with_zero_and_lets_others_run(pair):
    _, pull = pair
    ticks = []
    others = ticker(ticks)
    try:
        started = time.time()
        assert HubPoller(pull).poll(150, POLLIN) == 0
        assert time.time() - started >= 0.14
        assert len(ticks) >= 5
    finally:
        others.kill()


def test_ready_at_once_when_a_message_is_queued(pair):
    push, pull = pair
    push.send(b'early')
    gevent.sleep(0.05)              # let libzmq deliver it
    assert HubPoller(pull).poll(0, POLLIN) == POLLIN
    assert HubPoller(push).poll(0, POLLOUT) == POLLOUT


def test_two_greenlets_can_wait_on_one_socket(pair):
    push, pull = pair
    poller = HubPoller(pull)
    waiters = [gevent.spawn(poller.poll, 5000, POLLIN) for _ in range(2)]
    gevent.sleep(0.05)
    push.send(b'one')
    gevent.joinall(waiters, timeout=5)
    assert [w.value for w in waiters] == [POLLIN, POLLIN]

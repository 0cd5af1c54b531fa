"""HubPoller: waits for plain zmq sockets without blocking other greenlets."""
from __future__ import absolute_import, division, print_function

import itertools
import time

import gevent
import pytest
import zmq

from ssbench.wire.poller import POLLIN, POLLOUT, HubPoller
from tests.waiting import wait_for

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


def test_wakes_on_a_message_from_another_greenlet(pair):
    push, pull = pair
    # The message can only come if the poll lets the sender run.
    sender = gevent.spawn(push.send, b'job')
    try:
        assert HubPoller(pull).poll(5000, POLLIN) == POLLIN
        assert pull.recv(zmq.NOBLOCK) == b'job'
    finally:
        sender.kill()


def test_times_out_at_its_deadline_and_lets_others_run(pair):
    _, pull = pair
    ran = []
    other = gevent.spawn(ran.append, 'other')
    poller = HubPoller(pull)
    # A hub that has not run for a while has a stale clock, and its
    # timers fire early (here: all after 1 ms); the poll must still wait
    # out its deadline.
    poller._timeout = lambda seconds, exception: gevent.Timeout(
        0.001, exception)
    started = time.time()
    assert poller.poll(150, POLLIN) == 0
    assert time.time() - started >= 0.14
    assert ran == ['other']        # checked before this greenlet yields
    other.kill()


def test_ready_at_once_when_a_message_is_queued(pair):
    push, pull = pair
    push.send(b'early')
    # libzmq delivers it in its own thread: wait until it says so.
    assert wait_for(lambda: pull.getsockopt(zmq.EVENTS) & zmq.POLLIN, 5,
                    'pull.getsockopt(zmq.EVENTS) & zmq.POLLIN',
                    sleep=gevent.sleep)
    assert HubPoller(pull).poll(0, POLLIN) == POLLIN
    assert HubPoller(push).poll(0, POLLOUT) == POLLOUT


def test_two_greenlets_can_wait_on_one_socket(pair):
    push, pull = pair
    poller = HubPoller(pull)
    entered = []

    def wait():
        entered.append(gevent.getcurrent())
        return poller.poll(5000, POLLIN)
    waiters = [gevent.spawn(wait) for _ in range(2)]
    # Seen from here, a waiter that entered poll() waits in the hub:
    # nothing in between yields.
    assert wait_for(lambda: len(entered) == 2, 5,
                    'len(entered) == 2', sleep=gevent.sleep)
    push.send(b'one')
    gevent.joinall(waiters, timeout=5)
    assert [w.value for w in waiters] == [POLLIN, POLLIN]

"""The rule of the unit tests, enforced: a unit test starts no process,
opens no network socket and never sleeps (docs/development.rst,
"Running the tests").  Those that must go to tests/integration."""
from __future__ import absolute_import, division, print_function

import os
import socket
import subprocess
import time

import pytest

# On Python 2.7 its import finds libc with ldconfig, a process: it is
# imported here, before the guards, as any test's first import would.
import ssbench.compat  # noqa: F401

HERE = os.path.dirname(os.path.abspath(__file__)) + os.sep
MOVE = ('; a test that needs this belongs in tests/integration '
        '(docs/development.rst, "Running the tests")')


class ImpureUnitTest(AssertionError):
    """A unit test did what only an integration test may do."""


def _forbidden(what):
    def refuse(*args, **kwargs):
        raise ImpureUnitTest('a unit test ' + what + MOVE)
    return refuse


def _no_real_sleep(seconds):
    # sleep(0) only yields the processor: it waits on no time.
    if seconds:
        raise ImpureUnitTest('a unit test slept %r s; inject a clock '
                             '(tests/clocks.py)%s' % (seconds, MOVE))


def _no_zmq_network(original):
    # inproc:// stays in the process: a unit test may use it.
    def endpoint_checked(self, address, *args, **kwargs):
        text = address.decode() if isinstance(address, bytes) else address
        if not text.startswith('inproc://'):
            raise ImpureUnitTest('a unit test used the ZeroMQ endpoint '
                                 '%s%s' % (text, MOVE))
        return original(self, address, *args, **kwargs)
    return endpoint_checked


def _guards():
    """(owner, attribute, replacement) for each thing a unit test may
    not do; socketpair() stays allowed (it opens nothing)."""
    import zmq
    guards = [
        (subprocess.Popen, '__init__', _forbidden('started a process')),
        (os, 'fork', _forbidden('forked')),
        (socket.socket, 'bind', _forbidden('bound a socket')),
        (socket.socket, 'connect', _forbidden('connected a socket')),
        (socket.socket, 'connect_ex', _forbidden('connected a socket')),
        (time, 'sleep', _no_real_sleep),
        (zmq.Socket, 'bind', _no_zmq_network(zmq.Socket.bind)),
        (zmq.Socket, 'connect', _no_zmq_network(zmq.Socket.connect)),
    ]
    import gevent.socket
    for name in ('bind', 'connect', 'connect_ex'):
        guards.append((gevent.socket.socket, name,
                       _forbidden('used a network socket')))
    if hasattr(os, 'posix_spawn'):
        guards.append((os, 'posix_spawn', _forbidden('started a process')))
    return guards


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Each unit test's setup, call and teardown run under the guards
    (this hook sees every test of the session: the others are left)."""
    if not os.path.abspath(str(item.fspath)).startswith(HERE):
        yield
        return
    saved = []
    for owner, name, replacement in _guards():
        saved.append((owner, name, owner.__dict__.get(name)))
        setattr(owner, name, replacement)
    try:
        yield
    finally:
        for owner, name, original in reversed(saved):
            if original is None:
                delattr(owner, name)
            else:
                setattr(owner, name, original)

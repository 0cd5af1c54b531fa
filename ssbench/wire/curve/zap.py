"""The master's ZAP authenticator: admits the workers whose CURVE public
key is in its key directory and refuses everyone else during the handshake.

It serves libzmq's ZAP requests (RFC 27) on the master's context, from a
greenlet for a gevent master and from an OS thread otherwise, and queues
what it has to say for the owner's thread to log.
"""
from __future__ import absolute_import, division, print_function

import collections
import logging
import sys
import threading
import time

import zmq
from zmq.utils import z85

from ssbench.compat import PY2
from ssbench.errors import TransportError
from ssbench.wire.poller import HubPoller

log = logging.getLogger(__name__)

ZAP_ENDPOINT = 'inproc://zeromq.zap.01'
ZAP_DOMAIN = b'ssbench'

# libzmq before 4.3.5 (4.3.2 is the one seen) gives a bound socket's pipe to
# a connection before its handshake ends, so a job sent at that moment to
# a worker that is then refused is dropped.  (Newer ones: never sent.)
_OLD_LIBZMQ = '' if zmq.zmq_version_info() >= (4, 3, 5) else (
    '; with libzmq %s a job sent during its handshake may be lost: use '
    'libzmq 4.3.5 or later' % (zmq.zmq_version(),))


def key_name(raw_key):
    """A raw 32-byte public key as its printable Z85 text."""
    try:
        return z85.encode(raw_key).decode('ascii')
    except (ValueError, TypeError):
        return repr(raw_key)


def _close_quietly(sock):
    """Close a socket, whatever state it and its context are in (pyzmq
    may raise ContextTerminated even from `closed` once term started)."""
    try:
        sock.close(linger=0)
    except zmq.ZMQError:
        pass


def _start_real_thread(target):
    """Run target in an OS thread even under gevent's monkey-patching
    (where threading.Thread would be a greenlet); returns a joinable
    thread, or None when only a raw thread could be had."""
    monkey = sys.modules.get('gevent.monkey')
    if monkey is not None and monkey.is_module_patched('threading'):
        start = monkey.get_original('thread' if PY2 else '_thread',
                                    'start_new_thread')
        start(target, ())
        return None
    thread = threading.Thread(target=target, name='ssbench-zap')
    thread.daemon = True
    thread.start()
    return thread


class ZapHandler(object):
    """Answers libzmq's ZAP requests for one context: CURVE clients whose
    public key is in `accepted` get in, everything else is refused.

    It serves from a greenlet when `green` (so it cooperates with a
    gevent master) and from an OS thread otherwise (so it runs
    whatever the master's thread is doing).  Log lines are queued in
    `notes` and written by the owner's thread (see _Sockets._flush()).
    """

    def __init__(self, context, green, accepted, directory):
        self.accepted = accepted
        self.directory = directory
        self.notes = collections.deque()
        self.refused = {}       # raw key -> handshakes refused
        self.admitted = {}      # raw key -> handshakes accepted
        self._green = green
        self._runner = self._thread = None
        self.sock = context.socket(zmq.REP)
        self.sock.setsockopt(zmq.LINGER, 0)
        try:
            self.sock.bind(ZAP_ENDPOINT)
        except zmq.ZMQError as exc:
            self.sock.close(linger=0)
            raise TransportError('cannot start the CURVE authenticator: %s'
                                 % (exc,))
        if green:
            import gevent
            self._runner = gevent.spawn(self._serve)
        else:
            self._thread = _start_real_thread(self._serve)

    def _serve(self):
        sock = self.sock
        wait = HubPoller(sock).poll if self._green else None
        try:
            while True:
                try:
                    if wait is not None:
                        wait()
                    frames = sock.recv_multipart()
                    try:
                        reply = self.answer(frames)
                    except Exception as exc:  # never leave REP half-way
                        reply = [b'1.0', frames[1] if len(frames) > 1
                                 else b'', b'500', b'internal error', b'',
                                 b'']
                        self.notes.append((logging.WARNING,
                                           'CURVE authenticator: %r' % exc))
                    sock.send_multipart(reply)
                except zmq.ZMQError as exc:
                    if exc.errno in (zmq.ETERM, zmq.ENOTSOCK):
                        return
                    self.notes.append((logging.WARNING,
                                       'CURVE authenticator: %s' % (exc,)))
                    self._pause()
        finally:
            _close_quietly(sock)

    def _pause(self):
        """Keep an unexpected error from spinning (never exit: handshakes
        need an answer, and a refusal is the safe default)."""
        if self._green:
            import gevent
            gevent.sleep(0.1)
        else:
            time.sleep(0.1)

    def answer(self, frames):
        """The ZAP reply frames (RFC 27) for one request's frames."""
        if len(frames) < 6:
            return [b'1.0', b'', b'500', b'malformed ZAP request', b'', b'']
        version, request_id, _domain, address, _identity, mechanism = \
            frames[:6]
        credentials = frames[6:]
        key = credentials[0] if mechanism == b'CURVE' and credentials \
            else None
        name = self.accepted.get(key) if version == b'1.0' else None
        where = address.decode('ascii', 'replace') or 'an unknown address'
        if name is not None:
            if key not in self.admitted:
                self.notes.append((logging.DEBUG,
                                   'CURVE: accepted worker key %s (%s) from '
                                   '%s' % (name, key_name(key), where)))
            self.admitted[key] = self.admitted.get(key, 0) + 1
            return [b'1.0', request_id, b'200', b'OK',
                    name.encode('utf-8'), b'']
        if key not in self.refused:
            shown = key_name(key) if key else mechanism.decode(
                'ascii', 'replace')
            self.notes.append((
                logging.WARNING,
                'CURVE: refused a worker at %s: its public key %s is not in '
                '%s (it gets no job; further refusals of this key are not '
                'logged)%s' % (where, shown, self.directory, _OLD_LIBZMQ)))
        self.refused[key] = self.refused.get(key, 0) + 1
        return [b'1.0', request_id, b'400', b'unknown CURVE key', b'', b'']

    def stop_green(self):
        """Before the context ends: stop the greenlet (which closes the
        socket).  An OS thread stops when the context terminates."""
        if self._runner is not None:
            self._runner.kill(block=True, timeout=5)
            self._runner = None
        if self._green:
            _close_quietly(self.sock)

    def join(self, timeout=5.0):
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

"""What the CURVE handshakes of the ZeroMQ sockets tell, and who hears it.

With CURVE (ssbench.wire.transport, `curve=`), libzmq reports each handshake on
a monitor socket.  The master hints once at workers set up without CURVE
or for another master (its ZAP handler speaks about refused keys); a
worker stops when the master refused its key or runs without CURVE (it
could never get a job), and logs other failures, which look like a peer
that hangs up.
"""
from __future__ import absolute_import, division, print_function

import logging
import struct

import zmq

from ssbench.wire.curve.greeting import peer_mechanism
from ssbench.wire.curve.keys import (CURVE_MASTER, CURVE_WORKER, CurveError,
                                     curve_key_paths)

# Logged as from the transport, where these lines always came from.
log = logging.getLogger('ssbench.wire.transport')

# A worker gives up (CurveError) when the master refused its key or spoke
# another protocol (no CURVE there): libzmq may not retry after those.  The
# first failure without detail of a run of them is checked with a greeting
# of its own (greeting.py: a master without CURVE may hang up before its
# own greeting is read).  Other failures are logged once this many happened
# in a row (libzmq retries every 100 ms).
HANDSHAKE_FAILURES_LOGGED = 5

_HANDSHAKE_EVENTS = dict(
    (getattr(zmq, name), kind) for name, kind in (
        ('EVENT_HANDSHAKE_SUCCEEDED', 'ok'),
        ('EVENT_HANDSHAKE_FAILED_AUTH', 'auth'),
        ('EVENT_HANDSHAKE_FAILED_PROTOCOL', 'protocol'),
        ('EVENT_HANDSHAKE_FAILED_NO_DETAIL', 'failed'))
    if hasattr(zmq, name))


def monitor_handshakes(pairs):
    """[(monitor socket, label)] watching the handshakes of each
    (socket, label) pair; [] when this libzmq reports none."""
    if not _HANDSHAKE_EVENTS:
        return []
    mask = 0
    for event in _HANDSHAKE_EVENTS:
        mask |= event
    return [(sock.get_monitor_socket(mask), label) for sock, label in pairs]


def handshake_events(monitors):
    """(kind, label) of each handshake the monitors reported so far: kind
    is 'ok', 'auth', 'protocol' or 'failed'."""
    for monitor, where in monitors:
        while True:
            try:
                frames = monitor.recv_multipart(zmq.NOBLOCK)
            except zmq.ZMQError:
                break
            if not frames or len(frames[0]) < 6:
                continue
            event = struct.unpack('=H', frames[0][:2])[0]
            kind = _HANDSHAKE_EVENTS.get(event)
            if kind is not None:
                yield kind, where


def enforce_zap(sock):
    """Fail closed: without this, libzmq lets every CURVE client in when
    no ZAP handler answers (e.g. while the master shuts down)."""
    try:
        sock.setsockopt(getattr(zmq, 'ZAP_ENFORCE_DOMAIN', 93), 1)
    except zmq.ZMQError:  # pragma: no cover - libzmq before 4.3
        log.debug('this libzmq cannot enforce ZAP; relying on the handler')


class MasterHandshakes(object):
    """The master's ear: one hint at the first failed handshake."""

    failure = None          # the master never gives up on handshakes

    def __init__(self):
        self._said = False

    def seen(self, kind, where):
        if kind in ('ok', 'auth') or self._said:
            return
        self._said = True
        log.warning('CURVE: a handshake on the %s failed (%s): a worker '
                    'without --zmq-curve-dir, or with another master\'s '
                    'master.key?  Further failures are not logged', where,
                    kind)


class WorkerHandshakes(object):
    """A worker's ear.  A refusal by the master, or a protocol error (a
    master without CURVE), becomes `failure` (a CurveError the worker's
    sockets raise), and so does a failure without detail where the master
    greets with NULL when asked (`probe`: greeting.peer_mechanism).  Other
    failures (a wrong master.key looks like a peer that hangs up, as does
    a proxy whose master is down) are only logged."""

    def __init__(self, curve_dir, probe=peer_mechanism):
        self.curve_dir = curve_dir
        self._probe = probe
        self.failure = None
        self._failures = {}       # endpoint -> failed handshakes in a row
        self._ok = False

    def seen(self, kind, where):
        if kind == 'ok':
            if self._failures.get(where) or not self._ok:
                log.info('CURVE handshake with %s succeeded', where)
            self._failures[where] = 0
            self._ok = True
            return
        count = self._failures[where] = self._failures.get(where, 0) + 1
        master_key = curve_key_paths(self.curve_dir, CURVE_MASTER)[0]
        message = None
        if kind == 'auth':
            message = ('the master at %s refused this worker\'s CURVE key '
                       '(%s): give the worker the worker.key_secret of the '
                       'master\'s --zmq-curve-dir, or copy this public key '
                       'there as NAME.key and restart the master'
                       % (where, curve_key_paths(self.curve_dir,
                                                 CURVE_WORKER)[0]))
        elif kind == 'protocol':
            message = ('CURVE handshake with %s failed with a protocol '
                       'error: does the master there run with '
                       '--zmq-curve-dir?' % (where,))
        elif kind == 'failed' and count == 1 and \
                self._probe(where) == 'NULL':
            message = ('CURVE handshake with %s failed, and the peer '
                       'there greets without CURVE: does the master there '
                       'run with --zmq-curve-dir?' % (where,))
        if message is not None:
            if self.failure is None:
                self.failure = CurveError(message)
        elif count == HANDSHAKE_FAILURES_LOGGED:
            log.warning('CURVE handshakes with %s keep failing: is %s the '
                        'public key of the master there, and does it run '
                        'with --zmq-curve-dir? (still trying)', where,
                        master_key)
        else:
            log.debug('CURVE handshake with %s failed (%s)', where, kind)

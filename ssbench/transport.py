"""ZeroMQ sockets between master and workers: the only module that knows zmq.

The master binds a PUSH socket (jobs) and a PULL socket (results); a worker
connects a PULL and a PUSH socket to them.  Every payload is one bytes frame
(see ssbench.protocol).  Receives take a timeout so no caller can hang on a
lost peer, and zmq failures surface as TransportError with one clear line.

Opt-in encryption: pass `curve=CurveKeys(...)` to both ends.  The master
holds a secret certificate, workers the master's public certificate (files
in zmq.auth's format, see create_curve_keys()).  This encrypts the traffic
(credentials in CONFIGURE jobs included) and proves the master's identity
to workers; it does not restrict which workers may connect.
"""
from __future__ import absolute_import, division, print_function

import errno
import importlib
import logging
import socket
import sys

import zmq

from ssbench.errors import TransportError

log = logging.getLogger(__name__)

# PUSH/PULL never drop at the high-water mark, they block (or report
# EAGAIN); the marks are generous so that the master's own flow control
# (at most user_count jobs out), not ZMQ, is what limits traffic.
WORK_HWM = 10000
RESULTS_HWM = 100000
# ZMTP heartbeats notice a dead peer long before TCP would.
ZMTP_HEARTBEAT_IVL_MS = 5000
ZMTP_HEARTBEAT_TIMEOUT_MS = 15000
TCP_KEEPALIVE_IDLE_S = 60
TCP_KEEPALIVE_INTVL_S = 10
TCP_KEEPALIVE_CNT_S = 6


def _green_wanted():
    """True when this process has had gevent.monkey.patch_all() applied."""
    monkey = sys.modules.get('gevent.monkey')
    return bool(monkey is not None and monkey.is_module_patched('socket'))


def _zmq_module(green):
    if green is None:
        green = _green_wanted()
    if green:
        return importlib.import_module('zmq.green')
    return zmq


def resolve(host, what):
    """Return (address, is_ipv6) for a host name or literal; IPv4 wins."""
    host = (host or '').strip()
    if host.startswith('[') and host.endswith(']'):
        host = host[1:-1]
    if host in ('', '*'):
        return '0.0.0.0', False
    try:
        infos = socket.getaddrinfo(host, None, 0, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, 'strerror', None) or str(exc)
        raise TransportError('cannot resolve %s %r: %s' % (what, host, reason))
    for family in (socket.AF_INET, socket.AF_INET6):
        for info in infos:
            if info[0] == family:
                return info[4][0], family == socket.AF_INET6
    raise TransportError('cannot resolve %s %r: no IPv4 or IPv6 address'
                         % (what, host))


def endpoint(address, is_ipv6, port):
    """A tcp:// endpoint; port 0 asks for a free port (bind only)."""
    port_text = '*' if not port else str(int(port))
    if is_ipv6:
        return 'tcp://[%s]:%s' % (address, port_text)
    return 'tcp://%s:%s' % (address, port_text)


def _set_options(sock, is_ipv6, hwm):
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDHWM, hwm)
    sock.setsockopt(zmq.RCVHWM, hwm)
    sock.setsockopt(zmq.IPV6, 1 if is_ipv6 else 0)
    sock.setsockopt(zmq.TCP_KEEPALIVE, 1)
    sock.setsockopt(zmq.TCP_KEEPALIVE_IDLE, TCP_KEEPALIVE_IDLE_S)
    sock.setsockopt(zmq.TCP_KEEPALIVE_INTVL, TCP_KEEPALIVE_INTVL_S)
    sock.setsockopt(zmq.TCP_KEEPALIVE_CNT, TCP_KEEPALIVE_CNT_S)
    if hasattr(zmq, 'HEARTBEAT_IVL'):  # libzmq >= 4.2
        try:
            sock.setsockopt(zmq.HEARTBEAT_IVL, ZMTP_HEARTBEAT_IVL_MS)
            sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, ZMTP_HEARTBEAT_TIMEOUT_MS)
        except zmq.ZMQError:  # pragma: no cover - older libzmq at run time
            pass


class CurveKeys(object):
    """Key files for CURVE: `secret_file` on the master (its certificate
    with the secret key), `server_public_file` on a worker (the master's
    public certificate; the worker's own key pair is made per process)."""

    def __init__(self, secret_file=None, server_public_file=None):
        self.secret_file = secret_file
        self.server_public_file = server_public_file

    def __repr__(self):
        return 'CurveKeys(secret_file=%r, server_public_file=%r)' % (
            self.secret_file, self.server_public_file)


def create_curve_keys(directory, name='ssbench-master'):
    """Write a new key pair; returns (public_file, secret_file)."""
    import zmq.auth
    try:
        return zmq.auth.create_certificates(directory, name)
    except (IOError, OSError) as exc:
        raise TransportError('cannot write CURVE keys in %s: %s'
                             % (directory, exc))


def _load_key(path, secret):
    import zmq.auth
    try:
        public_key, secret_key = zmq.auth.load_certificate(path)
    except (IOError, OSError, ValueError) as exc:
        raise TransportError('cannot read CURVE key file %s: %s'
                             % (path, getattr(exc, 'strerror', None) or exc))
    if secret and not secret_key:
        raise TransportError('CURVE key file %s holds no secret key (use '
                             'the .key_secret file)' % (path,))
    return public_key, secret_key


def _curve_options(curve, server):
    """[(option, value)] to set on both sockets of one end, or []."""
    if curve is None:
        return []
    if not zmq.has('curve'):
        raise TransportError('this libzmq has no CURVE support')
    if server:
        if not curve.secret_file:
            raise TransportError('CURVE on the master needs its secret '
                                 'key file')
        public_key, secret_key = _load_key(curve.secret_file, True)
        return [(zmq.CURVE_SERVER, 1), (zmq.CURVE_PUBLICKEY, public_key),
                (zmq.CURVE_SECRETKEY, secret_key)]
    if not curve.server_public_file:
        raise TransportError('CURVE on a worker needs the master\'s public '
                             'key file')
    server_key = _load_key(curve.server_public_file, False)[0]
    public_key, secret_key = zmq.curve_keypair()
    return [(zmq.CURVE_SERVERKEY, server_key),
            (zmq.CURVE_PUBLICKEY, public_key),
            (zmq.CURVE_SECRETKEY, secret_key)]


def _timeout_ms(timeout):
    """zmq poll timeouts: milliseconds, -1 for forever."""
    if timeout is None:
        return -1
    return max(0, int(timeout * 1000))


class _Sockets(object):
    """Send/receive helpers shared by both ends."""

    _push = None
    _pull = None
    _context = None

    def send(self, data, timeout=None):
        """Queue one message; False when it could not go out in `timeout`
        seconds (None: wait as long as it takes, 0: don't wait)."""
        try:
            try:
                self._push.send(data, zmq.NOBLOCK)
                return True
            except zmq.Again:
                if timeout is not None and timeout <= 0:
                    return False
            if not self._push.poll(_timeout_ms(timeout), zmq.POLLOUT):
                return False
            self._push.send(data, zmq.NOBLOCK)
            return True
        except zmq.Again:
            return False
        except zmq.ZMQError as exc:
            raise TransportError('cannot send: %s' % (exc,))

    def recv(self, timeout=None):
        """The next message, or None after `timeout` seconds (None: wait)."""
        try:
            try:
                return self._pull.recv(zmq.NOBLOCK)
            except zmq.Again:
                if timeout is not None and timeout <= 0:
                    return None
            if not self._pull.poll(_timeout_ms(timeout), zmq.POLLIN):
                return None
            return self._pull.recv(zmq.NOBLOCK)
        except zmq.Again:
            return None
        except zmq.ZMQError as exc:
            raise TransportError('cannot receive: %s' % (exc,))

    def recv_nowait(self):
        """A message already queued, or None."""
        try:
            return self._pull.recv(zmq.NOBLOCK)
        except zmq.Again:
            return None
        except zmq.ZMQError as exc:
            raise TransportError('cannot receive: %s' % (exc,))

    def poll(self, timeout=None):
        """True when a message can be received within `timeout` seconds."""
        try:
            return bool(self._pull.poll(_timeout_ms(timeout), zmq.POLLIN))
        except zmq.ZMQError as exc:
            raise TransportError('cannot poll: %s' % (exc,))

    def close(self):
        """Close both sockets at once, discarding anything unsent."""
        for sock in (self._push, self._pull):
            if sock is not None and not sock.closed:
                sock.close(linger=0)
        if self._context is not None:
            self._context.term()
            self._context = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


class MasterSockets(_Sockets):
    """The master's end: binds PUSH (work) and PULL (results).

    `bind_ip` may be an IPv4 or IPv6 literal (`::` binds every v6 address,
    and v4 too where the OS allows dual-stack) or a host name.  A port of 0
    binds a free port; `work_port` / `results_port` hold the real ones.
    `green` selects zmq.green (None: when gevent has patched sockets).
    """

    def __init__(self, bind_ip, work_port, results_port, green=None,
                 curve=None):
        curve_options = _curve_options(curve, server=True)
        address, is_ipv6 = resolve(bind_ip, 'bind address')
        self.bind_ip = bind_ip
        zmq_mod = _zmq_module(green)
        self._context = zmq_mod.Context()
        try:
            self._push = self._context.socket(zmq.PUSH)
            self._pull = self._context.socket(zmq.PULL)
            _set_options(self._push, is_ipv6, WORK_HWM)
            _set_options(self._pull, is_ipv6, RESULTS_HWM)
            for option, value in curve_options:
                self._push.setsockopt(option, value)
                self._pull.setsockopt(option, value)
            self.work_port = self._bind(self._push, 'work', address,
                                        is_ipv6, work_port)
            self.results_port = self._bind(self._pull, 'results', address,
                                           is_ipv6, results_port)
        except BaseException:
            self.close()
            raise

    def _bind(self, sock, what, address, is_ipv6, port):
        where = endpoint(address, is_ipv6, port)
        try:
            sock.bind(where)
        except zmq.ZMQError as exc:
            shown = '[%s]:%s' % (address, port) if is_ipv6 else '%s:%s' % (
                address, port)
            hint = ''
            if exc.errno == errno.EADDRINUSE:
                hint = ' (is another ssbench-master running? choose ' \
                       'another --zmq-%s-port)' % what
            raise TransportError('cannot bind the %s socket to %s: %s%s'
                                 % (what, shown, exc.strerror, hint))
        last = sock.getsockopt(zmq.LAST_ENDPOINT)
        if not isinstance(last, str):
            last = last.decode('ascii')
        return int(last.rsplit(':', 1)[1])


class WorkerSockets(_Sockets):
    """A worker's end: connects PULL (work) and PUSH (results).

    The results socket only queues messages while the master is connected
    (ZMQ_IMMEDIATE), so a failed send(timeout=0) means "no master there";
    the worker uses that to notice a master that went away.
    """

    def __init__(self, host, work_port, results_port, green=True,
                 curve=None):
        curve_options = _curve_options(curve, server=False)
        address, is_ipv6 = resolve(host, 'master host')
        zmq_mod = _zmq_module(green)
        self._context = zmq_mod.Context()
        try:
            self._pull = self._context.socket(zmq.PULL)
            self._push = self._context.socket(zmq.PUSH)
            _set_options(self._pull, is_ipv6, WORK_HWM)
            _set_options(self._push, is_ipv6, RESULTS_HWM)
            self._push.setsockopt(zmq.IMMEDIATE, 1)
            for option, value in curve_options:
                self._pull.setsockopt(option, value)
                self._push.setsockopt(option, value)
            self.work_endpoint = endpoint(address, is_ipv6, work_port)
            self.results_endpoint = endpoint(address, is_ipv6, results_port)
            for sock, where in ((self._pull, self.work_endpoint),
                                (self._push, self.results_endpoint)):
                try:
                    sock.connect(where)
                except zmq.ZMQError as exc:
                    raise TransportError('cannot connect to %s: %s'
                                         % (where, exc.strerror))
        except BaseException:
            self.close()
            raise

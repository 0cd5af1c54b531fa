"""ZeroMQ sockets between master and workers: the only module that knows zmq.

The master binds a PUSH socket (jobs) and a PULL socket (results); a worker
connects a PULL and a PUSH socket to them.  Every payload is one bytes frame
(see ssbench.protocol).  Receives take a timeout so no caller can hang on a
lost peer, and zmq failures surface as TransportError with one clear line.

Opt-in CURVE: pass `curve=CurveKeys(directory)` to both ends (keys made by
create_curve_keys(), i.e. `python -m ssbench.curve keys DIR`).  Traffic is
encrypted (the credentials of CONFIGURE jobs included), workers know they
talk to the real master, and the master only lets in workers whose public
key is in its directory: any other worker is refused during the handshake,
so it is sent no job and nothing it sends arrives.
"""
from __future__ import absolute_import, division, print_function

import collections
import errno
import importlib
import logging
import os
import socket
import struct
import sys
import threading
import time

import zmq
from zmq.utils import z85

from ssbench.compat import monotonic
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


# --- CURVE -----------------------------------------------------------------
#
# One directory holds every key, in zmq.auth's certificate format (a
# `NAME.key` file holds a public key, `NAME.key_secret` the key pair):
#
#   master.key          the master's public key (workers need it)
#   master.key_secret   the master's key pair (the master only)
#   worker.key          a worker public key the master accepts
#   worker.key_secret   the workers' key pair (workers only)
#
# The master accepts exactly the workers whose public key is a `*.key` file
# of its directory (other than master.key); a ZAP handler on its context
# refuses every other key during the handshake, so such a worker is sent
# no job and nothing it sends is received.

CURVE_MASTER = 'master'
CURVE_WORKER = 'worker'
PUBLIC_SUFFIX = '.key'
SECRET_SUFFIX = '.key_secret'
ZAP_ENDPOINT = 'inproc://zeromq.zap.01'
ZAP_DOMAIN = b'ssbench'
KEYS_COMMAND = 'python -m ssbench.curve keys'

_Z85_CHARS = frozenset(
    '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'
    '.-:+=^!/*?&<>()[]{}@%$#')
_BANNERS = {
    (CURVE_MASTER, False): (
        '#   ZeroMQ CURVE Public Certificate: the ssbench master\'s public\n'
        '#   key, written %s.  Every worker needs a copy.\n\n'),
    (CURVE_MASTER, True): (
        '#   ZeroMQ CURVE **Secret** Certificate: the ssbench master\'s key\n'
        '#   pair, written %s.  Keep it private (mode 0600), on\n'
        '#   the master host only.\n\n'),
    (CURVE_WORKER, False): (
        '#   ZeroMQ CURVE Public Certificate: an ssbench worker public key,\n'
        '#   written %s.  The master accepts the workers holding\n'
        '#   its key pair while this file is in its --zmq-curve-dir.\n\n'),
    (CURVE_WORKER, True): (
        '#   ZeroMQ CURVE **Secret** Certificate: the ssbench worker key\n'
        '#   pair, written %s.  Keep it private (mode 0600), on\n'
        '#   the worker hosts only.\n\n'),
}


class CurveError(TransportError):
    """CURVE cannot be set up: a missing or bad key directory or file, or
    a libzmq without CURVE.  A setup mistake, hence exit status 2."""
    exit_status = 2


# libzmq before 4.3.5 (4.3.2 is the one seen) gives a bound socket's pipe to
# a connection before its handshake ends, so a job sent at that moment to
# a worker that is then refused is dropped.  (Newer ones: never sent.)
_OLD_LIBZMQ = '' if zmq.zmq_version_info() >= (4, 3, 5) else (
    '; with libzmq %s a job sent during its handshake may be lost: use '
    'libzmq 4.3.5 or later' % (zmq.zmq_version(),))


def _check_curve_support():
    if not zmq.has('curve'):
        raise CurveError('this libzmq (%s) was built without CURVE support; '
                         'install a pyzmq/libzmq with libsodium to use '
                         '--zmq-curve-dir' % (zmq.zmq_version(),))


def _key_text(key):
    return key.decode('ascii') if isinstance(key, bytes) else key


def _write_certificate(path, banner, public_key, secret_key=None):
    """Create `path` (which must not exist) with the key(s); a secret
    file is created with mode 0600 so it is never readable by others."""
    lines = [banner, 'metadata\n', 'curve\n',
             '    public-key = "%s"\n' % _key_text(public_key)]
    if secret_key is not None:
        lines.append('    secret-key = "%s"\n' % _key_text(secret_key))
    mode = 0o600 if secret_key is not None else 0o644
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        os.fchmod(fd, mode)
        os.write(fd, ''.join(lines).encode('ascii'))
    finally:
        os.close(fd)


def curve_key_paths(directory, name):
    """(public_file, secret_file) of key pair `name` in `directory`."""
    base = os.path.join(directory, name)
    return base + PUBLIC_SUFFIX, base + SECRET_SUFFIX


def create_curve_keys(directory):
    """Make `directory` (mode 0700 if new) and write a new master and a
    new worker key pair in it; returns the four paths written, in order
    master public, master secret, worker public, worker secret.  Refuses
    to overwrite existing keys."""
    _check_curve_support()
    paths = (curve_key_paths(directory, CURVE_MASTER) +
             curve_key_paths(directory, CURVE_WORKER))
    try:
        if not os.path.isdir(directory):
            os.makedirs(directory, 0o700)
        for path in paths:
            if os.path.lexists(path):
                raise CurveError('%s already exists; remove the old keys '
                                 'or choose another directory' % (path,))
        when = time.strftime('%Y-%m-%d %H:%M:%S')
        for name in (CURVE_MASTER, CURVE_WORKER):
            public_file, secret_file = curve_key_paths(directory, name)
            public_key, secret_key = zmq.curve_keypair()
            _write_certificate(secret_file, _BANNERS[name, True] % when,
                               public_key, secret_key)
            _write_certificate(public_file, _BANNERS[name, False] % when,
                               public_key)
    except (IOError, OSError) as exc:
        raise CurveError('cannot write CURVE keys in %s: %s'
                         % (directory, exc.strerror or exc))
    return paths


def _valid_z85_key(text):
    return len(text) == 40 and not set(text) - _Z85_CHARS


def read_curve_key_file(path, secret=False):
    """(public_key, secret_key) of a certificate file as Z85 bytes;
    secret_key is None in a public file.  Raises CurveError with one
    clear line for a missing, unreadable or garbled file, or (with
    `secret`) a file without a secret key or with mismatched keys."""
    try:
        with open(path, 'rb') as fp:
            data = fp.read(65536)
    except (IOError, OSError) as exc:
        raise CurveError('cannot read CURVE key file %s: %s'
                         % (path, exc.strerror or exc))
    found = {}
    for raw in data.splitlines():
        line = raw.strip()
        for field in (b'public-key', b'secret-key'):
            if line.startswith(field) and b'=' in line:
                value = line.split(b'=', 1)[1].strip(b' \t\'"')
                try:
                    text = value.decode('ascii')
                except UnicodeDecodeError:
                    text = ''
                if not _valid_z85_key(text):
                    raise CurveError('CURVE key file %s is garbled: its %s '
                                     'is not a 40-character Z85 key'
                                     % (path, field.decode('ascii')))
                found[field] = text.encode('ascii')
    public_key = found.get(b'public-key')
    secret_key = found.get(b'secret-key')
    if public_key is None:
        raise CurveError('CURVE key file %s is garbled: no public-key line '
                         '(make keys with: %s DIR)' % (path, KEYS_COMMAND))
    if secret and secret_key is None:
        raise CurveError('CURVE key file %s holds no secret key (expected '
                         'the %s file)' % (path, SECRET_SUFFIX))
    if secret and hasattr(zmq, 'curve_public'):
        if zmq.curve_public(secret_key) != public_key:
            raise CurveError('CURVE key file %s is garbled: its public and '
                             'secret keys do not belong together' % (path,))
    if secret:
        _warn_if_shared(path)
    return public_key, secret_key


def _warn_if_shared(path):
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return
    if mode & 0o077:
        log.warning('CURVE secret key file %s can be read by other users; '
                    'chmod 600 it', path)


class CurveKeys(object):
    """The CURVE key directory of one end (see create_curve_keys()).

    Files are read once, when first needed (check(), or building a socket
    end): MasterSockets uses the master's key pair and the accepted worker
    keys, WorkerSockets the master's public key and the worker key pair.
    Errors are CurveError.
    """

    def __init__(self, directory):
        self.directory = directory
        self._master = self._worker = None

    def __repr__(self):
        return 'CurveKeys(%r)' % (self.directory,)

    def _check_directory(self):
        _check_curve_support()
        if not os.path.isdir(self.directory):
            reason = 'no such directory' if not os.path.exists(
                self.directory) else 'not a directory'
            raise CurveError('CURVE key directory %s: %s (make one with: '
                             '%s %s)' % (self.directory, reason,
                                         KEYS_COMMAND, self.directory))

    def master_keys(self):
        """((public, secret), {raw worker public key: name}) for the
        master; raises CurveError when no worker key is there."""
        if self._master is None:
            self._master = self._read_master_keys()
        return self._master

    def _read_master_keys(self):
        self._check_directory()
        own = read_curve_key_file(
            curve_key_paths(self.directory, CURVE_MASTER)[1], secret=True)
        try:
            names = sorted(os.listdir(self.directory))
        except OSError as exc:
            raise CurveError('cannot list CURVE key directory %s: %s'
                             % (self.directory, exc.strerror or exc))
        accepted = {}
        for name in names:
            stem = name[:-len(PUBLIC_SUFFIX)]
            if not name.endswith(PUBLIC_SUFFIX) or stem == CURVE_MASTER:
                continue
            path = os.path.join(self.directory, name)
            if not os.path.isfile(path):
                continue
            public_key = read_curve_key_file(path)[0]
            accepted[z85.decode(public_key)] = stem
        if not accepted:
            raise CurveError('CURVE key directory %s holds no worker public '
                             'key (a NAME%s file besides %s%s), so no worker '
                             'could connect' % (self.directory, PUBLIC_SUFFIX,
                                                CURVE_MASTER, PUBLIC_SUFFIX))
        return own, accepted

    def worker_keys(self):
        """(master public key, (public, secret)) for a worker."""
        if self._worker is None:
            self._check_directory()
            master_public = read_curve_key_file(
                curve_key_paths(self.directory, CURVE_MASTER)[0])[0]
            own = read_curve_key_file(
                curve_key_paths(self.directory, CURVE_WORKER)[1],
                secret=True)
            self._worker = (master_public, own)
        return self._worker

    def check(self, master=True, worker=False):
        """Read the keys each role needs, raising CurveError on trouble."""
        if master:
            self.master_keys()
        if worker:
            self.worker_keys()


def _key_name(raw_key):
    try:
        return z85.encode(raw_key).decode('ascii')
    except (ValueError, TypeError):
        return repr(raw_key)


def _monitor_handshakes(pairs):
    """[(monitor socket, label)] watching the handshakes of each
    (socket, label) pair; [] when this libzmq reports none."""
    if not _HANDSHAKE_EVENTS:
        return []
    mask = 0
    for event in _HANDSHAKE_EVENTS:
        mask |= event
    return [(sock.get_monitor_socket(mask), label) for sock, label in pairs]


def _enforce_zap(sock):
    """Fail closed: without this, libzmq lets every CURVE client in when
    no ZAP handler answers (e.g. while the master shuts down)."""
    try:
        sock.setsockopt(getattr(zmq, 'ZAP_ENFORCE_DOMAIN', 93), 1)
    except zmq.ZMQError:  # pragma: no cover - libzmq before 4.3
        log.debug('this libzmq cannot enforce ZAP; relying on the handler')


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
        start = monkey.get_original('_thread' if sys.version_info[0] > 2
                                    else 'thread', 'start_new_thread')
        start(target, ())
        return None
    thread = threading.Thread(target=target, name='ssbench-zap')
    thread.daemon = True
    thread.start()
    return thread


class _ZapHandler(object):
    """Answers libzmq's ZAP requests for one context: CURVE clients whose
    public key is in `accepted` get in, everything else is refused.

    It serves from a greenlet on a zmq.green context (so it cooperates
    with a gevent master) and from an OS thread otherwise (so it runs
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
        try:
            while True:
                try:
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
                                   '%s' % (name, _key_name(key), where)))
            self.admitted[key] = self.admitted.get(key, 0) + 1
            return [b'1.0', request_id, b'200', b'OK',
                    name.encode('utf-8'), b'']
        if key not in self.refused:
            shown = _key_name(key) if key else mechanism.decode('ascii',
                                                                'replace')
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


# A worker gives up (CurveError) when the master refused its key or spoke
# another protocol (no CURVE there): libzmq may not retry after those.  It
# logs other failures once this many happened in a row (libzmq retries
# every 100 ms).
HANDSHAKE_FAILURES_LOGGED = 5

_HANDSHAKE_EVENTS = dict(
    (getattr(zmq, name), kind) for name, kind in (
        ('EVENT_HANDSHAKE_SUCCEEDED', 'ok'),
        ('EVENT_HANDSHAKE_FAILED_AUTH', 'auth'),
        ('EVENT_HANDSHAKE_FAILED_PROTOCOL', 'protocol'),
        ('EVENT_HANDSHAKE_FAILED_NO_DETAIL', 'failed'))
    if hasattr(zmq, name))


def _left(deadline):
    """Seconds until `deadline` (None: no deadline)."""
    return None if deadline is None else deadline - monotonic()


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
    _zap = None            # master with CURVE: its _ZapHandler
    _monitors = ()         # with CURVE: [(monitor socket, endpoint)]
    _watch_at = 0.0
    _curve_dir = None
    _curve_failure = None

    def _flush(self):
        """Log what the CURVE machinery noticed, in the caller's thread."""
        zap = self._zap
        if zap is not None:
            while zap.notes:
                level, message = zap.notes.popleft()
                log.log(level, '%s', message)
        if self._monitors:
            now = time.time()
            if now >= self._watch_at:
                self._watch_at = now + 0.5
                self._watch_handshakes()

    def _watch_handshakes(self):
        for monitor, where in self._monitors:
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
                    self._handshake_seen(kind, where)

    def _handshake_seen(self, kind, where):
        """One handshake outcome ('ok', 'auth', 'protocol' or 'failed')
        of the socket at `where`; see the subclasses."""

    def _raise(self):
        """Stop a worker whose CURVE handshakes cannot succeed: waiting
        would only hide the problem."""
        if self._curve_failure is not None:
            raise self._curve_failure

    def send(self, data, timeout=None):
        """Queue one message; False when it could not go out in `timeout`
        seconds (None: wait as long as it takes, 0: don't wait)."""
        self._flush()
        deadline = None if timeout is None else monotonic() + timeout
        try:
            while True:
                try:
                    self._push.send(data, zmq.NOBLOCK)
                    return True
                except zmq.Again:
                    pass
                left = _left(deadline)
                if left is not None and left <= 0:
                    return False
                # POLLOUT may be reported while the send would still
                # block (a peer that went away meanwhile): try again.
                self._push.poll(_timeout_ms(left), zmq.POLLOUT)
        except zmq.ZMQError as exc:
            raise TransportError('cannot send: %s' % (exc,))

    def recv(self, timeout=None):
        """The next message, or None after `timeout` seconds (None: wait)."""
        self._flush()
        self._raise()
        deadline = None if timeout is None else monotonic() + timeout
        try:
            while True:
                try:
                    return self._pull.recv(zmq.NOBLOCK)
                except zmq.Again:
                    pass
                left = _left(deadline)
                if left is not None and left <= 0:
                    return None
                self._pull.poll(_timeout_ms(left), zmq.POLLIN)
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
        self._flush()
        self._raise()
        try:
            return bool(self._pull.poll(_timeout_ms(timeout), zmq.POLLIN))
        except zmq.ZMQError as exc:
            raise TransportError('cannot poll: %s' % (exc,))

    def close(self, linger=0):
        """Close both sockets, discarding what is still unsent after
        `linger` seconds on the PUSH socket (0: at once)."""
        socks = [monitor for monitor, _ in self._monitors]
        for sock in socks + [self._push, self._pull]:
            if sock is not None and not sock.closed:
                sock.close(linger=int(linger * 1000)
                           if sock is self._push else 0)
        self._monitors = ()
        zap = self._zap
        if zap is not None:           # only now: no socket left to guard
            zap.stop_green()
        if self._context is not None:
            self._context.term()      # ends an OS-thread ZAP handler too
            self._context = None
        if zap is not None:
            zap.join()
            self._flush()
            self._zap = None

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
        keys = curve.master_keys() if curve is not None else None
        address, is_ipv6 = resolve(bind_ip, 'bind address')
        self.bind_ip = bind_ip
        zmq_mod = _zmq_module(green)
        self._context = zmq_mod.Context()
        try:
            if keys is not None:
                # Bound before the sockets, so no handshake goes unchecked.
                self._zap = _ZapHandler(self._context, zmq_mod is not zmq,
                                        keys[1], curve.directory)
            self._push = self._context.socket(zmq.PUSH)
            self._pull = self._context.socket(zmq.PULL)
            _set_options(self._push, is_ipv6, WORK_HWM)
            _set_options(self._pull, is_ipv6, RESULTS_HWM)
            if keys is not None:
                (public_key, secret_key), _ = keys
                for sock in (self._push, self._pull):
                    sock.setsockopt(zmq.CURVE_SERVER, 1)
                    sock.setsockopt(zmq.CURVE_PUBLICKEY, public_key)
                    sock.setsockopt(zmq.CURVE_SECRETKEY, secret_key)
                    sock.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN)
                    _enforce_zap(sock)
            self.work_port = self._bind(self._push, 'work', address,
                                        is_ipv6, work_port)
            self.results_port = self._bind(self._pull, 'results', address,
                                           is_ipv6, results_port)
            if keys is not None:
                self._failure_said = False
                self._monitors = _monitor_handshakes([
                    (self._push, 'work port %d' % self.work_port),
                    (self._pull, 'results port %d' % self.results_port)])
        except BaseException:
            self.close()
            raise

    def _handshake_seen(self, kind, where):
        """Hint (once) at workers without CURVE or set up for another
        master; the ZAP handler speaks about refused keys."""
        if kind in ('ok', 'auth') or self._failure_said:
            return
        self._failure_said = True
        log.warning('CURVE: a handshake on the %s failed (%s): a worker '
                    'without --zmq-curve-dir, or with another master\'s '
                    'master.key?  Further failures are not logged', where,
                    kind)

    @property
    def curve_refusals(self):
        """{Z85 public key (None: not CURVE): refused handshakes}."""
        zap = self._zap
        if zap is None:
            return {}
        return dict((_key_name(key) if key else None, count)
                    for key, count in list(zap.refused.items()))

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

    With CURVE, recv() and poll() raise CurveError once the master has
    refused this worker's key or turned out to run without CURVE: such a
    worker could never get a job.  (A wrong master.key is only logged: it
    looks like a peer that hangs up, as a proxy without its master does.)
    """

    def __init__(self, host, work_port, results_port, green=True,
                 curve=None):
        keys = curve.worker_keys() if curve is not None else None
        address, is_ipv6 = resolve(host, 'master host')
        zmq_mod = _zmq_module(green)
        self._context = zmq_mod.Context()
        self._failures = {}       # endpoint -> failed handshakes in a row
        self._handshakes_ok = False
        try:
            self._pull = self._context.socket(zmq.PULL)
            self._push = self._context.socket(zmq.PUSH)
            _set_options(self._pull, is_ipv6, WORK_HWM)
            _set_options(self._push, is_ipv6, RESULTS_HWM)
            self._push.setsockopt(zmq.IMMEDIATE, 1)
            self.work_endpoint = endpoint(address, is_ipv6, work_port)
            self.results_endpoint = endpoint(address, is_ipv6, results_port)
            pairs = ((self._pull, self.work_endpoint),
                     (self._push, self.results_endpoint))
            if keys is not None:
                self._curve_dir = curve.directory
                server_key, (public_key, secret_key) = keys
                for sock, _ in pairs:
                    sock.setsockopt(zmq.CURVE_SERVERKEY, server_key)
                    sock.setsockopt(zmq.CURVE_PUBLICKEY, public_key)
                    sock.setsockopt(zmq.CURVE_SECRETKEY, secret_key)
                self._monitors = _monitor_handshakes(pairs)
            for sock, where in pairs:
                try:
                    sock.connect(where)
                except zmq.ZMQError as exc:
                    raise TransportError('cannot connect to %s: %s'
                                         % (where, exc.strerror))
        except BaseException:
            self.close()
            raise

    def _handshake_seen(self, kind, where):
        """A refusal by the master, or a protocol error (a master without
        CURVE), becomes `_curve_failure`, raised by recv()/poll().
        Other failures (a wrong master.key looks like a peer that hangs
        up, as does a proxy whose master is down) are only logged."""
        if kind == 'ok':
            if self._failures.get(where) or not self._handshakes_ok:
                log.info('CURVE handshake with %s succeeded', where)
            self._failures[where] = 0
            self._handshakes_ok = True
            return
        count = self._failures[where] = self._failures.get(where, 0) + 1
        master_key = curve_key_paths(self._curve_dir, CURVE_MASTER)[0]
        message = None
        if kind == 'auth':
            message = ('the master at %s refused this worker\'s CURVE key '
                       '(%s): give the worker the worker.key_secret of the '
                       'master\'s --zmq-curve-dir, or copy this public key '
                       'there as NAME.key and restart the master'
                       % (where, curve_key_paths(self._curve_dir,
                                                 CURVE_WORKER)[0]))
        elif kind == 'protocol':
            message = ('CURVE handshake with %s failed with a protocol '
                       'error: does the master there run with '
                       '--zmq-curve-dir?' % (where,))
        if message is not None:
            if self._curve_failure is None:
                self._curve_failure = CurveError(message)
        elif count == HANDSHAKE_FAILURES_LOGGED:
            log.warning('CURVE handshakes with %s keep failing: is %s the '
                        'public key of the master there, and does it run '
                        'with --zmq-curve-dir? (still trying)', where,
                        master_key)
        else:
            log.debug('CURVE handshake with %s failed (%s)', where, kind)

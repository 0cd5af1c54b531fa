"""CURVE key files for master-worker encryption: making, reading, checking.

`create_curve_keys(DIR)` (behind `python -m ssbench.cli.curve keys DIR`)
writes a master and a worker key pair; `CurveKeys(DIR)` reads what each
role needs.  ssbench.wire.transport puts the keys on its sockets and
ssbench.wire.curve.zap admits the workers whose public key the directory holds.
"""
from __future__ import absolute_import, division, print_function

import logging
import os
import time

import zmq
from zmq.utils import z85

from ssbench.errors import TransportError

log = logging.getLogger(__name__)

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
KEYS_COMMAND = 'python -m ssbench.cli.curve keys'

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

"""CURVE mode: the key directory (`python -m ssbench.cli.curve keys`), its
one-line errors, the ZAP rules, both command lines, and what crosses the
wire.  Socket-level admission tests live in test_transport.py."""
from __future__ import absolute_import, division, print_function

import io
import os
import shutil
import stat
import sys

import pytest
import zmq

from ssbench.wire.curve import zap
from ssbench.cli import curve as curve_cli
from ssbench.wire.curve.keys import (CurveError, CurveKeys, create_curve_keys,
                                     read_curve_key_file)
from ssbench.wire.transport import MasterSockets, WorkerSockets

pytestmark = pytest.mark.timeout(60)

FILES = ['master.key', 'master.key_secret', 'worker.key',
         'worker.key_secret']


def make_keys(tmpdir, name='keys'):
    path = str(tmpdir.join(name))
    create_curve_keys(path)
    return path


def text_of(path):
    with open(path) as fp:
        return fp.read()


def write(path, text):
    with open(path, 'w') as fp:
        fp.write(text)


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


# --- python -m ssbench.cli.curve keys --------------------------------------

def test_keys_command_layout_and_permissions(tmpdir):
    path = str(tmpdir.join('new', 'keys'))
    out = io.StringIO() if sys.version_info[0] > 2 else io.BytesIO()
    assert curve_cli.main(['keys', path], out=out) == 0
    assert sorted(os.listdir(path)) == FILES
    assert mode_of(path) == 0o700
    for name in FILES:
        file_mode = mode_of(os.path.join(path, name))
        if name.endswith('_secret'):
            assert file_mode == 0o600
        else:
            assert file_mode & 0o077 == file_mode & 0o044   # not writable
    shown = out.getvalue()
    for name in FILES:
        assert name in shown
    assert '--zmq-curve-dir %s' % path in shown
    # Readable by pyzmq's own loader, and each pair belongs together.
    import zmq.auth
    for name in ('master', 'worker'):
        public, none = zmq.auth.load_certificate(
            os.path.join(path, name + '.key'))
        public2, secret = zmq.auth.load_certificate(
            os.path.join(path, name + '.key_secret'))
        assert none is None and public == public2
        assert zmq.curve_public(secret) == public
    master = text_of(os.path.join(path, 'master.key'))
    worker = text_of(os.path.join(path, 'worker.key'))
    assert master != worker


def test_keys_command_never_overwrites(tmpdir, capsys):
    path = str(tmpdir.mkdir('keys'))
    os.chmod(path, 0o750)
    assert curve_cli.main(['keys', path]) == 0
    assert mode_of(path) == 0o750          # an existing dir is left alone
    before = dict((n, text_of(os.path.join(path, n))) for n in FILES)
    capsys.readouterr()
    assert curve_cli.main(['keys', path]) == 2
    err = capsys.readouterr().err
    assert err.startswith('ERROR:') and err.count('\n') == 1
    assert 'already exists' in err and 'master.key' in err
    assert dict((n, text_of(os.path.join(path, n))) for n in FILES) == before


def test_keys_command_unwritable_place(tmpdir, capsys):
    blocker = str(tmpdir.join('file'))
    write(blocker, 'x')
    assert curve_cli.main(['keys', os.path.join(blocker, 'keys')]) == 2
    err = capsys.readouterr().err
    assert err.startswith('ERROR:cannot write CURVE keys in ')
    assert err.count('\n') == 1


def test_keys_command_usage(capsys):
    assert curve_cli.main([]) == 2
    assert curve_cli.main(['keys']) == 2
    assert curve_cli.main(['-h']) == 0
    assert 'master.key_secret' in capsys.readouterr().out


def test_keys_made_by_pyzmq_work_too(tmpdir):
    import zmq.auth
    path = str(tmpdir.mkdir('keys'))
    zmq.auth.create_certificates(path, 'master')
    zmq.auth.create_certificates(path, 'worker')
    keys = CurveKeys(path)
    keys.check(master=True, worker=True)
    assert sorted(keys.master_keys()[1].values()) == ['worker']


# --- one-line errors ---------------------------------------------------------

def breakage(name):
    """Damage a fresh key dir; returns (role, fragment of the message)."""
    def other_pair(path, tmpdir_path):
        spare = os.path.join(tmpdir_path, 'spare')
        create_curve_keys(spare)
        return spare

    def apply(path, tmpdir_path):
        if name == 'missing master secret':
            os.remove(os.path.join(path, 'master.key_secret'))
            return 'master', 'cannot read CURVE key file %s' % os.path.join(
                path, 'master.key_secret')
        if name == 'public file as master secret':
            shutil.copy(os.path.join(path, 'master.key'),
                        os.path.join(path, 'master.key_secret'))
            return 'master', 'holds no secret key'
        if name == 'short key':
            key_file = os.path.join(path, 'worker.key')
            text = text_of(key_file)
            key = text.split('public-key = "')[1].split('"')[0]
            write(key_file, text.replace(key, key[:30]))
            return 'master', '%s is garbled' % key_file
        if name == 'bad character':
            key_file = os.path.join(path, 'master.key')
            text = text_of(key_file)
            key = text.split('public-key = "')[1].split('"')[0]
            write(key_file, text.replace(key, '~' + key[1:]))
            return 'worker', '%s is garbled' % key_file
        if name == 'empty worker key':
            write(os.path.join(path, 'worker.key'), '')
            return 'master', 'no public-key line'
        if name == 'mismatched pair':
            spare = other_pair(path, tmpdir_path)
            key_file = os.path.join(path, 'worker.key_secret')
            text = text_of(key_file)
            mine = text.split('public-key = "')[1].split('"')[0]
            theirs = text_of(os.path.join(spare, 'worker.key')).split(
                'public-key = "')[1].split('"')[0]
            write(key_file, text.replace(mine, theirs))
            return 'worker', 'do not belong together'
        if name == 'no worker key':
            os.remove(os.path.join(path, 'worker.key'))
            return 'master', 'holds no worker public key'
        if name == 'missing master public':
            os.remove(os.path.join(path, 'master.key'))
            return 'worker', 'cannot read CURVE key file %s' % os.path.join(
                path, 'master.key')
        if name == 'missing worker secret':
            os.remove(os.path.join(path, 'worker.key_secret'))
            return 'worker', 'worker.key_secret: No such file'
        raise AssertionError(name)
    return apply


BREAKAGES = ['missing master secret', 'public file as master secret',
             'short key', 'bad character', 'empty worker key',
             'mismatched pair', 'no worker key', 'missing master public',
             'missing worker secret']


@pytest.mark.parametrize('name', BREAKAGES)
def test_broken_key_dir_is_one_clear_error(tmpdir, name):
    path = make_keys(tmpdir)
    role, fragment = breakage(name)(path, str(tmpdir))
    keys = CurveKeys(path)
    with pytest.raises(CurveError) as info:
        if role == 'master':
            MasterSockets('127.0.0.1', 0, 0, green=False, curve=keys)
        else:
            WorkerSockets('127.0.0.1', 1, 2, green=False, curve=keys)
    message = str(info.value)
    assert fragment in message
    assert '\n' not in message
    assert info.value.exit_status == 2


@pytest.mark.parametrize('role', ['master', 'worker'])
def test_missing_or_bad_directory(tmpdir, role):
    missing = str(tmpdir.join('nope'))
    with pytest.raises(CurveError) as info:
        CurveKeys(missing).check(master=role == 'master',
                                 worker=role == 'worker')
    assert str(info.value) == (
        'CURVE key directory %s: no such directory (make one with: python '
        '-m ssbench.cli.curve keys %s)' % (missing, missing))
    a_file = str(tmpdir.join('file'))
    write(a_file, '')
    with pytest.raises(CurveError) as info:
        CurveKeys(a_file).check(master=role == 'master',
                                worker=role == 'worker')
    assert 'not a directory' in str(info.value)


@pytest.mark.skipif(hasattr(os, 'geteuid') and os.geteuid() == 0,
                    reason='root reads files whatever their mode')
def test_unreadable_secret(tmpdir):
    path = make_keys(tmpdir)
    secret = os.path.join(path, 'master.key_secret')
    os.chmod(secret, 0)
    with pytest.raises(CurveError) as info:
        CurveKeys(path).check()
    assert 'cannot read CURVE key file %s: Permission denied' % secret in \
        str(info.value)


def test_secret_readable_by_others_is_a_warning(tmpdir, caplog):
    path = make_keys(tmpdir)
    secret = os.path.join(path, 'master.key_secret')
    os.chmod(secret, 0o644)
    CurveKeys(path).check()
    assert 'CURVE secret key file %s can be read by other users' % secret \
        in caplog.text


def test_no_curve_in_libzmq(tmpdir, monkeypatch):
    path = make_keys(tmpdir)
    monkeypatch.setattr(zmq, 'has', lambda what: False)
    for call in (lambda: CurveKeys(path).check(),
                 lambda: CurveKeys(path).check(master=False, worker=True),
                 lambda: create_curve_keys(str(tmpdir.join('more')))):
        with pytest.raises(CurveError) as info:
            call()
        assert 'built without CURVE support' in str(info.value)
        assert info.value.exit_status == 2


def test_read_curve_key_file(tmpdir):
    path = make_keys(tmpdir)
    public, secret = read_curve_key_file(os.path.join(path, 'worker.key'))
    assert len(public) == 40 and secret is None
    public2, secret = read_curve_key_file(
        os.path.join(path, 'worker.key_secret'), secret=True)
    assert public2 == public and len(secret) == 40


# --- the ZAP rules -----------------------------------------------------------

def test_zap_admits_listed_keys_only():
    allowed_public = zmq.curve_keypair()[0]
    other_public = zmq.curve_keypair()[0]
    from zmq.utils import z85
    allowed = z85.decode(allowed_public)
    other = z85.decode(other_public)
    context = zmq.Context()
    handler = zap.ZapHandler(context, False, {allowed: 'worker'}, '/keys')
    try:
        def ask(key, version=b'1.0', mechanism=b'CURVE'):
            return handler.answer([version, b'7', b'ssbench', b'10.0.0.9',
                                   b'', mechanism, key])

        assert ask(allowed) == [b'1.0', b'7', b'200', b'OK', b'worker', b'']
        assert ask(other)[:3] == [b'1.0', b'7', b'400']
        assert ask(other)[:3] == [b'1.0', b'7', b'400']
        assert ask(allowed, version=b'2.0')[2] == b'400'
        assert ask(allowed, mechanism=b'PLAIN')[2] == b'400'
        assert handler.answer([b'1.0'])[2] == b'500'
        assert handler.refused[other] == 2
        assert handler.admitted == {allowed: 1}
        warnings = [text for level, text in handler.notes
                    if 'refused' in text]
        # One line per refused key: `other`, then the two odd requests'.
        assert len([w for w in warnings if other_public.decode() in w]) == 1
        assert '10.0.0.9' in warnings[0] and '/keys' in warnings[0]
    finally:
        context.term()          # ends the handler's thread (ETERM)
        handler.join()


# --- what crosses the wire ---------------------------------------------------

# --- the command lines -------------------------------------------------------

def test_worker_command_missing_dir(tmpdir, capsys):
    from ssbench.cli import worker as worker_cli
    missing = str(tmpdir.join('nope'))
    status = worker_cli.main(['--zmq-curve-dir', missing, '1'], env={},
                             patch=False)
    assert status == 2
    err = capsys.readouterr().err
    assert 'ERROR:CURVE key directory %s: no such directory' % missing in err
    assert 'Traceback' not in err


def test_master_kill_workers_missing_dir(tmpdir, capsys):
    from ssbench.cli import master as master_cli
    missing = str(tmpdir.join('nope'))
    assert master_cli.main(['kill-workers', '--zmq-curve-dir', missing,
                            '--zmq-work-port', '0', '--zmq-results-port',
                            '0']) == 2
    err = capsys.readouterr().err
    assert 'ERROR:CURVE key directory %s: no such directory' % missing in err

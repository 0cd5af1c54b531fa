"""A hostile auth server cannot take the key elsewhere, hold the master
forever or fill its memory: real `ssbench-master run-scenario` processes
against auth servers of tests/authservers.py on 127.0.0.1."""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from tests.authservers import (AuthServer, endless_chunk, grant, redirect,
                               tls_context, trickle)
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

GOOD = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
KEY = 'e2e-secret-key'
# Address space the capped master gets: enough to start (about 0.6 GB of
# mappings for Python, gevent and ZeroMQ), far from the 3 GiB an answer
# read whole would take.
ADDRESS_SPACE = 1 << 30


def v1(auth_url):
    return ['-A', auth_url, '-U', 'acc:usr', '-K', KEY]


def v3(server):
    """Keystone v3 options for the identity service at `server`."""
    return ['-V', '3', '--os-auth-url', 'http://127.0.0.1:%d/v3'
            % server.port, '--os-username', 'usr', '--os-password', KEY,
            '--os-project-name', 'prj', '--os-user-domain-name', 'Default',
            '--os-project-domain-name', 'Default']


def run_master(tmpdir, auth, extra=(), timeout=90, address_space=None):
    """run-scenario with the `auth` options, killed after `timeout`
    seconds, with RLIMIT_AS at `address_space` bytes if given; returns
    Ran."""
    argv = [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
            '-f', GOOD, '-s', str(tmpdir.join('run.stat'))] + list(auth) + \
        support.zmq_args() + list(extra)

    def limit():
        if address_space:
            import resource
            resource.setrlimit(resource.RLIMIT_AS,
                               (address_space, address_space))
    return support.run(argv, timeout, env=support.no_auth_env(),
                       preexec_fn=limit)


def one_error(ran, tmpdir):
    """The single ERROR line of a run refused at auth (exit 1)."""
    assert ran.status == 1, ran
    assert 'Traceback' not in ran.err and KEY not in ran.out + ran.err, ran
    lines = [line for line in ran.err.splitlines()
             if line.startswith('ERROR:')]
    assert len(lines) == 1, ran
    # Refused before anything ran: no stats file.
    assert tmpdir.listdir() == []
    return lines[0]


@pytest.mark.parametrize('where', [
    lambda other: other.url,                                  # port
    lambda other: other.url.replace('http:', 'https:'),       # scheme
    lambda other: 'http://127.0.0.2:%d/auth/v1.0' % other.port,   # host
], ids=['port', 'scheme', 'host'])
def test_the_key_does_not_follow_a_redirect_elsewhere(tmpdir, where):
    with AuthServer(grant) as other:
        target = where(other)
        with AuthServer(redirect(target, 301)) as first:
            ran = run_master(tmpdir, v1(first.url))
            assert len(first.heads) == 1
        assert other.heads == []
    assert one_error(ran, tmpdir) == (
        'ERROR:authentication failed at %s (as acc:usr, auth version 1.0): '
        '301 redirect to %s, another scheme, host or port: the key is not '
        'sent there (give that URL with -A if it is the auth server)'
        % (first.url, target))


def test_the_key_does_not_go_from_https_to_http_in_clear(tmpdir):
    tls = tls_context(str(tmpdir.mkdir('tls')))
    with AuthServer(grant) as clear:
        with AuthServer(redirect(clear.url), tls=tls) as first:
            out = tmpdir.mkdir('out')
            ran = run_master(out, v1(first.url) + ['--insecure'])
            assert len(first.heads) == 1     # TLS worked: it read the GET
        assert clear.heads == []
    assert one_error(ran, out) == (
        'ERROR:authentication failed at %s (as acc:usr, auth version 1.0): '
        '302 redirect to %s, another scheme, host or port: the key is not '
        'sent there (give that URL with -A if it is the auth server)'
        % (first.url, clear.url))


@pytest.mark.parametrize('body', [False, True], ids=['head', 'body'])
def test_a_trickling_auth_server_ends_at_the_network_timeout(tmpdir, body):
    # A header line (or a body byte) every 0.5 s never lets a 2 s receive
    # timeout fire: only the deadline of the whole answer ends it, where
    # before the master waited as long as the server went on.
    with AuthServer(trickle(0.5, body=body)) as server:
        ran = run_master(tmpdir, v1(server.url),
                         ['--network-timeout', '2'])
        assert len(server.heads) == 1
    assert one_error(ran, tmpdir) == (
        'ERROR:authentication failed at %s (as acc:usr, auth version 1.0): '
        'no complete answer within 2 s' % server.url)


def test_a_3_gib_auth_answer_is_refused_in_bounded_memory(tmpdir):
    with AuthServer(endless_chunk) as server:
        ran = run_master(tmpdir, v1(server.url),
                         address_space=ADDRESS_SPACE)
    assert one_error(ran, tmpdir) == (
        'ERROR:authentication failed at %s (as acc:usr, auth version 1.0): '
        'answer over 1048576 bytes: not a tempauth answer' % server.url)


def keystone_error(ran, tmpdir, server):
    line = one_error(ran, tmpdir)
    start = 'ERROR:authentication failed at http://127.0.0.1:%d/v3 (as ' \
        'usr, auth version 3): ' % server.port
    assert line.startswith(start), line
    return line[len(start):]


def require_keystoneauth():
    pytest.importorskip('keystoneauth1')


@pytest.mark.parametrize('body', [False, True], ids=['head', 'body'])
def test_a_trickling_keystone_ends_at_the_network_timeout(tmpdir, body):
    require_keystoneauth()
    with AuthServer(trickle(0.5, body=body)) as server:
        ran = run_master(tmpdir, v3(server), ['--network-timeout', '2'])
        assert len(server.heads) == 1
    assert keystone_error(ran, tmpdir, server) == \
        'no complete answer within 2 s'


def test_the_password_does_not_follow_a_redirect_elsewhere(tmpdir):
    require_keystoneauth()
    with AuthServer(grant) as other:
        with AuthServer(redirect(other.url, 307)) as server:
            ran = run_master(tmpdir, v3(server))
        assert other.heads == []
    assert keystone_error(ran, tmpdir, server) == (
        '307 redirect to %s, another scheme, host or port: the password is '
        'not sent there (give that URL with --os-auth-url if it is the '
        'identity service)' % other.url)


def test_a_3_gib_keystone_answer_is_refused_in_bounded_memory(tmpdir):
    require_keystoneauth()
    with AuthServer(endless_chunk) as server:
        ran = run_master(tmpdir, v3(server), address_space=ADDRESS_SPACE)
    assert keystone_error(ran, tmpdir, server) == \
        'answer over 16777216 bytes'

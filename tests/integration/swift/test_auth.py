"""swiftauth.py: auth options, authentication (v1.0 against a fake Swift
and canned answers, Keystone through a fake keystoneauth), token
renewal."""
from __future__ import absolute_import, division, print_function

import socket
import sys

import pytest

from ssbench.swift import auth as swiftauth
from ssbench.swift import keystone, tempauth
from ssbench.errors import SwiftAuthError
from ssbench.swift.auth import AuthOptions
from tests.authservers import (AuthServer, endless_chunk, grant, redirect,
                               refuse, trickle)
from tests.fakes import CannedServer, serve_fake_swift

pytestmark = pytest.mark.timeout(60)


fake = pytest.fixture(name='fake')(serve_fake_swift)


def v1(fake, **kwargs):
    return fake.v1_auth(**kwargs)


def test_authenticate_v1(fake):
    url, token, lifetime = swiftauth.authenticate(v1(fake))
    assert url == fake.storage_url
    assert token in fake.valid_tokens and lifetime is None


def test_authenticate_bad_key_one_line_no_secret(fake):
    auth = AuthOptions(auth_url=fake.auth_url, user='test:tester',
                       key='wrong-key-123')
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(auth)
    text = str(info.value)
    assert '401' in text and fake.auth_url in text
    assert 'wrong-key-123' not in text and '\n' not in text


def test_authenticate_unreachable():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    auth = AuthOptions(auth_url='http://127.0.0.1:%d/auth/v1.0' % port,
                       user='u', key='secret-key-456')
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(auth, timeout=5)
    text = str(info.value)
    assert str(port) in text and 'secret-key-456' not in text
    assert '\n' not in text


def canned_auth(*replies):
    """A CannedServer answering `replies` and v1.0 options for it."""
    server = CannedServer()
    server.replies.extend(replies)
    return server, AuthOptions(
        auth_url='http://127.0.0.1:%d/auth/v1.0' % server.port,
        user='acc:usr', key='the-key')


def test_tempauth_needs_no_swiftclient(fake, monkeypatch):
    monkeypatch.setitem(sys.modules, 'swiftclient', None)
    url, token, _ = swiftauth.authenticate(v1(fake))
    assert url == fake.storage_url and token in fake.valid_tokens


def test_tempauth_reads_the_seconds_its_token_has_left():
    server, auth = canned_auth(
        b'HTTP/1.1 200 OK\r\nX-Storage-Url: http://s/v1/AUTH_a\r\n'
        b'X-Auth-Token: AUTH_tk\r\nX-Auth-Token-Expires: 86399\r\n'
        b'Content-Length: 0\r\n\r\n')
    try:
        assert swiftauth.authenticate(auth, timeout=5) == (
            'http://s/v1/AUTH_a', 'AUTH_tk', 86399.0)
    finally:
        server.stop()


def test_tempauth_request_redirect_and_auth_token_header():
    server, auth = canned_auth(
        b'HTTP/1.1 301 Moved\r\nLocation: /auth/v1.0/\r\n'
        b'Content-Length: 0\r\n\r\n',
        b'HTTP/1.1 200 OK\r\nX-Storage-Url: http://s/v1/AUTH_a\r\n'
        b'X-Auth-Token: AUTH_tk\r\nContent-Length: 0\r\n\r\n')
    try:
        assert swiftauth.authenticate(auth, timeout=5) == (
            'http://s/v1/AUTH_a', 'AUTH_tk', None)
    finally:
        server.stop()
    heads = [head.decode('latin-1').split('\r\n')
             for _, head, _ in server.requests]
    assert [lines[0] for lines in heads] == [
        'GET /auth/v1.0 HTTP/1.1', 'GET /auth/v1.0/ HTTP/1.1']
    for lines in heads:
        assert 'X-Auth-User: acc:usr' in lines
        assert 'X-Auth-Key: the-key' in lines


def test_tempauth_page_without_storage_url_is_refused():
    server, auth = canned_auth(
        b'HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello')
    try:
        with pytest.raises(SwiftAuthError) as info:
            swiftauth.authenticate(auth, timeout=5)
    finally:
        server.stop()
    assert str(info.value) == (
        'authentication failed at %s (as acc:usr, auth version 1.0): '
        '200 OK' % auth.auth_url)


@pytest.fixture
def v2_stub():
    from tests.keystone_v2_stub import V2Stub
    stub = V2Stub('ten', 'usr', 'v2-secret', 'http://swift/v1/AUTH_t',
                  'v2-token').start()
    yield stub
    stub.stop()


def test_keystone_v2_token_catalog_and_lifetime(v2_stub):
    auth = AuthOptions(auth_version='2.0', os_auth_url=v2_stub.auth_url,
                       os_username='usr', os_password='v2-secret',
                       os_tenant_name='ten')
    url, token, lifetime = swiftauth.authenticate(auth, timeout=10)
    assert (url, token) == ('http://swift/v1/AUTH_t', 'v2-token')
    # Issued 2020-01-01, expires 2099-01-01, as the server says.
    import datetime
    assert lifetime == (datetime.date(2099, 1, 1) -
                        datetime.date(2020, 1, 1)).days * 86400


def test_keystone_versionless_url_and_tenant_in_user(v2_stub):
    root = v2_stub.auth_url[:-len('/v2.0')]
    auth = AuthOptions(auth_version='2.0', auth_url=root + '/',
                       user='ten:usr', key='v2-secret')
    assert swiftauth.authenticate(auth, timeout=10)[1] == 'v2-token'
    assert v2_stub.token_requests() == [('ten', 'usr', 'v2-secret')]


def test_keystone_refusal_is_one_line_without_the_password(v2_stub):
    auth = AuthOptions(auth_version='2.0', os_auth_url=v2_stub.auth_url,
                       os_username='usr', os_password='wrong-pass-789',
                       os_tenant_name='ten')
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(auth, timeout=10)
    text = str(info.value)
    assert text.startswith('authentication failed at %s (as usr, auth '
                           'version 2.0): 401' % v2_stub.auth_url)
    assert 'wrong-pass-789' not in text and '\n' not in text


def v1_at(url, key='the-key'):
    return AuthOptions(auth_url=url, user='acc:usr', key=key)


def auth_error(url, timeout=5):
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(v1_at(url), timeout=timeout)
    text = str(info.value)
    assert '\n' not in text and 'the-key' not in text
    return text


@pytest.mark.parametrize('where', [
    lambda other: other.url,                                 # another port
    lambda other: other.url.replace('http:', 'https:'),      # scheme
    lambda other: 'http://127.0.0.2:%d/auth/v1.0' % other.port,  # host
])
def test_the_key_never_follows_a_redirect_elsewhere(where):
    with AuthServer(grant) as other:
        target = where(other)
        with AuthServer(redirect(target)) as first:
            text = auth_error(first.url)
        assert other.heads == []
    assert text == (
        'authentication failed at %s (as acc:usr, auth version 1.0): 302 '
        'redirect to %s, another scheme, host or port: the key is not '
        'sent there (give that URL with -A if it is the auth server)'
        % (first.url, target))


def test_a_redirect_that_fails_is_named():
    def answer(server, sock, head):
        if b'GET /auth/v1.0 ' in head:
            redirect('/elsewhere')(server, sock, head)
        else:
            refuse(server, sock, head)
    with AuthServer(answer) as server:
        text = auth_error(server.url)
        assert len(server.heads) == 2
    assert text == (
        'authentication failed at http://127.0.0.1:%d/elsewhere (redirected '
        'from %s) (as acc:usr, auth version 1.0): 401 Unauthorized'
        % (server.port, server.url))


def test_redirects_end():
    with AuthServer(redirect('/auth/v1.0')) as server:
        text = auth_error(server.url)
        assert len(server.heads) == tempauth.MAX_REDIRECTS + 1
    assert text.endswith('more than %d redirects' % tempauth.MAX_REDIRECTS)


@pytest.mark.parametrize('body', [False, True], ids=['head', 'body'])
def test_a_trickling_server_ends_at_the_timeout(body):
    # Each piece comes well within the timeout; the whole never ends.
    with AuthServer(trickle(0.05, body=body)) as server:
        text = auth_error(server.url, timeout=0.5)
    assert text.endswith(': no complete answer within 0.5 s'), text


def test_a_huge_answer_is_refused_as_it_comes():
    with AuthServer(endless_chunk) as server:
        text = auth_error(server.url)
    assert text.endswith(': answer over %d bytes: not a tempauth answer'
                         % tempauth.MAX_ANSWER), text


def test_a_long_reason_is_cut():
    def answer(server, sock, head):
        sock.sendall(b'HTTP/1.1 403 ' + b'n' * 5000 +
                     b'\r\nContent-Length: 0\r\n\r\n')
    with AuthServer(answer) as server:
        text = auth_error(server.url)
    assert text.endswith(': 403 %s... (5000 characters)' % ('n' * 200))


def v3_at(url):
    return AuthOptions(auth_version='3', os_auth_url=url, os_username='usr',
                       os_password='the-password', os_project_name='prj',
                       os_user_domain_name='Default',
                       os_project_domain_name='Default')


def keystone_error(url):
    pytest.importorskip('keystoneauth1')
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(v3_at(url), timeout=5)
    text = str(info.value)
    assert '\n' not in text and 'the-password' not in text
    return text


def test_the_password_never_follows_a_redirect_elsewhere():
    with AuthServer(grant) as other:
        with AuthServer(redirect(other.url + '/v3/auth/tokens', 307)) \
                as first:
            text = keystone_error('http://127.0.0.1:%d/v3' % first.port)
            assert len(first.heads) == 1
        assert other.heads == []
    assert text.endswith(
        ': 307 redirect to %s/v3/auth/tokens, another scheme, host or port: '
        'the password is not sent there (give that URL with --os-auth-url '
        'if it is the identity service)' % other.url), text


def test_a_huge_keystone_answer_is_refused_as_it_comes():
    with AuthServer(endless_chunk) as server:
        text = keystone_error('http://127.0.0.1:%d/v3' % server.port)
    assert text.endswith(': answer over %d bytes'
                         % keystone.MAX_KEYSTONE_ANSWER), text

"""swiftauth.py: auth options, authentication (v1.0 against a fake Swift
and canned answers, Keystone through a fake keystoneauth), token
renewal."""
from __future__ import absolute_import, division, print_function

import socket
import sys

import pytest

from ssbench.swift import auth as swiftauth
from ssbench.swift import keystone, tempauth
from ssbench.errors import AuthConfigError, SwiftAuthError
from ssbench.swift.auth import AuthOptions, Credentials
from tests.authservers import (AuthServer, endless_chunk, grant, redirect,
                               refuse, trickle)
from tests.clocks import FakeClock
from tests.fakes import CannedServer, serve_fake_swift

pytestmark = pytest.mark.timeout(60)


fake = pytest.fixture(name='fake')(serve_fake_swift)


def v1(fake, **kwargs):
    return fake.v1_auth(**kwargs)


# -- AuthOptions -------------------------------------------------------

def test_repr_masks_secrets():
    auth = AuthOptions(auth_url='http://a/auth', user='u', key='sekrit',
                       os_password='pw-sekrit', token='tok-sekrit',
                       os_auth_token='ostok-sekrit')
    text = repr(auth)
    assert 'sekrit' not in text and 'sekrit' not in str(auth)
    assert "user='u'" in text and "key='***'" in text


def test_dict_roundtrip_ignores_unknown_keys():
    auth = AuthOptions(auth_url='u', user='x', key='k', storage_urls=['s'],
                       insecure=True, os_project_name='p')
    data = dict(auth.to_dict(), some_future_option=1)
    assert AuthOptions.from_dict(data) == auth
    assert AuthOptions.from_dict(data) != AuthOptions()
    with pytest.raises(TypeError):
        AuthOptions(bogus=1)


def test_v1_credentials():
    auth = AuthOptions(auth_url='http://a', user='u', key='k')
    assert auth.credentials() == ('1.0', 'http://a', 'u', 'k', {})
    assert auth.preset() is None
    assert auth.check() is auth


def test_fallback_to_keystone_v2():
    auth = AuthOptions(auth_url='http://a', user='u',  # no key
                       os_auth_url='http://ks/v2.0', os_username='ou',
                       os_password='op', os_tenant_name='t',
                       os_region_name='r')
    version, url, user, key, options = auth.credentials()
    assert (version, url, user, key) == ('2.0', 'http://ks/v2.0', 'ou', 'op')
    assert options == {'tenant_name': 't', 'region_name': 'r'}


def test_keystone_v3_by_version_or_domain():
    base = dict(os_auth_url='http://ks/v3', os_username='ou',
                os_password='op', os_project_name='p')
    assert AuthOptions(auth_version='3', **base).credentials()[0] == '3'
    auth = AuthOptions(os_user_domain_name='Default', **base)
    assert auth.credentials()[0] == '3'
    assert auth.credentials()[4]['user_domain_name'] == 'Default'
    assert AuthOptions(**base).credentials()[0] == '2.0'


def test_preset_storage_url_and_token():
    auth = AuthOptions(storage_urls=['http://s1', 'http://s2'], token='t')
    assert auth.preset() == (['http://s1', 'http://s2'], 't')
    assert auth.credentials() is None
    assert swiftauth.authenticate(auth) == ('http://s1', 't', None)
    auth = AuthOptions(os_storage_url='http://s', os_auth_token='t')
    assert auth.preset() == (['http://s'], 't')


def test_missing_credentials():
    with pytest.raises(AuthConfigError) as info:
        AuthOptions(auth_url='http://a', user='u').check()
    text = str(info.value)
    assert '-K/--key (ST_KEY)' in text and '-A' not in text.split(';')[0]
    assert '--os-auth-url' in text
    assert not AuthOptions(token='t').has_credentials()
    with pytest.raises(AuthConfigError):
        AuthOptions(auth_url='a', user='u', key='k',
                    auth_version='7').check()


# -- authenticate ----------------------------------------------------------

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


def test_an_unusable_expires_header_means_not_known():
    assert tempauth.seconds_left('0') == 0.0
    assert tempauth.seconds_left('12.5') == 12.5
    for value in (None, '', 'soon', '-1', 'nan', 'inf', '1e12'):
        assert tempauth.seconds_left(value) is None, value


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


def test_tempauth_unusable_url():
    auth = AuthOptions(auth_url='ftp://h/auth', user='u', key='k')
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(auth)
    assert 'unusable auth URL' in str(info.value)


# -- Keystone (v2.0 through the stub token server of the e2e tests) ---------

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


def test_keystone_url():
    assert keystone.keystone_url('http://k:5000', '3') == 'http://k:5000/v3'
    assert keystone.keystone_url('http://k/', '2.0') == 'http://k/v2.0'
    for url in ('http://k/v3', 'http://k/identity/v2.0/', 'http://k/v2'):
        assert keystone.keystone_url(url, '3') == url


# -- Credentials -------------------------------------------------------------

class Authenticator(object):
    """Token N is 'tkN'; each call yields to other greenlets first, as a
    request to a real auth server would."""

    def __init__(self, lifetime=None):
        self.lifetime = lifetime
        self.seen = []
        self.fail = None

    def __call__(self, auth, timeout=None):
        import gevent
        gevent.sleep(0.01)
        self.seen.append(auth)
        if self.fail is not None:
            raise self.fail
        return 'http://s/v1', 'tk%d' % len(self.seen), self.lifetime


def test_many_concurrent_renewals_authenticate_once():
    import gevent
    fake = Authenticator()
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'), authenticator=fake)
    first = credentials.current()
    assert (first.token, first.generation) == ('tk1', 1)
    assert credentials.current() is first
    renewals = [gevent.spawn(credentials.renew, first) for _ in range(20)]
    gevent.joinall(renewals, timeout=5)
    assert set(g.value.token for g in renewals) == set(['tk2'])
    assert credentials.grant.generation == 2 and len(fake.seen) == 2


def test_preset_token_first_then_the_credentials():
    fake = Authenticator()
    credentials = Credentials(
        AuthOptions(auth_url='http://a', user='u', key='k',
                    storage_urls=['http://s1', 'http://s2'], token='given'),
        authenticator=fake)
    first = credentials.current()
    assert (first.storage_urls, first.token) == (['http://s1', 'http://s2'],
                                                 'given')
    assert fake.seen == []
    second = credentials.renew(first)
    # -S still wins over the URL auth returns; the token given is not
    # sent to the auth server.
    assert (second.storage_urls, second.token) == (['http://s1',
                                                    'http://s2'], 'tk1')
    assert fake.seen[0].token is None


def test_preset_token_alone_cannot_be_renewed():
    credentials = Credentials(AuthOptions(storage_urls=['http://s'],
                                          token='t'))
    assert not credentials.renewable
    with pytest.raises(SwiftAuthError) as info:
        credentials.renew(credentials.current())
    assert 'no credentials' in str(info.value)


def test_renewal_due_a_tenth_of_its_life_before_the_expiry():
    clock = FakeClock(50.0)
    fake = Authenticator(lifetime=3600.0)
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=fake, clock=clock)
    assert credentials.current().token == 'tk1'
    # tempauth's tokens may be gone from memcache EARLY (2 s) before.
    assert credentials.expires_in() == 3598.0
    clock.now += 3537.0                    # a minute at most before
    assert not credentials.due()
    assert credentials.current().token == 'tk1'
    clock.now += 1.0
    assert credentials.due()
    # current() renews a token that is due.
    assert credentials.current().token == 'tk2'
    assert not credentials.due()
    # A failed renewal keeps the token (still good), and is tried again
    # RETRY_INTERVAL later, not on every use.
    clock.now += 3538.0
    fake.fail = SwiftAuthError('down')
    assert credentials.current().token == 'tk2'
    assert credentials.current().token == 'tk2'
    assert len(fake.seen) == 3
    clock.now += swiftauth.RETRY_INTERVAL
    fake.fail = None
    assert credentials.current().token == 'tk4'


def test_a_short_token_is_renewed_a_tenth_of_its_life_early():
    clock = FakeClock(50.0)
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=Authenticator(lifetime=3.0),
                              clock=clock)
    credentials.current()
    clock.now += 0.69
    assert not credentials.due()
    clock.now += 0.02                       # past 3 - EARLY - 0.3 s
    assert credentials.due()


class KeepingTempauth(object):
    """tempauth on `clock`: the token a user holds is handed out again
    until it expires (`life` seconds after it was made), with the whole
    seconds it has left (rounded down); each answer is computed
    `latency` seconds after the request went out, and received as much
    later."""

    def __init__(self, clock, life, latency=0.001):
        self.clock = clock
        self.life = life
        self.latency = latency
        self.made = []          # (token, expires)

    def __call__(self, auth, timeout=None):
        self.clock.advance(self.latency)
        now = self.clock()
        if not self.made or self.made[-1][1] <= now:
            self.made.append(('tk%d' % (len(self.made) + 1), now + self.life))
        token, expires = self.made[-1]
        self.clock.advance(self.latency)
        return 'http://s/v1', token, float(int(expires - now))

    def valid(self, token):
        """Whether Swift takes `token` now."""
        now = self.clock()
        return any(t == token and now < expires for t, expires in self.made)


def test_a_kept_token_is_never_used_past_its_expiry():
    """tempauth hands out a live token again: the renewal ahead only
    says more closely when it expires, requests wait from a little before
    that until the new one comes, and none goes out with a dead token."""
    clock = FakeClock(50.0)
    server = KeepingTempauth(clock, life=3)
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=server, clock=clock,
                              sleep=clock.sleep)
    used = []
    while clock.now < 62.0:
        grant = credentials.current()
        assert server.valid(grant.token), (clock.now, grant, server.made)
        used.append(grant.token)
        clock.advance(0.01)
    # A new token every 3 s, each generation one more.
    assert [t for t, _ in server.made] == ['tk%d' % n for n in range(1, 6)]
    assert credentials.grant.generation == len(server.made)
    assert sorted(set(used)) == [t for t, _ in server.made]
    # The waits (the server asked every POLL_INTERVAL) took no more than
    # the EARLY and the rounding down leave open.
    assert sum(clock.slept) < 3.1 * (len(server.made) - 1), clock.slept
    assert len(server.made) - 1 <= len(clock.slept) <= 40 * len(server.made)


def test_a_server_that_keeps_a_token_it_said_had_expired_gets_a_401():
    clock = FakeClock(50.0)

    def server(auth, timeout=None):
        return 'http://s/v1', 'same', float(int(max(0.0, 53.0 - clock())))
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=server, clock=clock,
                              sleep=clock.sleep)
    first = credentials.current()
    clock.now += 2.95
    # Waits and asks until GIVE_UP after the token must have expired,
    # then goes on with the token, to be renewed after a 401 as before.
    assert credentials.current() is first
    assert 53.0 < clock.now <= 56.1
    clock.now += 0.2
    credentials.current()                  # GIVE_UP past its latest expiry
    assert credentials.expiry is None and not credentials.due()
    assert not credentials.expiring()
    assert credentials.current() is first
    assert credentials.renew(first).generation == 2


def test_requests_wait_for_a_down_auth_server_only_so_long():
    clock = FakeClock(50.0)
    fake = Authenticator(lifetime=3.0)
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=fake, clock=clock,
                              sleep=clock.sleep)
    first = credentials.current()
    fake.fail = SwiftAuthError('down')
    clock.now += 2.95
    assert credentials.current() is first
    # GIVE_UP past the latest expiry (the answer's 3 s, and 1 for the
    # rounding down): a 401 then asks again.
    assert clock.now == pytest.approx(50.0 + 4.0 + swiftauth.GIVE_UP)
    assert not credentials.expiring()


def test_one_renewal_in_flight_the_others_keep_the_old_token():
    import gevent
    clock = FakeClock(50.0)
    fake = Authenticator(lifetime=3600.0)
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=fake, clock=clock)
    credentials.current()
    clock.now += 3550.0
    users = [gevent.spawn(credentials.current) for _ in range(50)]
    gevent.joinall(users, timeout=5)
    tokens = [g.value.token for g in users]
    # The first greenlet renews (its auth request yields); the 49 others
    # went on at once with the token they had.
    assert tokens.count('tk1') == 49 and tokens.count('tk2') == 1
    assert len(fake.seen) == 2
    assert credentials.current().token == 'tk2'


def test_unknown_lifetime_is_never_due():
    clock = FakeClock(50.0)
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=Authenticator(), clock=clock)
    credentials.current()
    clock.now += 10 ** 9
    assert not credentials.due()


# -- tempauth bounds: redirects, deadline, size --------------------------

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

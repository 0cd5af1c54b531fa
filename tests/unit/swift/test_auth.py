"""swiftauth.py: auth options, authentication (v1.0 against a fake Swift
and canned answers, Keystone through a fake keystoneauth), token
renewal."""
from __future__ import absolute_import, division, print_function


import pytest

from ssbench.swift import auth as swiftauth
from ssbench.swift import keystone, tempauth
from ssbench.errors import AuthConfigError, SwiftAuthError
from ssbench.swift.auth import AuthOptions, Credentials
from tests.clocks import FakeClock

pytestmark = pytest.mark.timeout(60)


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

def test_an_unusable_expires_header_means_not_known():
    assert tempauth.seconds_left('0') == 0.0
    assert tempauth.seconds_left('12.5') == 12.5
    for value in (None, '', 'soon', '-1', 'nan', 'inf', '1e12'):
        assert tempauth.seconds_left(value) is None, value


def test_tempauth_unusable_url():
    auth = AuthOptions(auth_url='ftp://h/auth', user='u', key='k')
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(auth)
    assert 'unusable auth URL' in str(info.value)


# -- Keystone (v2.0 through the stub token server of the e2e tests) ---------

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

"""Swift auth: the options, getting a token, and keeping one fresh.

`authenticate()` asks the auth server for a storage URL and a token:
with one GET of our own for v1.0 (ssbench.swift.tempauth), through
keystoneauth1 for Keystone v2.0 and v3 (ssbench.swift.keystone), whose
answer also says how long the token lives.  Both keep the bounds of
ssbench.swift.authrules: no key or password after a redirect to another
scheme, host or port, a deadline on the whole exchange, a cap on the
answer.
`Credentials` holds the current token (a Grant) and renews it: after a
401, at most once per token however many requests saw the 401, and ahead
of its expiry when the auth server said when that is.
"""
from __future__ import absolute_import, division, print_function

import logging

import gevent.lock

from ssbench.compat import monotonic
from ssbench.errors import AuthConfigError, SwiftAuthError
from ssbench.swift.authrules import (V1_VERSIONS, V2_VERSIONS, V3_VERSIONS,
                                     Redirected, cut)
from ssbench.swift.expiry import (GIVE_UP, GUARD, POLL_INTERVAL, Expiry,
                                  renewal_margin)
from ssbench.swift.keystone import keystone_token
from ssbench.swift.tempauth import tempauth_token

log = logging.getLogger(__name__)

# os_* options forwarded to keystone (swiftclient's os_options keys).
KEYSTONE_OPTIONS = ('tenant_id', 'tenant_name', 'project_name', 'project_id',
                    'user_domain_name', 'user_domain_id',
                    'project_domain_name', 'project_domain_id',
                    'region_name', 'service_type', 'endpoint_type')
_DOMAIN_OPTIONS = ('os_user_domain_name', 'os_user_domain_id',
                   'os_project_domain_name', 'os_project_domain_id')


class AuthOptions(object):
    """Everything needed to reach Swift; a value object.

    Field names follow the `swift` client's options.  `storage_urls` (from
    repeatable -S) override the storage URL auth returns; with `token` (-T)
    they skip auth altogether.  `os_all_endpoints`: Keystone's storage
    URLs are every matching endpoint of the catalog, not the first one.
    repr() masks every secret.
    """

    FIELDS = ('auth_version', 'auth_url', 'user', 'key',
              'os_username', 'os_password', 'os_tenant_id',
              'os_tenant_name', 'os_project_name', 'os_project_id',
              'os_user_domain_name', 'os_user_domain_id',
              'os_project_domain_name', 'os_project_domain_id',
              'os_auth_url', 'os_auth_token', 'os_storage_url',
              'os_region_name', 'os_service_type', 'os_endpoint_type',
              'os_cacert', 'insecure', 'storage_urls', 'token',
              'os_all_endpoints')
    SECRETS = ('key', 'os_password', 'os_auth_token', 'token')

    def __init__(self, **kwargs):
        unknown = set(kwargs) - set(self.FIELDS)
        if unknown:
            raise TypeError('unknown auth option(s): %s'
                            % ', '.join(sorted(unknown)))
        for field in self.FIELDS:
            setattr(self, field, kwargs.get(field))
        self.auth_version = str(self.auth_version or '1.0')
        self.insecure = bool(self.insecure)
        self.os_all_endpoints = bool(self.os_all_endpoints)
        self.storage_urls = [u for u in (self.storage_urls or []) if u]

    def to_dict(self):
        return dict((field, getattr(self, field)) for field in self.FIELDS)

    @classmethod
    def from_dict(cls, data):
        """Rebuild from to_dict(); keys this version does not know are
        ignored so a newer master can configure an older worker."""
        return cls(**dict((k, v) for k, v in (data or {}).items()
                          if k in cls.FIELDS))

    def __eq__(self, other):
        return (isinstance(other, AuthOptions) and
                self.to_dict() == other.to_dict())

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        parts = []
        for field in self.FIELDS:
            value = getattr(self, field)
            if not value or (field == 'auth_version' and value == '1.0'):
                continue
            if field in self.SECRETS:
                value = '***'
            parts.append('%s=%r' % (field, value))
        return 'AuthOptions(%s)' % ', '.join(parts)

    __str__ = __repr__

    # -- resolution ---------------------------------------------------

    def preset(self):
        """(storage_urls, token) given directly (-S and -T), or None."""
        urls = self.storage_urls or (
            [self.os_storage_url] if self.os_storage_url else [])
        token = self.token or self.os_auth_token
        if urls and token:
            return list(urls), token
        return None

    def credentials(self):
        """(auth_version, auth_url, user, key, os_options), or None when
        neither v1 nor v2/v3 credentials are complete.

        Incomplete v1 options (-A/-U/-K) fall back to the --os-* ones, which
        mean Keystone v3 when the version says so or a domain is given, and
        v2.0 otherwise (as the swift client decides).
        """
        os_options = {}
        for name in KEYSTONE_OPTIONS:
            value = getattr(self, 'os_' + name)
            if value:
                os_options[name] = value
        version = self.auth_version
        if self.auth_url and self.user and self.key:
            return version, self.auth_url, self.user, self.key, os_options
        if self.os_auth_url and self.os_username and self.os_password:
            if version not in V3_VERSIONS + V2_VERSIONS:
                version = '2.0'
            if any(getattr(self, name) for name in _DOMAIN_OPTIONS):
                version = '3'
            return (version, self.os_auth_url, self.os_username,
                    self.os_password, os_options)
        return None

    def has_credentials(self):
        return bool(self.preset() or self.credentials())

    def check(self):
        """Raise AuthConfigError naming what is missing."""
        if not self.has_credentials():
            missing = [flag for flag, value in (
                ('-A/--auth-url (ST_AUTH)', self.auth_url),
                ('-U/--user (ST_USER)', self.user),
                ('-K/--key (ST_KEY)', self.key)) if not value]
            raise AuthConfigError(
                'no Swift credentials: missing %s; give -A, -U and -K (or '
                'ST_AUTH, ST_USER, ST_KEY), or --os-auth-url, --os-username '
                'and --os-password (or OS_AUTH_URL, OS_USERNAME, '
                'OS_PASSWORD), or -S with -T' % ', '.join(missing))
        if self.auth_version not in V1_VERSIONS + V2_VERSIONS + V3_VERSIONS:
            raise AuthConfigError('unknown auth version %r (use 1.0, 2.0 '
                                  'or 3)' % (self.auth_version,))
        return self


def _scrub(text, secrets):
    for secret in secrets:
        if secret and len(secret) > 2:
            text = text.replace(secret, '***')
    return ' '.join(text.split())


def authenticate(auth, timeout=None):
    """Return (storage_url, token, lifetime) for `auth`.

    `lifetime` is the seconds the token has left as the server counts
    them (v1.0's X-Auth-Token-Expires, Keystone's expiry minus issue),
    None when not known (no such header, and -S with -T, which skips
    auth).  With auth.os_all_endpoints and Keystone, `storage_url`
    is the sorted list of every matching endpoint's URL (v1.0 has only
    one).  Failures raise SwiftAuthError with one line that names the
    auth URL (never a key, password or token).
    """
    auth.check()
    preset = auth.preset()
    if preset is not None:
        return preset[0][0], preset[1], None
    version, auth_url, user, key, os_options = auth.credentials()
    secrets = [getattr(auth, name) for name in auth.SECRETS]
    where = auth_url
    try:
        if version in V1_VERSIONS:
            storage_url, token, lifetime = tempauth_token(
                auth_url, user, key, auth, timeout)
        else:
            storage_url, token, lifetime = keystone_token(
                version, auth_url, user, key, os_options, auth, timeout)
    except Redirected as exc:
        where = '%s (redirected from %s)' % (cut(exc.url), auth_url)
        failure = exc.error
    except Exception as exc:  # sockets/keystone raise many unrelated types
        failure = exc
    else:
        failure = None
    if failure is not None:
        if isinstance(failure, SwiftAuthError):
            reason = str(failure)
        else:
            reason = _http_reason(failure)
        if reason is not None:
            raise SwiftAuthError('authentication failed at %s (as %s, auth '
                                 'version %s): %s' % (
                                     where, user, version,
                                     _scrub(reason, secrets)))
        raise SwiftAuthError('cannot authenticate at %s: %s: %s' % (
            where, type(failure).__name__, _scrub(str(failure), secrets)))
    if not storage_url or not token:
        raise SwiftAuthError('authentication at %s returned no storage URL '
                             'or token' % (auth_url,))
    return storage_url, token, lifetime


def _http_reason(exc):
    """'STATUS reason' of an auth server's refusal, None for other
    failures (unreachable server, bad TLS...)."""
    status = getattr(exc, 'http_status', None)
    if not status:
        return None
    reason = (getattr(exc, 'http_reason', None) or
              getattr(exc, 'message', None) or
              getattr(exc, 'msg', None) or str(exc))
    return '%s %s' % (status, reason)


# Seconds before a renewal that failed (the auth server is down...) is
# tried again.
RETRY_INTERVAL = 5.0


class Grant(object):
    """A token, the storage URLs to use it on, and its generation: 1 for
    the first token, one more for each renewal."""

    __slots__ = ('storage_urls', 'token', 'generation')

    def __init__(self, storage_urls, token, generation):
        self.storage_urls = list(storage_urls)
        self.token = token
        self.generation = generation

    def __repr__(self):
        return 'Grant(%r, ***, generation=%r)' % (self.storage_urls,
                                                  self.generation)


class Credentials(object):
    """The token source of whoever holds the credentials (`auth`).

    current() authenticates the first time (-S with -T: no request);
    renew(stale) authenticates again unless a token newer than the Grant
    `stale` exists, so that a burst of 401s costs one authentication.
    A token whose expiry the server gave (ssbench.swift.expiry) is renewed
    ahead of it by renew_due(), one greenlet at a time (the others go on
    with the token they hold).  A server that answers with the token it
    gave (tempauth keeps one until it expires) only tells more closely
    when that token expires: from GUARD before the earliest instant it
    may, current() waits for the new one, which the server is asked for
    every POLL_INTERVAL, rather than send a request that would meet a 401.
    `authenticator(auth, timeout=)`, `clock` and `sleep` are injectable
    for tests.
    """

    def __init__(self, auth, timeout=None, authenticator=authenticate,
                 clock=monotonic, sleep=None):
        self.auth = auth.check()
        self.renewable = auth.credentials() is not None
        self.timeout = timeout
        self.authenticator = authenticator
        self.clock = clock
        self._sleep = sleep
        self.grant = None
        self.expiry = None      # the current token's Expiry, if known
        self.renew_at = None
        # Greenlets share a Credentials (a worker's, the master's).
        self._lock = gevent.lock.Semaphore()

    def current(self, wait=True):
        """The Grant to use now: authenticates the first time, renews a
        token due for renewal, and (with `wait`) waits for a new token
        once the current one may have expired."""
        grant = self.grant
        if grant is None:
            return self.renew(None)
        # A token of no known expiry, or one far from it: every request
        # asks, so one clock reading and no call decide.
        renew_at = self.renew_at
        if renew_at is None:
            return grant
        now = self.clock()
        expiry = self.expiry
        if now < renew_at and (expiry is None or
                               now < expiry.earliest - GUARD):
            return grant
        self.renew_due()
        if wait and self.expiring():
            self._await_new()
        return self.grant

    def renew(self, stale, reason='the Swift token was rejected (401)'):
        """A Grant newer than `stale` (None: any Grant); `reason` is
        logged when that takes a new authentication."""
        with self._lock:
            grant = self.grant
            if grant is not None and (
                    stale is None or grant.generation != stale.generation):
                return grant
            self._authenticate(grant, reason)
            return self.grant

    def due(self):
        """True when the current token should be renewed before it
        expires (or, once it may have, the server asked again)."""
        return self.renew_at is not None and self.clock() >= self.renew_at

    def expires_in(self):
        """Seconds until the current token may expire; None when that is
        not known, or no longer awaited."""
        if self.expiry is None or self.renew_at is None:
            return None
        return self.expiry.earliest - self.clock()

    def expiring(self):
        """True from GUARD before the current token may expire until a new
        one comes (or GIVE_UP after it must have expired)."""
        left = self.expires_in()
        return left is not None and left <= GUARD and \
            self.clock() < self.expiry.latest + GIVE_UP

    def renew_due(self, wait=False):
        """Renew a token due for renewal; True when a new one came.  When
        a renewal is already under way, returns False at once (or, with
        `wait`, once it ended).  A failure is logged and tried again
        RETRY_INTERVAL later: the token it would have replaced is good
        until it expires."""
        if not self.due() or not self._lock.acquire(wait):
            return False
        try:
            stale = self.grant
            if not self.due():
                return False            # renewed while this one waited
            try:
                self._authenticate(stale, 'the Swift token expires soon',
                                   ahead=True)
            except SwiftAuthError as exc:
                self.renew_at = self.clock() + RETRY_INTERVAL
                log.warning('could not renew the Swift token (trying again '
                            'in %.0f s): %s', RETRY_INTERVAL, exc)
                return False
            return self.grant is not stale
        finally:
            self._lock.release()

    def _await_new(self):
        """Wait (asking the server on time) until a token newer than the
        current one comes, or the current one is no longer expiring."""
        stale = self.grant
        while self.grant is stale and self.expiring():
            left = min(self.renew_at,
                       self.expiry.latest + GIVE_UP) - self.clock()
            if left > 0:
                (self._sleep or gevent.sleep)(left)
            self.renew_due(wait=True)

    def _authenticate(self, grant, reason, ahead=False):
        """Make self.grant a token newer than `grant` (None: the first);
        `ahead` of its expiry, the server may hand out `grant`'s token
        again, which then stays current.  Under the lock."""
        preset = self.auth.preset()
        if grant is None and preset is not None:
            self.grant = Grant(preset[0], preset[1], 1)
            return
        if not self.renewable:
            raise SwiftAuthError('the token was rejected (401) and there '
                                 'are no credentials to get a new one')
        auth = self.auth
        if preset is not None:
            # -S with -T and credentials: the token given was rejected,
            # the credentials get the next one.
            auth = AuthOptions.from_dict(dict(
                auth.to_dict(), token=None, os_auth_token=None))
        if grant is not None:
            log.info('%s: authenticating again', reason)
        sent = self.clock()
        url, token, left = self.authenticator(auth, timeout=self.timeout)
        received = self.clock()
        expiry = None
        if left is not None:
            expiry = Expiry.of_answer(sent, received, left)
        if ahead and token == grant.token:
            self._kept(expiry, received)
            return
        urls = self.auth.storage_urls or (
            list(url) if isinstance(url, list) else [url])
        self.grant = Grant(urls, token,
                           1 if grant is None else grant.generation + 1)
        self.expiry = expiry
        self.renew_at = None
        if expiry is not None:
            self.renew_at = expiry.earliest - renewal_margin(left)

    def _kept(self, expiry, now):
        """The server answered a renewal with the current token: ask
        again when it may have expired; when it no longer says, says what
        cannot be of one expiry, or hands it out GIVE_UP after it must
        have expired, keep the token until a 401."""
        if expiry is not None and self.expiry is not None:
            expiry = self.expiry.narrowed(expiry)
            if expiry is None:
                log.warning('the auth server moved the expiry of its Swift '
                            'token: it is now renewed only when rejected '
                            '(401)')
        if expiry is not None and now > expiry.latest + GIVE_UP:
            log.warning('the auth server still hands out a Swift token '
                        'that should have expired: it is now renewed only '
                        'when rejected (401)')
            expiry = None
        self.expiry = expiry
        self.renew_at = None
        if expiry is not None:
            self.renew_at = max(expiry.earliest, now + POLL_INTERVAL)

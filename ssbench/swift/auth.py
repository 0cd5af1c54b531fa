"""Swift auth: the options, getting a token, and keeping one fresh.

`authenticate()` asks the auth server for a storage URL and a token:
with one GET of our own (ssbench.swift.httpconn) for v1.0 (tempauth), through
keystoneauth1 for Keystone v2.0 and v3, whose answer also says how long
the token lives.  Importing swiftclient (and with it requests and, when
installed, keystoneclient) only to send that GET cost a master about
0.2 s of CPU at every start.
`Credentials` holds the current token (a Grant) and renews it: after a
401, at most once per token however many requests saw the 401, and ahead
of its expiry when its lifetime is known.

The tempauth GET is bounded: the whole exchange, redirects included,
ends within `timeout` however slowly the server answers, an answer over
MAX_ANSWER bytes is refused as it comes, and the key is sent again after
a redirect only to the same scheme, host and port.  Keystone's exchange
has the same bounds (MAX_KEYSTONE_ANSWER for its catalog), its deadline
kept by a gevent timeout, which needs the gevent-patched sockets both
commands run with.
"""
from __future__ import absolute_import, division, print_function

import logging
import re
import socket

import gevent
import gevent.lock

from ssbench.compat import PY2, monotonic
from ssbench.errors import AuthConfigError, SwiftAuthError
from ssbench.swift.httpconn import HTTPConnection, ssl_context

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urlparse import urljoin, urlsplit
else:
    from urllib.parse import urljoin, urlsplit

log = logging.getLogger(__name__)

V1_VERSIONS = ('1', '1.0')
V2_VERSIONS = ('2', '2.0')
V3_VERSIONS = ('3',)

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
    they skip auth altogether.  repr() masks every secret.
    """

    FIELDS = ('auth_version', 'auth_url', 'user', 'key',
              'os_username', 'os_password', 'os_tenant_id',
              'os_tenant_name', 'os_project_name', 'os_project_id',
              'os_user_domain_name', 'os_user_domain_id',
              'os_project_domain_name', 'os_project_domain_id',
              'os_auth_url', 'os_auth_token', 'os_storage_url',
              'os_region_name', 'os_service_type', 'os_endpoint_type',
              'os_cacert', 'insecure', 'storage_urls', 'token')
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

    `lifetime` is the seconds from the token's issue to its expiry as
    Keystone gives them, None when not known (v1.0, and -S with -T, which
    skips auth).  Failures raise SwiftAuthError with one line that names
    the auth URL (never a key, password or token).
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
            storage_url, token, lifetime = _tempauth(auth_url, user, key,
                                                     auth, timeout)
        else:
            storage_url, token, lifetime = _keystone(
                version, auth_url, user, key, os_options, auth, timeout)
    except _Redirected as exc:
        where = '%s (redirected from %s)' % (_cut(exc.url), auth_url)
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


# Redirects of the v1.0 auth GET followed (as the requests library did
# for swiftclient), at most this many, and only to the same scheme, host
# and port: the key goes with every GET.
MAX_REDIRECTS = 5
_REDIRECTS = (301, 302, 303, 307, 308)
# Bytes of one tempauth answer, head and body, read at most: a real one
# is a few hundred.
MAX_ANSWER = 1 << 20
# Seconds the whole tempauth exchange may take when no timeout is given.
DEFAULT_TIMEOUT = 20.0
# Characters of a URL or reason phrase from the server kept in a message.
MAX_SHOWN = 200


def _cut(text):
    text = '%s' % (text,)
    if len(text) <= MAX_SHOWN:
        return text
    return '%s... (%d characters)' % (text[:MAX_SHOWN], len(text))


class _Redirected(Exception):
    """`error` ended the exchange at `url`, where a redirect led."""

    def __init__(self, url, error):
        Exception.__init__(self, url)
        self.url = url
        self.error = error


def _origin(url):
    """(scheme, host, port) of an http(s) URL, with the default port."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    return (scheme, (parts.hostname or '').lower(),
            port or {'http': 80, 'https': 443}.get(scheme))


def _tempauth(auth_url, user, key, auth, timeout, clock=monotonic):
    """(storage_url, token, None) from a tempauth (v1.0) GET, within
    `timeout` seconds in all."""
    headers = [('X-Auth-User', user), ('X-Auth-Key', key)]
    timeout = timeout or DEFAULT_TIMEOUT
    deadline = clock() + timeout
    url = auth_url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            status, reason, answer, body = _get(
                url, headers, auth, _Bounds(timeout, deadline, clock))
        except Exception as exc:
            if url == auth_url:
                raise
            raise _Redirected(url, exc)
        location = answer.get('location')
        if status not in _REDIRECTS or not location:
            break
        target = urljoin(url, location)
        if _origin(target) != _origin(url):
            raise SwiftAuthError(
                '%d redirect to %s, another scheme, host or port: the key '
                'is not sent there (give that URL with -A if it is the '
                'auth server)' % (status, _cut(target)))
        url = target
    else:
        raise SwiftAuthError('more than %d redirects' % MAX_REDIRECTS)
    storage_url = answer.get('x-storage-url')
    # A 2xx with a body but no storage URL is a page, not tempauth.
    if not 200 <= status < 300 or (body and not storage_url):
        error = SwiftAuthError('%d %s' % (status, _cut(reason)))
        if url == auth_url:
            raise error
        raise _Redirected(url, error)
    token = answer.get('x-storage-token', answer.get('x-auth-token'))
    return storage_url, token, None


def _get(url, headers, auth, bounds):
    """(status, reason, headers, body) of one GET on a new connection."""
    parts = urlsplit(url)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        raise SwiftAuthError('unusable auth URL %r' % (_cut(url),))
    context = None
    if parts.scheme == 'https':
        context = ssl_context(auth.os_cacert, auth.insecure)
    left = bounds.left()
    conn = _BoundedConnection(bounds, parts.hostname, parts.port or (
        443 if context is not None else 80), left, left, context)
    path = parts.path or '/'
    if parts.query:
        path += '?' + parts.query
    try:
        conn.send('GET', path, headers)
        resp = conn.read_response()
        body = conn.read_body()
    finally:
        conn.close()
    return resp.status, resp.reason, resp.headers, body


class _Bounds(object):
    """The deadline (on `clock`) and the byte budget of one answer."""

    def __init__(self, timeout, deadline, clock):
        self.timeout = timeout
        self.deadline = deadline
        self.clock = clock
        self.received = 0

    def left(self):
        """Seconds left; SwiftAuthError once none are."""
        left = self.deadline - self.clock()
        if left <= 0:
            raise self.expired()
        return left

    def expired(self):
        return SwiftAuthError('no complete answer within %g s'
                              % self.timeout)


class _BoundedConnection(HTTPConnection):
    """An HTTPConnection whose socket stops at `bounds`."""

    def __init__(self, bounds, *args):
        HTTPConnection.__init__(self, *args)
        self.bounds = bounds

    def connect(self):
        HTTPConnection.connect(self)
        self.sock = _BoundedSocket(self.sock, self.bounds)


class _BoundedSocket(object):
    """A socket whose receives end at the deadline of `bounds` (each one
    waits only for what is left of it, so a server trickling a byte at a
    time cannot stretch the exchange) and after MAX_ANSWER bytes (so a
    huge answer is refused as it comes, not held)."""

    def __init__(self, sock, bounds):
        self.sock = sock
        self.bounds = bounds

    def recv_into(self, buf, nbytes=0):
        bounds = self.bounds
        self.sock.settimeout(bounds.left())
        budget = MAX_ANSWER + 1 - bounds.received
        want = min(nbytes or len(buf), budget)
        try:
            got = self.sock.recv_into(buf, want)
        except socket.timeout:
            # It waited for what was left (the clocks may differ by a
            # hair): the deadline it is.
            raise bounds.expired()
        bounds.received += got
        if bounds.received > MAX_ANSWER:
            raise SwiftAuthError('answer over %d bytes: not a tempauth '
                                 'answer' % MAX_ANSWER)
        return got

    def __getattr__(self, name):
        return getattr(self.sock, name)


# The last path segment of an auth URL that names its identity version.
_VERSIONED = re.compile(r'v[23](\.0)?$')


def keystone_url(auth_url, version):
    """The identity endpoint: a versionless auth URL gets /v3 or /v2.0."""
    last = urlsplit(auth_url).path.rstrip('/').rsplit('/', 1)[-1]
    if _VERSIONED.match(last):
        return auth_url
    suffix = '/v3' if version in V3_VERSIONS else '/v2.0'
    return auth_url.rstrip('/') + suffix


def _scope(user, os_options):
    """(user, project name, project id): 'tenant:user' as the user names
    the tenant when no option does, as with the swift client."""
    name = os_options.get('project_name') or os_options.get('tenant_name')
    ident = os_options.get('project_id') or os_options.get('tenant_id')
    if not (name or ident) and ':' in user:
        name, user = user.split(':', 1)
    return user, name, ident


# Bytes of one Keystone answer read at most: a token with the service
# catalog of a large cloud is some hundreds of kB.
MAX_KEYSTONE_ANSWER = 16 << 20


class _CappedBody(object):
    """A urllib3 response (requests' Response.raw) whose body stream
    stops after `limit` bytes, as decoded, with SwiftAuthError."""

    def __init__(self, raw, limit):
        self._raw = raw
        self._limit = limit

    def stream(self, amt=65536, decode_content=None):
        got = 0
        for chunk in self._raw.stream(amt, decode_content=decode_content):
            got += len(chunk)
            if got > self._limit:
                raise SwiftAuthError('answer over %d bytes' % self._limit)
            yield chunk

    def __getattr__(self, name):
        return getattr(self._raw, name)


def _guard_keystone_answer(resp, **kwargs):
    """requests response hook, run before the body is read: no redirect
    to another scheme, host or port (keystoneauth1 would send the
    password again there), and a capped body."""
    location = resp.headers.get('location')
    if resp.status_code in _REDIRECTS and location:
        target = urljoin(resp.url, location)
        if _origin(target) != _origin(resp.url):
            raise SwiftAuthError(
                '%d redirect to %s, another scheme, host or port: the '
                'password is not sent there (give that URL with '
                '--os-auth-url if it is the identity service)'
                % (resp.status_code, _cut(target)))
    resp.raw = _CappedBody(resp.raw, MAX_KEYSTONE_ANSWER)
    return resp


def _keystone(version, auth_url, user, key, os_options, auth, timeout):
    """(storage_url, token, lifetime) from Keystone identity v2.0 or v3,
    within `timeout` seconds in all."""
    timeout = timeout or DEFAULT_TIMEOUT
    deadline = gevent.Timeout(timeout, SwiftAuthError(
        'no complete answer within %g s' % timeout))
    with deadline:
        return _keystone_answer(version, auth_url, user, key, os_options,
                                auth, timeout)


def _keystone_answer(version, auth_url, user, key, os_options, auth,
                     timeout):
    import requests
    from keystoneauth1 import session as ks_session
    from keystoneauth1.exceptions import EndpointNotFound
    from keystoneauth1.identity import v2, v3
    user, project_name, project_id = _scope(user, os_options)
    url = keystone_url(auth_url, version)
    # reauthenticate=False: the plugin would otherwise ask again for every
    # use of a token close to its expiry; renewing is Credentials' job.
    if version in V3_VERSIONS:
        plugin = v3.Password(
            url, username=user, password=key,
            user_domain_name=os_options.get('user_domain_name'),
            user_domain_id=os_options.get('user_domain_id'),
            project_name=project_name, project_id=project_id,
            project_domain_name=os_options.get('project_domain_name'),
            project_domain_id=os_options.get('project_domain_id'),
            reauthenticate=False)
    else:
        plugin = v2.Password(url, username=user, password=key,
                             tenant_name=project_name, tenant_id=project_id,
                             reauthenticate=False)
    verify = False if auth.insecure else (auth.os_cacert or True)
    guarded = requests.Session()
    guarded.hooks['response'].append(_guard_keystone_answer)
    session = ks_session.Session(auth=plugin, session=guarded,
                                 verify=verify, timeout=timeout)
    access = plugin.get_access(session)
    service_type = os_options.get('service_type') or 'object-store'
    try:
        storage_url = access.service_catalog.url_for(
            service_type=service_type,
            interface=os_options.get('endpoint_type') or 'public',
            region_name=os_options.get('region_name'))
    except EndpointNotFound:
        storage_url = None
    if not storage_url:
        raise SwiftAuthError(
            'no %s endpoint in the service catalog (check the project or '
            'tenant, --os-region-name and --os-endpoint-type)'
            % service_type)
    return storage_url, access.auth_token, _lifetime(access)


def _lifetime(access):
    """Seconds from the token's issue to its expiry, both as Keystone
    says, so that this host's clock does not matter; None if unknown."""
    try:
        seconds = (access.expires - access.issued).total_seconds()
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return seconds if seconds > 0 else None


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
    `stale` exists, so that a burst of 401s costs one authentication;
    due() is true once RENEW_AT of a token's known lifetime has passed.
    `authenticator(auth, timeout=)` is injectable for tests.
    """

    # Renew a token of known lifetime once this part of it has passed.
    RENEW_AT = 0.75

    def __init__(self, auth, timeout=None, authenticator=authenticate,
                 clock=monotonic):
        self.auth = auth.check()
        self.renewable = auth.credentials() is not None
        self.timeout = timeout
        self.authenticator = authenticator
        self.clock = clock
        self.grant = None
        self.renew_at = None
        # Greenlets share a Credentials (a worker's, the master's).
        self._lock = gevent.lock.Semaphore()

    def current(self):
        """The Grant to use now: authenticates the first time, and first
        renews a token due for renewal."""
        if self.grant is None:
            return self.renew(None)
        self.renew_due()
        return self.grant

    def renew(self, stale, reason='the Swift token was rejected (401)'):
        """A Grant newer than `stale` (None: any Grant); `reason` is
        logged when that takes a new authentication."""
        with self._lock:
            grant = self.grant
            if grant is not None and (
                    stale is None or grant.generation != stale.generation):
                return grant
            preset = self.auth.preset()
            if grant is None and preset is not None:
                urls, token, lifetime = preset[0], preset[1], None
            elif not self.renewable:
                raise SwiftAuthError('the token was rejected (401) and '
                                     'there are no credentials to get a '
                                     'new one')
            else:
                auth = self.auth
                if preset is not None:
                    # -S with -T and credentials: the token given was
                    # rejected, the credentials get the next one.
                    auth = AuthOptions.from_dict(dict(
                        auth.to_dict(), token=None, os_auth_token=None))
                if grant is not None:
                    log.info('%s: authenticating again', reason)
                url, token, lifetime = self.authenticator(
                    auth, timeout=self.timeout)
                urls = self.auth.storage_urls or [url]
            self.grant = Grant(urls, token,
                               1 if grant is None else grant.generation + 1)
            self.renew_at = (self.clock() + lifetime * self.RENEW_AT
                             if lifetime else None)
            return self.grant

    def due(self):
        """True when the current token should be renewed before it
        expires."""
        return self.renew_at is not None and self.clock() >= self.renew_at

    def renew_due(self):
        """Renew a token due for renewal; True when renewed.  A failure is
        logged and tried again RETRY_INTERVAL later: the token it would
        have replaced is still good until then."""
        if not self.due():
            return False
        try:
            self.renew(self.grant, 'the Swift token expires soon')
        except SwiftAuthError as exc:
            self.renew_at = self.clock() + RETRY_INTERVAL
            log.warning('could not renew the Swift token (trying again in '
                        '%.0f s): %s', RETRY_INTERVAL, exc)
            return False
        return True

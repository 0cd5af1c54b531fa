"""Swift access: auth options, keep-alive connection pools, timed requests.

Authentication goes through python-swiftclient's `get_auth` (v1.0 tempauth,
Keystone v2.0/v3).  Object and container requests go through our own small
HTTP/1.1 connection (ssbench.httpconn): it costs a fraction of the CPU of
swiftclient's requests-based stack (and of the standard library's client),
and lets us time the first and the last byte and count retries ourselves
(swiftclient's Connection hides both behind a sleeping back-off).

Retry rules (SPEC 3): 503, 404 on GET/DELETE, 401 (after re-authenticating)
and socket-level failures are retried up to `retries` times with no pause,
and counted.  A pooled keep-alive connection that the server has closed is
replaced and the request re-sent on a new connection: counted apart, as a
reconnect, not as a retry.  The latencies reported are those of the attempt
that succeeded.
"""
from __future__ import absolute_import, division, print_function

import errno
import json
import logging
import random
import socket
import ssl
import threading

from ssbench import version
from ssbench.compat import PY2, monotonic
from ssbench.errors import AuthConfigError, SwiftAuthError, SwiftError
from ssbench.httpconn import HTTPConnection, HTTPError, StaleConnection

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urllib import quote as _quote
    from urlparse import urlsplit
else:
    from urllib.parse import quote as _quote, urlsplit

log = logging.getLogger(__name__)

DEFAULT_RETRIES = 10
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_NETWORK_TIMEOUT = 20.0
DEFAULT_BLOCK_SIZE = 65536
USER_AGENT = 'ssbench/%s' % version
LISTING_LIMIT = 10000

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
    """Return (storage_url, token) for `auth`, via swiftclient.get_auth.

    -S with -T skips auth; otherwise failures raise SwiftAuthError with one
    line that names the auth URL (never a key, password or token).
    """
    auth.check()
    preset = auth.preset()
    if preset is not None:
        return preset[0][0], preset[1]
    version, auth_url, user, key, os_options = auth.credentials()
    secrets = [getattr(auth, name) for name in auth.SECRETS]
    kwargs = {'auth_version': version, 'os_options': dict(os_options),
              'insecure': auth.insecure, 'timeout': timeout}
    if auth.os_cacert:
        kwargs['cacert'] = auth.os_cacert
    try:
        from swiftclient import client as swiftclient
        from swiftclient.exceptions import ClientException
    except ImportError as exc:  # pragma: no cover - a broken install
        raise SwiftAuthError('cannot authenticate: %s' % (exc,))
    try:
        storage_url, token = swiftclient.get_auth(auth_url, user, key,
                                                  **kwargs)
    except ClientException as exc:
        status = getattr(exc, 'http_status', None)
        reason = str(getattr(exc, 'msg', '') or exc)
        if status:
            reason = '%s %s' % (status, getattr(exc, 'http_reason', '')
                                or reason)
        raise SwiftAuthError('authentication failed at %s (as %s, auth '
                             'version %s): %s' % (
                                 auth_url, user, version,
                                 _scrub(reason, secrets)))
    except Exception as exc:  # requests/keystone raise many unrelated types
        raise SwiftAuthError('cannot authenticate at %s: %s: %s' % (
            auth_url, type(exc).__name__, _scrub(str(exc), secrets)))
    if not storage_url or not token:
        raise SwiftAuthError('authentication at %s returned no storage URL '
                             'or token' % (auth_url,))
    return storage_url, token


class SwiftRequestError(SwiftError):
    """A request that failed for good: carries the HTTP status (None for a
    socket-level failure, whose error_class() is in `error_class`), the
    transaction id, the retries and the reconnects spent."""

    def __init__(self, method, path, http_status, reason, trans_id=None,
                 retries=0, reconnects=0, error_class=None):
        self.method = method
        self.path = path
        self.http_status = http_status
        self.reason = reason
        self.trans_id = trans_id
        self.retries = retries
        self.reconnects = reconnects
        self.error_class = error_class
        SwiftError.__init__(self, str(self))

    def __str__(self):
        # Built when shown: a caller may add the retries of an earlier
        # request of the same job.
        if self.http_status is None:
            text = '%s %s failed: %s' % (self.method, self.path, self.reason)
        else:
            text = '%s %s: %s %s' % (self.method, self.path,
                                     self.http_status, self.reason)
        if self.trans_id:
            text += ' (%s)' % self.trans_id
        if self.retries:
            text += ' after %d retries' % self.retries
        return text


class Timing(object):
    """What one (possibly retried) request measured.

    `reconnects`: stale keep-alive connections replaced (not retries);
    `size`: bytes of the response body read (None when not known).
    """

    __slots__ = ('status', 'first_byte_latency', 'last_byte_latency',
                 'trans_id', 'retries', 'reconnects', 'size', 'headers',
                 'body')

    def __init__(self, status, first_byte_latency, last_byte_latency,
                 trans_id, retries, reconnects=0, size=None, headers=None,
                 body=None):
        self.status = status
        self.first_byte_latency = first_byte_latency
        self.last_byte_latency = last_byte_latency
        self.trans_id = trans_id
        self.retries = retries
        self.reconnects = reconnects
        self.size = size
        self.headers = headers
        self.body = body

    def __repr__(self):
        return ('Timing(status=%r, first_byte_latency=%r, '
                'last_byte_latency=%r, trans_id=%r, retries=%r, '
                'reconnects=%r, size=%r)' % (
                    self.status, self.first_byte_latency,
                    self.last_byte_latency, self.trans_id, self.retries,
                    self.reconnects, self.size))


def _ssl_context(cacert=None, insecure=False):
    context = ssl.create_default_context(cafile=cacert)
    if insecure:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context


class ConnectionPool(object):
    """Idle keep-alive connections to one storage URL (LIFO, bounded)."""

    def __init__(self, url, size, connect_timeout, network_timeout,
                 ssl_context=None):
        parts = urlsplit(url)
        if parts.scheme not in ('http', 'https') or not parts.hostname:
            raise SwiftError('unusable storage URL %r' % (url,))
        self.url = url
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == 'https' else 80)
        self.path = parts.path.rstrip('/')
        self.size = max(1, int(size))
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.ssl_context = ssl_context
        self.idle = []

    def new(self):
        context = None
        if self.scheme == 'https':
            if self.ssl_context is None:
                self.ssl_context = _ssl_context()
            context = self.ssl_context
        return HTTPConnection(self.host, self.port, self.connect_timeout,
                              self.network_timeout, context)

    def get(self):
        return self.idle.pop() if self.idle else self.new()

    def put(self, conn):
        if len(self.idle) < self.size:
            self.idle.append(conn)
        else:
            conn.close()

    def close(self):
        while self.idle:
            self.idle.pop().close()


def quote(text):
    if not isinstance(text, bytes):
        text = text.encode('utf-8')
    return _quote(text, safe='/')


# Failures that mean "the request did not get through": retried.
_NETWORK_ERRORS = (socket.error, IOError, HTTPError)
_STALE_LIMIT = 3


def _is_stale(exc):
    """A reused connection the server had closed: no status line came."""
    return isinstance(exc, StaleConnection)


# Python 3's names for the socket errors 2.7 raises as socket.error, so
# that result records name a cause alike whichever Python ran the worker.
_PY3_ERRNO_NAMES = {
    errno.ECONNREFUSED: 'ConnectionRefusedError',
    errno.ECONNRESET: 'ConnectionResetError',
    errno.ECONNABORTED: 'ConnectionAbortedError',
    errno.EPIPE: 'BrokenPipeError',
    errno.ESHUTDOWN: 'BrokenPipeError',
}


def error_class(exc):
    """The name result records give the exception that ended a job.

    Its class name, except that timeouts are 'timeout' on every Python
    (3.10 renamed socket.timeout TimeoutError, and a TCP-level ETIMEDOUT is
    yet another class), and 2.7's socket errors get the name Python 3
    gives their errno.
    """
    if isinstance(exc, socket.timeout) or \
            getattr(exc, 'errno', None) == errno.ETIMEDOUT:
        return 'timeout'
    if PY2 and isinstance(exc, EnvironmentError):
        name = _PY3_ERRNO_NAMES.get(exc.errno)
        if name is not None:
            return name
    return type(exc).__name__


class SwiftClient(object):
    """Timed Swift requests for one worker (or the master's cleanup).

    `concurrency` bounds the idle connections kept per storage URL: one
    per greenlet.  The token is obtained lazily once and renewed on 401.
    `authenticator(auth, timeout)` is injectable for tests.
    """

    def __init__(self, auth, concurrency=64, retries=DEFAULT_RETRIES,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT,
                 authenticator=authenticate):
        auth.check()
        self.auth = auth
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.authenticator = authenticator
        self.can_reauthenticate = auth.credentials() is not None
        self.token = None
        self.pools = []
        self.auth_count = 0
        self._auth_lock = threading.Lock()
        self._ssl_context = None
        self._blocks = {}

    # -- auth -------------------------------------------------------------

    def _ssl(self):
        if self._ssl_context is None:
            self._ssl_context = _ssl_context(self.auth.os_cacert,
                                             self.auth.insecure)
        return self._ssl_context

    def _set_endpoint(self, storage_url, token):
        urls = self.auth.storage_urls or [storage_url]
        if [p.url for p in self.pools] != urls:
            for pool in self.pools:
                pool.close()
            self.pools = [ConnectionPool(url, self.concurrency,
                                         self.connect_timeout,
                                         self.network_timeout, self._ssl())
                          for url in urls]
        self.token = token

    def authenticate(self, stale_token=None):
        """Get a token; with `stale_token`, only if nobody renewed it yet."""
        with self._auth_lock:
            if self.token is not None and self.token != stale_token:
                return self.token
            if stale_token is not None and self.token is not None:
                log.info('token rejected (401): authenticating again')
            self.auth_count += 1
            if self.auth_count > 1 or self.auth.preset() is None:
                # -S/-T preset: only the first "auth" may skip the server.
                if self.auth_count > 1 and not self.can_reauthenticate:
                    raise SwiftAuthError('the token was rejected (401) and '
                                         'there are no credentials to get '
                                         'a new one')
                auth = self.auth
                if self.auth_count > 1:
                    auth = AuthOptions.from_dict(dict(
                        auth.to_dict(), token=None, os_auth_token=None))
                url, token = self.authenticator(auth,
                                                timeout=self.network_timeout)
            else:
                url, token = self.auth.preset()[0][0], self.auth.preset()[1]
            self._set_endpoint(url, token)
            return token

    def storage_urls(self):
        if self.token is None:
            self.authenticate()
        return [p.url for p in self.pools]

    # -- the request loop ---------------------------------------------

    def _block(self, fill, block_size):
        key = (fill, block_size)
        block = self._blocks.get(key)
        if block is None:
            if len(self._blocks) > 8:
                self._blocks.clear()
            block = self._blocks[key] = fill[:1] * block_size
        return block

    def request(self, method, container=None, name=None, query=None,
                headers=None, size=0, fill=b'A', block_size=DEFAULT_BLOCK_SIZE,
                read='discard', retry_404=False, missing_ok=False):
        """One timed request, retried per the module's rules.

        A body of `size` bytes of `fill` is sent in `block_size` chunks from
        one reused buffer.  `read` is 'discard' (read and drop the body in
        `block_size` chunks), 'keep' (return it in Timing.body) or
        'headers' (keep the response headers too).  `missing_ok` returns a
        404 as a Timing instead of raising.
        """
        if self.token is None:
            self.authenticate()
        path_tail = ''
        if container is not None:
            path_tail = '/' + quote(container)
            if name is not None:
                path_tail += '/' + quote(name)
        if query:
            path_tail += '?' + query
        send_headers = [('X-Auth-Token', None), ('User-Agent', USER_AGENT)]
        if headers:
            send_headers.extend(headers.items())
        if method in ('PUT', 'POST'):
            send_headers.append(('Content-Length', str(size)))
        retries = 0
        reconnects = 0
        stale = 0
        block = self._block(fill, block_size) if size else None
        while True:
            pools = self.pools
            pool = pools[0] if len(pools) == 1 else random.choice(pools)
            path = pool.path + path_tail
            token = self.token
            send_headers[0] = ('X-Auth-Token', token)
            conn = pool.get() if stale == 0 else pool.new()
            try:
                start = monotonic()
                conn.send(method, path, send_headers, size, block)
                resp = conn.read_response()
                first = monotonic()
                body = None
                if read == 'discard':
                    got = conn.discard_body(block_size)
                else:
                    body = conn.read_body()
                    got = len(body)
                last = monotonic()
            except _NETWORK_ERRORS as exc:
                conn.close()
                if stale < _STALE_LIMIT and _is_stale(exc):
                    stale += 1
                    reconnects += 1
                    continue
                if retries < self.retries:
                    retries += 1
                    continue
                raise SwiftRequestError(method, pool.url + path_tail, None,
                                        '%s: %s' % (type(exc).__name__, exc),
                                        retries=retries,
                                        reconnects=reconnects,
                                        error_class=error_class(exc))
            if resp.will_close:
                conn.close()
            else:
                pool.put(conn)
            stale = 0
            status = resp.status
            trans_id = resp.headers.get('x-trans-id')
            if 200 <= status < 300 or (status == 404 and missing_ok):
                timing = Timing(status, first - start if read == 'discard'
                                and method == 'GET' else None,
                                last - start, trans_id, retries, reconnects,
                                got)
                if read != 'discard':
                    timing.body = body
                    if read == 'headers':
                        timing.headers = resp.headers
                return timing
            if retries < self.retries and (
                    status == 503 or (status == 404 and retry_404) or
                    (status == 401 and self.can_reauthenticate)):
                retries += 1
                if status == 401:
                    self.authenticate(stale_token=token)
                continue
            raise SwiftRequestError(method, pool.url + path_tail, status,
                                    resp.reason, trans_id, retries,
                                    reconnects)

    # -- operations ---------------------------------------------------

    def put_object(self, container, name, size, fill=b'A',
                   block_size=DEFAULT_BLOCK_SIZE, delete_after=None):
        """Upload `size` bytes of `fill` (b'A' create, b'B' update)."""
        headers = None
        if delete_after:
            headers = {'X-Delete-After': str(int(delete_after))}
        return self.request('PUT', container, name, headers=headers,
                            size=int(size), fill=fill, block_size=block_size)

    def get_object(self, container, name, block_size=DEFAULT_BLOCK_SIZE):
        """Read the body in `block_size` chunks and discard it."""
        return self.request('GET', container, name, block_size=block_size,
                            retry_404=True)

    def head_object(self, container, name, missing_ok=False):
        return self.request('HEAD', container, name, read='headers',
                            missing_ok=missing_ok)

    def delete_object(self, container, name):
        return self.request('DELETE', container, name, retry_404=True)

    def head_container(self, container, missing_ok=False):
        return self.request('HEAD', container, read='headers',
                            missing_ok=missing_ok)

    def put_container(self, container, policy=None):
        headers = {'X-Storage-Policy': policy} if policy else None
        return self.request('PUT', container, headers=headers)

    def delete_container(self, container, missing_ok=False):
        return self.request('DELETE', container, read='keep',
                            missing_ok=missing_ok)

    def _listing(self, container, prefix):
        names = []
        marker = ''
        while True:
            query = 'format=json&limit=%d' % LISTING_LIMIT
            if prefix:
                query += '&prefix=' + quote(prefix).replace('/', '%2F')
            if marker:
                query += '&marker=' + quote(marker).replace('/', '%2F')
            timing = self.request('GET', container, query=query,
                                  read='keep')
            page = json.loads(timing.body.decode('utf-8')) \
                if timing.status != 204 and timing.body else []
            if not page:
                return names
            names.extend(item['name'] for item in page
                         if 'name' in item)
            marker = page[-1].get('name') or page[-1].get('subdir')

    def list_containers(self, prefix=None):
        """Every container name of the account (all listing pages)."""
        return self._listing(None, prefix)

    def list_objects(self, container, prefix=None):
        """Every object name in `container` (all listing pages)."""
        return self._listing(container, prefix)

    def close(self):
        for pool in self.pools:
            pool.close()

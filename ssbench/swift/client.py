"""Swift access: keep-alive connection pools and timed requests.

Tokens come from a token source (ssbench.swift.auth.Credentials, or on a
worker its master's ssbench.swift.tokens.HandedTokens).  Object and container
requests go through our own small HTTP/1.1 connection (ssbench.swift.httpconn):
it costs a fraction of the CPU of swiftclient's requests-based stack (and
of the standard library's client), and lets us time the first and the
last byte and count retries ourselves (swiftclient's Connection hides both
behind a sleeping back-off).

Retry rules (SPEC 3): 503, 404 on GET/DELETE, 401 (after the token source
renewed the token) and socket-level failures are retried up to `retries`
times, and counted, each under its cause (the HTTP status, or the
error_class() of the failure).  Retries follow at once (0.3.9's way) or,
with `retry_backoff`, after a pause that doubles per retry, with jitter,
up to a cap (backoff_delay()); a retry after a 401 never waits.

A pooled keep-alive connection found closed by the server before any of
the request went out is replaced and the request sent on a new connection:
counted apart, as a reconnect, not as a retry.  Once the request went out,
a connection that breaks (reset, closed without an answer, timed out) is a
failed attempt: a retry.

A request's latencies run from its first send, all retries and pauses
included; a request that fails for good says how long that took
(SwiftRequestError.time_to_failure).
"""
from __future__ import absolute_import, division, print_function

import errno
import json
import logging
import random
import socket
import time

from ssbench import version
from ssbench.compat import PY2, monotonic
from ssbench.errors import SwiftAuthError, SwiftError
from ssbench.swift.httpconn import (HTTPConnection, HTTPError, StaleConnection,
                                    ssl_context)
from ssbench.swift.auth import Credentials

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
# --retry-backoff without a value: the first retry waits 0.05-0.1 s, each
# later one twice as long, up to 1-2 s; ten retries span some 6-11 s.
DEFAULT_BACKOFF_BASE = 0.05
DEFAULT_BACKOFF_CAP = 2.0
USER_AGENT = 'ssbench/%s' % version
LISTING_LIMIT = 10000


class SwiftRequestError(SwiftError):
    """A request that failed for good: carries the HTTP status (None for a
    socket-level failure, whose error_class() is in `error_class`), the
    transaction id, the retries (and `retry_causes`, {cause: count} or
    None) and the reconnects spent, and `time_to_failure`: seconds from
    its first send to giving up."""

    def __init__(self, method, path, http_status, reason, trans_id=None,
                 retries=0, reconnects=0, error_class=None,
                 time_to_failure=0.0, retry_causes=None):
        self.method = method
        self.path = path
        self.http_status = http_status
        self.reason = reason
        self.trans_id = trans_id
        self.retries = retries
        self.reconnects = reconnects
        self.error_class = error_class
        self.time_to_failure = time_to_failure
        self.retry_causes = retry_causes
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
    """What one (possibly retried) request measured, from its first send.

    `reconnects`: stale keep-alive connections replaced (not retries);
    `retry_causes`: {cause: count} of the retries (None without any);
    `size`: bytes of the response body read (None when not known);
    `segments`: what a large object's segment requests add up to (see
    ssbench.worker.largeobject), else None.
    """

    __slots__ = ('status', 'first_byte_latency', 'last_byte_latency',
                 'trans_id', 'retries', 'reconnects', 'size', 'headers',
                 'body', 'retry_causes', 'segments')

    def __init__(self, status, first_byte_latency, last_byte_latency,
                 trans_id, retries, reconnects=0, size=None, headers=None,
                 body=None, retry_causes=None):
        self.status = status
        self.first_byte_latency = first_byte_latency
        self.last_byte_latency = last_byte_latency
        self.trans_id = trans_id
        self.retries = retries
        self.reconnects = reconnects
        self.size = size
        self.headers = headers
        self.body = body
        self.retry_causes = retry_causes
        self.segments = None

    def __repr__(self):
        return ('Timing(status=%r, first_byte_latency=%r, '
                'last_byte_latency=%r, trans_id=%r, retries=%r, '
                'reconnects=%r, size=%r, retry_causes=%r)' % (
                    self.status, self.first_byte_latency,
                    self.last_byte_latency, self.trans_id, self.retries,
                    self.reconnects, self.size, self.retry_causes))


class ConnectionPool(object):
    """Idle keep-alive connections to one storage URL (LIFO, bounded).

    Once closed it keeps nothing: a connection in use when it closed is
    closed when its request puts it back.
    """

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
        self.closed = False

    def new(self):
        context = None
        if self.scheme == 'https':
            if self.ssl_context is None:
                self.ssl_context = ssl_context()
            context = self.ssl_context
        return HTTPConnection(self.host, self.port, self.connect_timeout,
                              self.network_timeout, context)

    def get(self):
        return self.idle.pop() if self.idle else self.new()

    def put(self, conn):
        if not self.closed and len(self.idle) < self.size:
            self.idle.append(conn)
        else:
            conn.close()

    def close(self):
        self.closed = True
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
    """A reused connection the server had closed before the request went
    out."""
    return isinstance(exc, StaleConnection)


def backoff_delay(retry, base, cap, draw):
    """Seconds to wait before retry number `retry` (1, 2, ...): half of
    min(cap, base * 2 ** (retry - 1)) plus a random share (`draw`, in
    [0, 1)) of the other half, so that requests failed together do not
    all come back together, and none comes back at once."""
    ceiling = min(cap, base * 2.0 ** min(retry - 1, 64))
    return ceiling * (1 + draw) / 2


def add_causes(causes, more):
    """{cause: count} `causes` with the counts of `more` added (either
    may be None, meaning none)."""
    if not more:
        return causes
    total = dict(causes or ())
    for cause, count in more.items():
        total[cause] = total.get(cause, 0) + count
    return total


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
    """Timed Swift requests for one worker (or the master's own work).

    `concurrency` bounds the idle connections kept per storage URL: one
    per greenlet.  `tokens` is the token source (by default Credentials
    for `auth`): each attempt uses its current token, and asks it for a
    new one after a 401.  `auth` also gives the TLS options (--insecure,
    --os-cacert) of the connections.  `retry_backoff` (base, cap) in
    seconds makes retries wait (see backoff_delay()); None retries at
    once.  `sleep` (by default time.sleep, looked up when called: gevent
    may patch it later) and `draw` (a random number in [0, 1)) are the
    pause and the jitter, injectable for tests.
    """

    def __init__(self, auth, concurrency=64, retries=DEFAULT_RETRIES,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT, tokens=None,
                 retry_backoff=None, sleep=None, draw=random.random):
        self.auth = auth
        self.tokens = tokens if tokens is not None else Credentials(
            auth, timeout=network_timeout)
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.retry_backoff = retry_backoff
        self._sleep = sleep
        self._draw = draw
        self.grant = None
        self.pools = []
        self._ssl_context = None
        self._blocks = {}

    # -- auth -------------------------------------------------------------

    def _ssl(self):
        if self._ssl_context is None:
            self._ssl_context = ssl_context(self.auth.os_cacert,
                                            self.auth.insecure)
        return self._ssl_context

    def _use(self, grant):
        """Make `grant` the token and storage URLs of later requests."""
        if [p.url for p in self.pools] != grant.storage_urls:
            for pool in self.pools:
                pool.close()
            # A TLS context loads the CA certificates: only for https.
            self.pools = [ConnectionPool(
                url, self.concurrency, self.connect_timeout,
                self.network_timeout,
                self._ssl() if url.lower().startswith('https:') else None)
                for url in grant.storage_urls]
        self.grant = grant
        return grant

    def authenticate(self):
        """Fetch the token now (it is otherwise fetched on first use);
        raises SwiftAuthError."""
        return self._use(self.tokens.current())

    def _renewed(self, stale):
        """A token newer than the Grant `stale`, which Swift rejected."""
        return self._use(self.tokens.renew(stale))

    @property
    def token(self):
        return self.grant.token if self.grant is not None else None

    def storage_urls(self):
        if self.grant is None:
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
                read='discard', retry_404=False, missing_ok=False,
                body=None):
        """One timed request, retried per the module's rules.

        A body of `size` bytes of `fill` is sent in `block_size` chunks from
        one reused buffer, or `body` (bytes) when given.  `read` is
        'discard' (read and drop the body in `block_size` chunks), 'keep'
        (return it in Timing.body) or 'headers' (keep the response headers
        too).  `missing_ok` returns a
        404 as a Timing instead of raising.
        """
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
        if body is not None:
            size = len(body)
        if method in ('PUT', 'POST'):
            send_headers.append(('Content-Length', str(size)))
        retries = 0
        reconnects = 0
        stale = 0
        causes = None          # {cause: count} of the retries
        start = None           # the first send: latencies run from it
        if body is not None:
            block = body
        else:
            block = self._block(fill, block_size) if size else None
        while True:
            grant = self.tokens.current()
            if grant is not self.grant:
                self._use(grant)
            pools = self.pools
            pool = pools[0] if len(pools) == 1 else random.choice(pools)
            path = pool.path + path_tail
            send_headers[0] = ('X-Auth-Token', grant.token)
            conn = pool.get() if stale == 0 else pool.new()
            try:
                if start is None:
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
                cause = error_class(exc)
                if retries < self.retries:
                    retries += 1
                    causes = add_causes(causes, {cause: 1})
                    self._pause(retries)
                    continue
                raise SwiftRequestError(method, pool.url + path_tail, None,
                                        '%s: %s' % (type(exc).__name__, exc),
                                        retries=retries,
                                        reconnects=reconnects,
                                        error_class=cause,
                                        time_to_failure=monotonic() - start,
                                        retry_causes=causes)
            except BaseException:
                # Half used (a bad TLS certificate, a timeout or kill from
                # gevent...): never pooled, never left open.
                conn.close()
                raise
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
                                got, retry_causes=causes)
                if read != 'discard':
                    timing.body = body
                    if read == 'headers':
                        timing.headers = resp.headers
                return timing
            if retries < self.retries and (
                    status == 503 or (status == 404 and retry_404)):
                retries += 1
                causes = add_causes(causes, {str(status): 1})
                self._pause(retries)
                continue
            if status == 401 and retries < self.retries and \
                    self.tokens.renewable:
                try:
                    self._renewed(grant)
                except SwiftAuthError as exc:
                    raise SwiftRequestError(
                        method, pool.url + path_tail, status,
                        '%s (%s)' % (resp.reason, exc), trans_id, retries,
                        reconnects, time_to_failure=monotonic() - start,
                        retry_causes=causes)
                # A new token: tried at once.
                retries += 1
                causes = add_causes(causes, {'401': 1})
                continue
            raise SwiftRequestError(method, pool.url + path_tail, status,
                                    resp.reason, trans_id, retries,
                                    reconnects,
                                    time_to_failure=last - start,
                                    retry_causes=causes)

    def _pause(self, retry):
        """Wait before retry number `retry`, with retry_backoff."""
        if self.retry_backoff is not None:
            base, cap = self.retry_backoff
            (self._sleep or time.sleep)(backoff_delay(retry, base, cap,
                                                      self._draw()))

    # -- operations ---------------------------------------------------

    def put_object(self, container, name, size, fill=b'A',
                   block_size=DEFAULT_BLOCK_SIZE, delete_after=None,
                   read='discard'):
        """Upload `size` bytes of `fill` (b'A' create, b'B' update);
        read='headers' keeps the response's headers (its etag)."""
        headers = None
        if delete_after:
            headers = {'X-Delete-After': str(int(delete_after))}
        return self.request('PUT', container, name, headers=headers,
                            size=int(size), fill=fill, block_size=block_size,
                            read=read)

    def put_slo_manifest(self, container, name, segments,
                         delete_after=None):
        """PUT the static large object manifest of `segments`, a list of
        (segment path '/container/object', etag, bytes)."""
        headers = {'Content-Type': 'application/json'}
        if delete_after:
            headers['X-Delete-After'] = str(int(delete_after))
        body = json.dumps([
            {'path': path, 'etag': etag, 'size_bytes': size}
            for path, etag, size in segments]).encode('utf-8')
        return self.request('PUT', container, name,
                            query='multipart-manifest=put', headers=headers,
                            body=body, read='keep')

    def put_dlo_manifest(self, container, name, prefix, delete_after=None):
        """PUT the dynamic large object manifest of the objects named
        `prefix`... ('container/prefix')."""
        headers = {'X-Object-Manifest': quote(prefix)}
        if delete_after:
            headers['X-Delete-After'] = str(int(delete_after))
        return self.request('PUT', container, name, headers=headers,
                            read='keep')

    def delete_slo(self, container, name):
        """DELETE a static large object with its segments; Swift answers
        200 with the bulk delete's own status in its JSON body, which is
        raised as a SwiftRequestError when it is not 200."""
        timing = self.request('DELETE', container, name,
                              query='multipart-manifest=delete',
                              headers={'Accept': 'application/json'},
                              read='keep', retry_404=True)
        try:
            outcome = json.loads(timing.body.decode('utf-8'))
            code = int(str(outcome.get('Response Status')).split()[0])
        except (ValueError, AttributeError, IndexError):
            return timing
        if code != 200 and not (code == 404 and
                                not outcome.get('Errors')):
            raise SwiftRequestError(
                'DELETE', '%s/%s?multipart-manifest=delete' % (
                    container, name), code,
                '%s %s' % (outcome.get('Response Status'),
                           outcome.get('Errors')),
                timing.trans_id, timing.retries, timing.reconnects,
                time_to_failure=timing.last_byte_latency,
                retry_causes=timing.retry_causes)
        return timing

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
        """Every name of a container (or the account) listing, page by
        page; SwiftError naming the URL for a page that does not end past
        the marker (the same names again: paging would never end)."""
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
            last = page[-1].get('name') or page[-1].get('subdir')
            # Swift lists in name order from past the marker.
            if not last or last <= marker:
                where = self.pools[0].url
                if container is not None:
                    where += '/' + quote(container)
                raise SwiftError(
                    'GET %s?%s: the listing does not advance (its last name '
                    'is not past the marker: the same names again); is the '
                    "storage URL Swift's?" % (where, query))
            marker = last

    def list_containers(self, prefix=None):
        """Every container name of the account (all listing pages)."""
        return self._listing(None, prefix)

    def list_objects(self, container, prefix=None):
        """Every object name in `container` (all listing pages)."""
        return self._listing(container, prefix)

    def cluster_info(self):
        """The cluster's capabilities (GET /info at the root of the first
        storage URL's server, without retries) as a dict; None when it
        does not answer with one (/info disabled).  Raises SwiftError when
        the server cannot be reached."""
        self.storage_urls()
        pool = self.pools[0]
        conn = pool.new()
        try:
            conn.send('GET', '/info', [('User-Agent', USER_AGENT)])
            resp = conn.read_response()
            body = conn.read_body()
        except _NETWORK_ERRORS as exc:
            raise SwiftRequestError('GET', pool.url + ' /info', None,
                                    '%s: %s' % (type(exc).__name__, exc),
                                    error_class=error_class(exc))
        finally:
            conn.close()
        if resp.status != 200:
            return None
        try:
            info = json.loads(body.decode('utf-8'))
        except ValueError:
            return None
        return info if isinstance(info, dict) else None

    def close(self):
        """Close the idle connections now, and those of requests still
        running when they end."""
        for pool in self.pools:
            pool.close()

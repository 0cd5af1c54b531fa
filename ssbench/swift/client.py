"""SwiftClient: timed Swift requests, retried, and the object and
container operations made of them.

Tokens come from a token source (ssbench.swift.auth.Credentials, or on a
worker its master's ssbench.swift.tokens.HandedTokens).  Object and container
requests go through our own small HTTP/1.1 connection (ssbench.swift.httpconn,
kept alive in a ssbench.swift.connpool.ConnectionPool per storage URL):
it costs a fraction of the CPU of swiftclient's requests-based stack (and
of the standard library's client), and lets us time the first and the
last byte and count retries ourselves (swiftclient's Connection hides both
behind a sleeping back-off).

Retry rules (docs/internals.rst, "Retries"): 503, 404 on GET/DELETE,
401 (after the token source renewed the token) and socket-level failures
are retried up to `retries` times, and counted, each under its cause
(the HTTP status, or the error_class() of the failure, see
ssbench.swift.outcome).  Retries follow at once (0.3.9's way) or, with
`retry_backoff`, after a pause that doubles per retry, with jitter, up to
a cap (ssbench.swift.backoff); a retry after a 401 never waits.

A pooled keep-alive connection found closed by the server before any of
the request went out is replaced and the request sent on a new connection:
counted apart, as a reconnect, not as a retry.  Once the request went out,
a connection that breaks (reset, closed without an answer, timed out) is a
failed attempt: a retry.

A request's latencies run from its first send, all retries and pauses
included (its Timing); a request that fails for good says how long that
took (SwiftRequestError.time_to_failure).
"""
from __future__ import absolute_import, division, print_function

import json
import logging
import random
import re
import socket
import time

from ssbench import version
from ssbench.compat import PY2, monotonic
from ssbench.errors import SwiftAuthError, SwiftError
from ssbench.swift.httpconn import (MAX_BODY, BodyTooLarge, HTTPError,
                                    StaleConnection, ssl_context)
from ssbench.swift.auth import Credentials
from ssbench.swift.backoff import backoff_delay
from ssbench.swift.connpool import ConnectionPool
from ssbench.swift.outcome import (SwiftRequestError, Timing, add_causes,
                                   error_class)
from ssbench.swift.paging import Pages

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urllib import quote as _quote
else:
    from urllib.parse import quote as _quote

log = logging.getLogger(__name__)

DEFAULT_RETRIES = 10
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_NETWORK_TIMEOUT = 20.0
DEFAULT_BLOCK_SIZE = 65536
USER_AGENT = 'ssbench/%s' % version
LISTING_LIMIT = 10000


# Names that quote() leaves as they are on every Python (2.7 quotes '~').
_SAFE = re.compile(r'[-A-Za-z0-9_./]*\Z')


def quote(text):
    """`text` %-encoded for a URL path ('/' kept), as a native str."""
    if not isinstance(text, bytes):
        # Benchmark names need no quoting: urllib's costs several calls.
        if _SAFE.match(text):
            return str(text)
        text = text.encode('utf-8')
    return _quote(text, safe='/')


# How a request that times its first byte reads the body: dropped (an
# error's kept by 'errors').
_DISCARD = ('discard', 'errors')
# Requests whose first byte is timed (when their body is discarded): a
# READ's, a benchmark HEAD's (its response head) and a listing page's.
_FIRST_BYTE = ('GET', 'HEAD')

# Failures that mean "the request did not get through": retried.
_NETWORK_ERRORS = (socket.error, IOError, HTTPError)
_STALE_LIMIT = 3
# Bytes of an error's body kept (for its cause, an S3 code): the rest is
# left unread.
ERROR_BODY = 64 * 1024
# Bytes of the /info answer read: a real one is some kB.
MAX_INFO = 1024 * 1024


def _is_stale(exc):
    """A reused connection the server had closed before the request went
    out."""
    return isinstance(exc, StaleConnection)


def _exchange(pool, conn, method, path, headers, size, block, read,
              block_size, limit=MAX_BODY):
    """One attempt on `conn`: (response, first byte's and last byte's
    monotonic time, body bytes read, the body when `read` keeps it:
    'errors' keeps only an error's first ERROR_BODY bytes, which say its
    cause; a body kept is at most `limit` bytes, BodyTooLarge if more).
    The connection goes back to `pool` unless the server closes it; on
    any failure it is closed."""
    try:
        conn.send(method, path, headers, size, block)
        resp = conn.read_response()
        first = monotonic()
        body = None
        if read == 'discard' or (read == 'errors' and resp.status < 300):
            got = conn.discard_body(block_size)
        elif read == 'errors':
            body = conn.read_body(ERROR_BODY, cut=True)
            got = len(body)
        else:
            body = conn.read_body(limit)
            got = len(body)
        last = monotonic()
    except BaseException:
        # Half used (a bad TLS certificate, a timeout or kill from
        # gevent...): never pooled, never left open.
        conn.close()
        raise
    if resp.will_close:
        conn.close()
    else:
        pool.put(conn)
    return resp, first, last, got, body


class SwiftClient(object):
    """Timed Swift requests for one worker (or the master's own work).

    `concurrency` bounds the idle connections kept per storage URL: one
    per greenlet.  `tokens` is the token source (by default Credentials
    for `auth`): each attempt uses its current token, and asks it for a
    new one after a 401.  `auth` also gives the TLS options (--insecure,
    --os-cacert) of the connections.  `retry_backoff` (base, cap) in
    seconds makes retries wait (see ssbench.swift.backoff); None retries
    at once.  `sleep` (by default time.sleep, looked up when called: gevent
    may patch it later) and `draw` (a random number in [0, 1)) are the
    pause and the jitter, injectable for tests.
    """

    # The response header naming a request for the server's logs.
    TRANS_ID = 'x-trans-id'
    # Bytes of a body read whole (a listing page, a bulk delete's
    # outcome) at most: docs/reliability.rst, "Answers from outside".
    max_body = MAX_BODY

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
        self._turn = -1

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
                body=None, retry_timeouts=True):
        """One timed request, retried per the module's rules.

        A body of `size` bytes of `fill` is sent in `block_size` chunks from
        one reused buffer, or `body` (bytes) when given.  `read` is
        'discard' (read and drop the body in `block_size` chunks), 'keep'
        (return it in Timing.body), 'headers' (keep the response headers
        too) or 'errors' (discard, but keep an error's body for its
        cause).  `missing_ok` returns a
        404 as a Timing instead of raising.  Without `retry_timeouts` an
        attempt that times out is not retried: a server that answers no
        faster than network_timeout gives up at once (for the master's
        own first requests, which tell whether the cluster is usable).
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
        if body is not None:
            block = body
        else:
            block = self._block(fill, block_size) if size else None
        # The storage URLs in turn, one per request with its retries, so
        # that each URL's figures are its own (docs/usage.rst).
        turn = self._turn = self._turn + 1
        try:
            timing = self._attempts(turn, method, path_tail, send_headers,
                                    size, block, read, block_size, retry_404,
                                    missing_ok, retry_timeouts)
        except SwiftRequestError as exc:
            exc.endpoint = self._endpoint(turn)
            raise
        if len(self.pools) > 1:
            timing.endpoint = self._endpoint(turn)
        return timing

    def _endpoint(self, turn):
        """The index of the storage URL of request number `turn`, None
        with only one."""
        count = len(self.pools)
        return turn % count if count > 1 else None

    def _attempts(self, turn, method, path_tail, send_headers, size, block,
                  read, block_size, retry_404, missing_ok, retry_timeouts):
        """Attempts of a request until one succeeds (its Timing) or fails
        for good (SwiftRequestError); see request()."""
        retries = reconnects = stale = 0
        causes = None          # {cause: count} of the retries
        start = None           # the first send: latencies run from it
        while True:
            grant = self.tokens.current()
            if grant is not self.grant:
                self._use(grant)
            pool, path, headers = self._route(grant, turn, method,
                                              path_tail, send_headers)
            conn = pool.get() if stale == 0 else pool.new()
            if start is None:
                start = monotonic()
            try:
                resp, first, last, got, body = _exchange(
                    pool, conn, method, path, headers, size, block, read,
                    block_size, self.max_body)
            except _NETWORK_ERRORS as exc:
                if stale < _STALE_LIMIT and _is_stale(exc):
                    stale += 1
                    reconnects += 1
                    continue
                retries, causes = self._network_retry(
                    exc, method, pool.url + path_tail, retries, reconnects,
                    causes, start, retry_timeouts)
                continue
            stale = 0
            status = resp.status
            if 200 <= status < 300 or (status == 404 and missing_ok):
                # `body` is None unless kept, the headers kept on request.
                return Timing(status, first - start if read in _DISCARD
                              and method in _FIRST_BYTE else None,
                              last - start,
                              resp.headers.get(self.TRANS_ID), retries,
                              reconnects, got, resp.headers
                              if read == 'headers' else None, body, causes)
            retries, causes = self._status_retry(
                resp, grant, method, pool.url + path_tail, retry_404,
                retries, reconnects, causes, start, last, body)

    def _route(self, grant, turn, method, path_tail, send_headers):
        """(pool, request path, headers) of one attempt of request number
        `turn`: its storage URL's pool, and the token of `grant` in the
        headers' first slot (an S3 client signs each attempt there
        instead)."""
        pools = self.pools
        pool = pools[0] if len(pools) == 1 else pools[turn % len(pools)]
        send_headers[0] = ('X-Auth-Token', grant.token)
        return pool, pool.path + path_tail, send_headers

    def _refusal(self, resp, body):
        """(reason, error class) of a response that failed for good: its
        reason phrase, and no class (the status says it all)."""
        return resp.reason, None

    def _network_retry(self, exc, method, url, retries, reconnects, causes,
                       start, retry_timeouts=True):
        """After an attempt that got no response: (retries, causes) for
        the next one, once paused, or SwiftRequestError when none is left
        (or it timed out and not `retry_timeouts`)."""
        cause = error_class(exc)
        # A body too large is so again: not retried.
        if retries < self.retries and not isinstance(exc, BodyTooLarge) \
                and (retry_timeouts or cause != 'timeout'):
            retries += 1
            causes = add_causes(causes, {cause: 1})
            self._pause(retries)
            return retries, causes
        raise SwiftRequestError(method, url, None,
                                '%s: %s' % (type(exc).__name__, exc),
                                retries=retries, reconnects=reconnects,
                                error_class=cause,
                                time_to_failure=monotonic() - start,
                                retry_causes=causes)

    def _status_retry(self, resp, grant, method, url, retry_404, retries,
                      reconnects, causes, start, last, body=None):
        """After a response that is no success: (retries, causes) for the
        next attempt (a 503, a 404 with `retry_404`, a 401 with a renewed
        token) or SwiftRequestError (`body`: the response's, if kept)."""
        status = resp.status
        trans_id = resp.headers.get(self.TRANS_ID)
        if retries < self.retries and (
                status == 503 or (status == 404 and retry_404)):
            retries += 1
            causes = add_causes(causes, {str(status): 1})
            self._pause(retries)
            return retries, causes
        if status == 401 and retries < self.retries and \
                self.tokens.renewable:
            try:
                self._renewed(grant)
            except SwiftAuthError as exc:
                raise SwiftRequestError(
                    method, url, status, '%s (%s)' % (resp.reason, exc),
                    trans_id, retries, reconnects,
                    time_to_failure=monotonic() - start, retry_causes=causes)
            # A new token: tried at once.
            return retries + 1, add_causes(causes, {'401': 1})
        reason, cause = self._refusal(resp, body)
        raise SwiftRequestError(method, url, status, reason, trans_id,
                                retries, reconnects, error_class=cause,
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
            exc = SwiftRequestError(
                'DELETE', '%s/%s?multipart-manifest=delete' % (
                    container, name), code,
                '%s %s' % (outcome.get('Response Status'),
                           outcome.get('Errors')),
                timing.trans_id, timing.retries, timing.reconnects,
                time_to_failure=timing.last_byte_latency,
                retry_causes=timing.retry_causes)
            exc.endpoint = timing.endpoint
            raise exc
        return timing

    def get_object(self, container, name, block_size=DEFAULT_BLOCK_SIZE):
        """Read the body in `block_size` chunks and discard it."""
        return self.request('GET', container, name, block_size=block_size,
                            retry_404=True)

    def head_object(self, container, name, missing_ok=False):
        return self.request('HEAD', container, name, read='headers',
                            missing_ok=missing_ok)

    def stat_object(self, container, name):
        """A benchmark HEAD, timed as a READ: its first byte is the
        response head's, and a 404 is retried as a READ's is."""
        return self.request('HEAD', container, name, retry_404=True)

    def list_page(self, container, limit, prefix=None,
                  block_size=DEFAULT_BLOCK_SIZE):
        """One page of `container`'s listing in JSON (at most `limit`
        names, of `prefix` when given), read in `block_size` chunks and
        discarded; timed as a READ."""
        query = 'format=json&limit=%d' % limit
        if prefix:
            query += '&prefix=' + quote(prefix).replace('/', '%2F')
        return self.request('GET', container, query=query,
                            block_size=block_size)

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

    def _listing(self, container, prefix, retry_timeouts=True,
                 deadline=None):
        """Every name of a container (or the account) listing, page by
        page; SwiftError naming the URL for a page that does not end past
        the marker (the same names again: paging would never end), after
        ssbench.swift.paging.MAX_PAGES pages, or once `deadline` (a
        paging.Deadline) passed.  `retry_timeouts` as for request()."""
        names = []
        marker = ''
        pages = Pages('the account listing' if container is None else
                      'the listing of container %s' % container,
                      deadline=deadline)
        while True:
            query = 'format=json&limit=%d' % LISTING_LIMIT
            if prefix:
                query += '&prefix=' + quote(prefix).replace('/', '%2F')
            if marker:
                query += '&marker=' + quote(marker).replace('/', '%2F')
            timing = self.request('GET', container, query=query,
                                  read='keep', retry_timeouts=retry_timeouts)
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
            pages.next(marker)

    def list_containers(self, prefix=None, retry_timeouts=True,
                        deadline=None):
        """Every container name of the account (all listing pages);
        `retry_timeouts` and `deadline` as for _listing()."""
        return self._listing(None, prefix, retry_timeouts, deadline)

    def list_objects(self, container, prefix=None, deadline=None):
        """Every object name in `container` (all listing pages), by
        `deadline` as for _listing()."""
        return self._listing(container, prefix, deadline=deadline)

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
            body = conn.read_body(MAX_INFO)
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

"""StoreClient: timed requests to a store, retried, that each store's
client (ssbench.swift.client.SwiftClient, ssbench.s3.client.S3Client)
builds on, over our own HTTP/1.1 connection (ssbench.store.httpconn),
kept alive in a ConnectionPool per URL.

Retry rules (docs/internals.rst, "Retries"): 503, 404 on GET/DELETE,
401 (after the store renewed its token) and socket-level failures
are retried up to `retries` times, and counted, each under its cause
(the HTTP status, or the error_class() of the failure, see
ssbench.store.outcome).  Retries follow at once (0.3.9's way) or, with
`retry_backoff`, after a pause that doubles per retry, with jitter, up to
a cap (ssbench.store.backoff); a retry after a 401 never waits.

A pooled keep-alive connection found closed by the server before any of
the request went out is replaced and the request sent on a new connection:
counted apart, as a reconnect, not as a retry.  Once the request went out,
a connection that breaks (reset, closed without an answer, timed out) is a
failed attempt: a retry.

A request's latencies run from its first send, all retries and pauses
included (its Timing); a request that fails for good says how long that
took (RequestError.time_to_failure).
"""
from __future__ import absolute_import, division, print_function

import json
import random
import socket
import time

from ssbench import version
from ssbench.compat import monotonic
from ssbench.errors import SsbenchError
from ssbench.store.backoff import backoff_delay
from ssbench.store.connpool import ConnectionPool
from ssbench.store.httpconn import (MAX_BODY, BodyTooLarge, HTTPError,
                                    StaleConnection, ssl_context)
from ssbench.store.outcome import RequestError, Timing, add_causes, \
    error_class

DEFAULT_RETRIES = 10
DEFAULT_CONNECT_TIMEOUT = 10.0
DEFAULT_NETWORK_TIMEOUT = 20.0
DEFAULT_BLOCK_SIZE = 65536
USER_AGENT = 'ssbench/%s' % version

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


class StoreClient(object):
    """Timed requests to one store for one worker (or the master's own
    work).  A store's client subclasses it with _address(container,
    name, query, size, block, whole) -> (the headers' first slot, the
    path as sent), _route(turn, method, path, headers) -> (pool, path,
    headers, credential) for each attempt, _renew(credential) after a
    401 (when `renewable`), _refusal() and large_objects(block_size)
    (docs/internals.rst, "Stores").

    `concurrency` bounds the idle connections kept per URL: one per
    greenlet.  `retry_backoff` (base, cap) in seconds makes retries wait
    (see ssbench.store.backoff); None retries at once.  `sleep` (by
    default time.sleep, looked up when called: gevent may patch it later)
    and `draw` (a random number in [0, 1)) are the pause and the jitter,
    injectable for tests.  `cacert` and `insecure` are the TLS options of
    https connections (--os-cacert, --insecure).
    """

    TRANS_ID = None         # the answer's header naming the request
    Error = RequestError    # the store's failed requests
    # Bytes of a body read whole (a listing page, a bulk delete's
    # outcome) at most: docs/reliability.rst, "Answers from outside".
    max_body = MAX_BODY
    renewable = False       # a 401 is retried after _renew()
    # read='discard' keeps an error's body (its cause: an S3 code).
    error_bodies = False

    def __init__(self, concurrency=64, retries=DEFAULT_RETRIES,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT,
                 retry_backoff=None, sleep=None, draw=random.random,
                 cacert=None, insecure=False):
        self.concurrency = max(1, int(concurrency))
        self.retries = max(0, int(retries))
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.retry_backoff = retry_backoff
        self._sleep = sleep
        self._draw = draw
        self._tls = (cacert, insecure)
        self.pools = []
        self._ssl_context = None
        self._blocks = {}
        self._turn = -1

    def _pool(self, url):
        """A ConnectionPool of `url` (a TLS context, which loads the CA
        certificates, only for https)."""
        if url.lower().startswith('https:') and self._ssl_context is None:
            self._ssl_context = ssl_context(*self._tls)
        return ConnectionPool(url, self.concurrency, self.connect_timeout,
                              self.network_timeout, self._ssl_context
                              if url.lower().startswith('https:') else None)

    def storage_urls(self):
        """The URLs requests go to."""
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
        """One timed request, retried per the module's rules (`query` as
        the store's _address() takes it).  A body of `size` bytes of
        `fill` is sent in `block_size` chunks from one reused buffer, or
        `body` (bytes) when given.  `read` is 'discard' (read and drop the
        body in `block_size` chunks), 'keep' (return it in Timing.body),
        'headers' (keep the response headers too) or 'errors' (discard,
        but keep an error's body for its cause).  `missing_ok` returns a
        404 as a Timing instead of raising.  Without `retry_timeouts` an
        attempt that times out is not retried: a server that answers no
        faster than network_timeout gives up at once (for the master's
        own first requests, which tell whether the cluster is usable)."""
        if body is not None:
            size, block = len(body), body
        else:
            block = self._block(fill, block_size) if size else None
        first, path_tail = self._address(container, name, query, size,
                                         block, body is not None)
        send_headers = [first, ('User-Agent', USER_AGENT)]
        if headers:
            send_headers.extend(headers.items())
        if method in ('PUT', 'POST'):
            send_headers.append(('Content-Length', str(size)))
        if read == 'discard' and self.error_bodies:
            read = 'errors'
        # The URLs in turn, one per request with its retries, so that
        # each URL's figures are its own (docs/usage.rst).
        turn = self._turn = self._turn + 1
        try:
            timing = self._attempts(turn, method, path_tail, send_headers,
                                    size, block, read, block_size, retry_404,
                                    missing_ok, retry_timeouts)
        except RequestError as exc:
            exc.endpoint = self._endpoint(turn)
            raise
        if len(self.pools) > 1:
            timing.endpoint = self._endpoint(turn)
        return timing

    def _endpoint(self, turn):
        """The index of the URL of request number `turn`, None with only
        one."""
        count = len(self.pools)
        return turn % count if count > 1 else None

    def _refusal(self, resp, body):
        """(reason, error class) of a response that failed for good: its
        reason phrase, and no class (the status says it all)."""
        return resp.reason, None

    def _attempts(self, turn, method, path_tail, send_headers, size, block,
                  read, block_size, retry_404, missing_ok, retry_timeouts):
        """Attempts of a request until one succeeds (its Timing) or fails
        for good (Error); `read` etc. as a store's request() takes them."""
        retries = reconnects = stale = 0
        causes = None          # {cause: count} of the retries
        start = None           # the first send: latencies run from it
        while True:
            pool, path, headers, credential = self._route(
                turn, method, path_tail, send_headers)
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
                resp, credential, method, pool.url + path_tail, retry_404,
                retries, reconnects, causes, start, last, body)

    def _network_retry(self, exc, method, url, retries, reconnects, causes,
                       start, retry_timeouts=True):
        """After an attempt that got no response: (retries, causes) for
        the next one, once paused, or Error when none is left (or it timed
        out and not `retry_timeouts`)."""
        cause = error_class(exc)
        # A body too large is so again: not retried.
        if retries < self.retries and not isinstance(exc, BodyTooLarge) \
                and (retry_timeouts or cause != 'timeout'):
            retries += 1
            causes = add_causes(causes, {cause: 1})
            self._pause(retries)
            return retries, causes
        raise self.Error(method, url, None,
                         '%s: %s' % (type(exc).__name__, exc),
                         retries=retries, reconnects=reconnects,
                         error_class=cause,
                         time_to_failure=monotonic() - start,
                         retry_causes=causes)

    def _status_retry(self, resp, credential, method, url, retry_404,
                      retries, reconnects, causes, start, last, body=None):
        """After a response that is no success: (retries, causes) for the
        next attempt (a 503, a 404 with `retry_404`, a 401 with a renewed
        credential) or Error (`body`: the response's, if kept)."""
        status = resp.status
        trans_id = resp.headers.get(self.TRANS_ID)
        if retries < self.retries and (
                status == 503 or (status == 404 and retry_404)):
            retries += 1
            causes = add_causes(causes, {str(status): 1})
            self._pause(retries)
            return retries, causes
        if status == 401 and retries < self.retries and self.renewable:
            try:
                self._renew(credential)
            except SsbenchError as exc:
                raise self.Error(
                    method, url, status, '%s (%s)' % (resp.reason, exc),
                    trans_id, retries, reconnects,
                    time_to_failure=monotonic() - start, retry_causes=causes)
            # A new token: tried at once.
            return retries + 1, add_causes(causes, {'401': 1})
        reason, cause = self._refusal(resp, body)
        raise self.Error(method, url, status, reason, trans_id, retries,
                         reconnects, error_class=cause,
                         time_to_failure=last - start, retry_causes=causes)

    def _pause(self, retry):
        """Wait before retry number `retry`, with retry_backoff."""
        if self.retry_backoff is not None:
            base, cap = self.retry_backoff
            (self._sleep or time.sleep)(backoff_delay(retry, base, cap,
                                                      self._draw()))

    # -- operations every store has -----------------------------------

    def put_object(self, container, name, size, fill=b'A',
                   block_size=DEFAULT_BLOCK_SIZE, delete_after=None,
                   read='discard'):
        """Upload `size` bytes of `fill` (b'A' create, b'B' update);
        read='headers' keeps the response's headers (its etag).
        `delete_after` is Swift's X-Delete-After (an S3 run has none)."""
        headers = None
        if delete_after:
            headers = {'X-Delete-After': str(int(delete_after))}
        return self.request('PUT', container, name, headers=headers,
                            size=int(size), fill=fill, block_size=block_size,
                            read=read)

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

    def delete_object(self, container, name):
        return self.request('DELETE', container, name, retry_404=True)

    def head_container(self, container, missing_ok=False):
        return self.request('HEAD', container, read='headers',
                            missing_ok=missing_ok)

    def delete_container(self, container, missing_ok=False):
        return self.request('DELETE', container, read='keep',
                            missing_ok=missing_ok)

    def cluster_info(self):
        """The cluster's capabilities (GET /info at the root of the first
        URL's server, without retries) as a dict; None when it does not
        answer with one (/info disabled).  Raises Error when the server
        cannot be reached."""
        self.storage_urls()
        pool = self.pools[0]
        conn = pool.new()
        try:
            conn.send('GET', '/info', [('User-Agent', USER_AGENT)])
            resp = conn.read_response()
            body = conn.read_body(MAX_INFO)
        except _NETWORK_ERRORS as exc:
            raise self.Error('GET', pool.url + ' /info', None,
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

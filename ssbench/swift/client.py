"""SwiftClient: the Swift store (docs/internals.rst, "Stores"): requests
carry a token, go to the storage URLs in turn and make large objects as
SLOs or DLOs (ssbench.swift.largeobject); the request loop is
ssbench.store.client's."""
from __future__ import absolute_import, division, print_function

import json
import re

from ssbench.compat import PY2
from ssbench.errors import SwiftError
from ssbench.store.client import (DEFAULT_BLOCK_SIZE, DEFAULT_CONNECT_TIMEOUT,
                                  DEFAULT_NETWORK_TIMEOUT, DEFAULT_RETRIES,
                                  StoreClient)
from ssbench.store.outcome import RequestError
from ssbench.store.paging import Pages
from ssbench.swift import hints
from ssbench.swift.auth import Credentials

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urllib import quote as _quote
else:
    from urllib.parse import quote as _quote

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


class SwiftRequestError(RequestError, SwiftError):
    """A Swift request that failed for good."""


class SwiftClient(StoreClient):
    """Timed Swift requests for one worker (or the master's own work).

    `tokens` is the token source (by default Credentials for `auth`):
    each attempt uses its current token and its storage URLs, and asks it
    for a new one after a 401.  `auth` also gives the TLS options
    (--insecure, --os-cacert) of the connections.  The other arguments
    are StoreClient's.
    """

    TRANS_ID = 'x-trans-id'
    Error = SwiftRequestError

    def __init__(self, auth, concurrency=64, retries=DEFAULT_RETRIES,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT, tokens=None,
                 **kwargs):
        StoreClient.__init__(self, concurrency, retries, connect_timeout,
                             network_timeout, cacert=auth.os_cacert,
                             insecure=auth.insecure, **kwargs)
        self.auth = auth
        self.tokens = tokens if tokens is not None else Credentials(
            auth, timeout=network_timeout)
        self.grant = None

    # -- auth -------------------------------------------------------------

    def _use(self, grant):
        """Make `grant` the token and storage URLs of later requests."""
        if [p.url for p in self.pools] != grant.storage_urls:
            for pool in self.pools:
                pool.close()
            self.pools = [self._pool(url) for url in grant.storage_urls]
        self.grant = grant
        return grant

    def authenticate(self):
        """Fetch the token now (it is otherwise fetched on first use);
        raises SwiftAuthError."""
        return self._use(self.tokens.current())

    @property
    def renewable(self):
        return self.tokens.renewable

    def _renew(self, stale):
        """A token newer than the Grant `stale`, which Swift rejected."""
        return self._use(self.tokens.renew(stale))

    def storage_urls(self):
        if self.grant is None:
            self.authenticate()
        return [p.url for p in self.pools]

    def large_objects(self, block_size):
        """SLOs and DLOs (ssbench.swift.largeobject)."""
        from ssbench.swift.largeobject import LargeObjects
        return LargeObjects(self, block_size)

    # The one-line SwiftError to raise for the master's own request that
    # failed (what to fix: the token, the storage URL, the policy).
    explain = staticmethod(hints.explain)

    # -- requests -----------------------------------------------------

    def _address(self, container, name, query, size, block, whole):
        """(the headers' first slot: the token's, filled per attempt,
        the quoted path after the storage URL) of a request; `query` is
        the query string."""
        path_tail = ''
        if container is not None:
            path_tail = '/' + quote(container)
            if name is not None:
                path_tail += '/' + quote(name)
        if query:
            path_tail += '?' + query
        return ('X-Auth-Token', None), path_tail

    def _route(self, turn, method, path_tail, send_headers):
        """(pool, request path, headers, the Grant) of one attempt of
        request number `turn`: its storage URL's pool, and the current
        token in the headers' first slot."""
        grant = self.tokens.current()
        if grant is not self.grant:
            self._use(grant)
        pools = self.pools
        pool = pools[0] if len(pools) == 1 else pools[turn % len(pools)]
        send_headers[0] = ('X-Auth-Token', grant.token)
        return pool, pool.path + path_tail, send_headers, grant

    # -- operations ---------------------------------------------------

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

    def put_container(self, container, policy=None):
        headers = {'X-Storage-Policy': policy} if policy else None
        return self.request('PUT', container, headers=headers)

    def _listing(self, container, prefix, retry_timeouts=True,
                 deadline=None):
        """Every name of a container (or the account) listing, page by
        page; SwiftError naming the URL for a page that does not end past
        the marker (the same names again: paging would never end), after
        ssbench.store.paging.MAX_PAGES pages, or once `deadline` (a
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

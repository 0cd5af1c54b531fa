"""SwiftClient against an in-process fake Swift over real HTTP."""
from __future__ import absolute_import, division, print_function

import socket
import sys

import pytest

from ssbench.store import client as store, httpconn
from ssbench.swift import client as swift
from ssbench.errors import StoreError
from ssbench.swift.client import SwiftClient, SwiftRequestError
from ssbench.swift.auth import AuthOptions
from ssbench.swift.auth import Grant
from tests.clocks import FakeClock
from tests.fakes import CLOSE, RESET, SILENT, CannedServer, serve_fake_swift
from tests.integration.store.test_httpconn import (BIG, HeadServer, answer,
                                                   idle_input)
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(60)


fake = pytest.fixture(name='fake')(serve_fake_swift)


def v1(fake, **kwargs):
    return fake.v1_auth(**kwargs)


@pytest.fixture
def client(fake):
    c = SwiftClient(v1(fake), concurrency=4, retries=3)
    c.put_container('c')
    del fake.requests[:]
    yield c
    c.close()


def test_put_get_head_delete(fake, client):
    put = client.put_object('c', 'o1', 100000, b'A', block_size=4096,
                            delete_after=30)
    assert put.status == 201 and put.retries == 0
    assert put.first_byte_latency is None and put.last_byte_latency > 0
    assert put.trans_id.startswith('tx')
    request = fake.requests[-1]
    assert request['body_length'] == 100000
    assert request['headers']['x-delete-after'] == '30'
    assert request['headers']['x-auth-token'] in fake.valid_tokens
    assert fake.containers['c']['o1'] == (b'A', 100000)

    get = client.get_object('c', 'o1', block_size=4096)
    assert get.status == 200 and get.retries == 0 and get.reconnects == 0
    assert get.size == 100000
    assert 0 < get.first_byte_latency <= get.last_byte_latency
    assert get.trans_id.startswith('tx') and get.trans_id != put.trans_id

    head = client.head_object('c', 'o1')
    assert head.first_byte_latency is None
    assert head.headers['content-length'] == '100000'

    update = client.put_object('c', 'o1', 5, b'B')
    assert update.status == 201
    assert fake.containers['c']['o1'] == (b'B', 5)
    assert 'x-delete-after' not in fake.requests[-1]['headers']

    delete = client.delete_object('c', 'o1')
    assert delete.status == 204 and delete.first_byte_latency is None
    assert client.head_object('c', 'o1', missing_ok=True).status == 404


def test_zero_byte_and_exact_block_objects(fake, client):
    client.put_object('c', 'empty', 0)
    assert fake.containers['c']['empty'] == (b'A', 0)
    client.put_object('c', 'exact', 4096, block_size=4096)
    assert fake.containers['c']['exact'] == (b'A', 4096)
    client.put_object('c', 'odd', 4097 * 3, block_size=4096)
    assert fake.containers['c']['odd'] == (b'A', 4097 * 3)
    assert client.get_object('c', 'empty').status == 200


class _SpySocket(object):
    """Wraps a connection's socket; records what goes through it."""

    def __init__(self, sock, log):
        self.sock = sock
        self.log = log

    def send(self, data):
        self.log.append(('send', data))
        return self.sock.send(data)

    def sendall(self, data):
        self.log.append(('sendall', data))
        return self.sock.sendall(data)

    def recv_into(self, buf, nbytes=0):
        self.log.append(('recv_into', nbytes or len(buf)))
        return self.sock.recv_into(buf, nbytes)

    def __getattr__(self, name):
        return getattr(self.sock, name)


@pytest.fixture
def spy_connect(monkeypatch):
    """Every new connection's (port, log) in a list; its socket is spied."""
    opened = []
    real = httpconn.HTTPConnection.connect

    def connect(conn):
        real(conn)
        log = []
        opened.append((conn.sock.getsockname()[1], log))
        conn.sock = _SpySocket(conn.sock, log)
    monkeypatch.setattr(httpconn.HTTPConnection, 'connect', connect)
    return opened


def test_keep_alive_reuses_one_connection(fake, client, spy_connect):
    for i in range(5):
        client.put_object('c', 'o%d' % i, 10)
        client.get_object('c', 'o%d' % i)
    assert len(spy_connect) <= 1   # the fixture's connection, or one new one
    assert len(client.pools[0].idle) == 1
    assert len(fake.requests) == 10


def test_small_put_is_one_send(fake, client, spy_connect):
    client.close()           # force a new (spied) connection
    client.put_object('c', 'small', 100, block_size=4096)
    sent = [data for op, data in spy_connect[0][1]
            if op in ('send', 'sendall')]
    assert len(sent) == 1
    head, body = bytes(sent[0]).split(b'\r\n\r\n', 1)
    assert body == b'A' * 100
    lines = head.split(b'\r\n')
    assert lines[0].startswith(b'PUT /v1/AUTH_test/c/small HTTP/1.1')
    assert b'Host: 127.0.0.1:%d' % fake.port in lines
    assert b'Content-Length: 100' in lines
    assert not [n for n in lines if n.lower().startswith(b'accept-enc')]
    assert fake.containers['c']['small'] == (b'A', 100)


def test_put_body_reuses_one_block_buffer(fake, client, spy_connect):
    client.close()           # force a new (spied) connection
    client.put_object('c', 'big', 10 * 4096 + 100, block_size=4096)
    sent = [data for op, data in spy_connect[0][1]
            if op in ('send', 'sendall')]
    bodies = [d for d in sent if isinstance(d, memoryview)]
    assert len(sent) == 12 and not isinstance(sent[0], memoryview)
    assert len(bodies) == 11
    assert all(len(d) == 4096 for d in bodies[:10]) and len(bodies[10]) == 100
    if not swift.PY2:       # one shared buffer (py2 views hide it)
        assert len(set(id(d.obj) for d in bodies)) == 1
    assert list(client._blocks) == [(b'A', 4096)]
    assert fake.containers['c']['big'] == (b'A', 10 * 4096 + 100)


@pytest.mark.skipif(sys.version_info < (3, 4), reason='needs tracemalloc')
def test_put_does_not_allocate_the_object(fake, client):
    import tracemalloc
    tracemalloc.start()
    try:
        client.put_object('c', 'huge', 20 * 1024 * 1024, block_size=65536)
        client.get_object('c', 'huge', block_size=65536)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    # The fake server runs in this process too; it streams in 64 KiB.
    assert peak < 4 * 1024 * 1024
    assert fake.containers['c']['huge'] == (b'A', 20 * 1024 * 1024)


def test_get_reads_in_block_size_chunks(fake, client, spy_connect):
    client.put_object('c', 'o', 200000)
    client.close()           # force a new (spied) connection
    timing = client.get_object('c', 'o', block_size=1000)
    assert timing.status == 200
    sizes = [n for op, n in spy_connect[0][1] if op == 'recv_into']
    # The head is received into the free end of the connection's buffer
    # (with whatever body came along); the rest of the body comes in
    # block_size receives.
    head = [n for n in sizes if n > 1000]
    body = sizes[len(head):]
    assert 1 <= len(head) <= 20 and sizes[0] == 65536
    assert len(body) >= 100
    assert set(body[:-1]) == set([1000]) and body[-1] <= 1000


def test_retries_503_counted(fake, client):
    fake.script.extend([503, 503])
    timing = client.put_object('c', 'o', 10)
    assert timing.retries == 2 and timing.status == 201


def test_retries_exhausted_raise_with_status_and_trans_id(fake, client):
    fake.script.extend([503] * 4)
    with pytest.raises(SwiftRequestError) as info:
        client.put_object('c', 'o', 10)
    exc = info.value
    assert exc.http_status == 503 and exc.retries == 3
    assert exc.trans_id.startswith('tx') and exc.trans_id in str(exc)
    assert exc.error_class is None and exc.reconnects == 0


def test_404_retried_for_get_and_delete_only(fake, client):
    client.put_object('c', 'o', 10)
    fake.script.extend([404, 404])
    assert client.get_object('c', 'o').retries == 2
    fake.script.extend([404])
    assert client.delete_object('c', 'o').retries == 1
    fake.script.extend([404])
    with pytest.raises(SwiftRequestError) as info:
        client.put_object('c', 'o', 10)
    assert info.value.http_status == 404 and info.value.retries == 0
    with pytest.raises(SwiftRequestError) as info:
        client.get_object('c', 'missing')
    assert info.value.http_status == 404 and info.value.retries == 3
    assert info.value.error_class is None


def test_other_errors_not_retried(fake, client):
    fake.script.append(500)
    with pytest.raises(SwiftRequestError) as info:
        client.get_object('c', 'o')
    assert info.value.http_status == 500 and info.value.retries == 0
    assert len(fake.requests) == 1


def test_401_reauthenticates_and_counts(fake, client):
    old = client.grant.token
    fake.valid_tokens.discard(old)
    timing = client.put_object('c', 'o', 10)
    assert timing.retries == 1 and client.grant.token != old
    assert fake.tokens_issued == 2


def test_401_without_credentials_fails(fake):
    token = fake.issue_token()
    auth = AuthOptions(storage_urls=[fake.storage_url], token=token)
    client = SwiftClient(auth, retries=3)
    try:
        fake.containers['c'] = {}
        assert client.put_object('c', 'o', 1).status == 201
        assert fake.tokens_issued == 1        # -S/-T skipped auth
        fake.valid_tokens.clear()
        with pytest.raises(SwiftRequestError) as info:
            client.put_object('c', 'o', 1)
        assert info.value.http_status == 401
    finally:
        client.close()


def test_preset_token_with_credentials_renews(fake):
    token = fake.issue_token()
    auth = v1(fake, storage_urls=[fake.storage_url], token=token)
    client = SwiftClient(auth, retries=3)
    try:
        fake.containers['c'] = {}
        client.put_object('c', 'o', 1)
        assert fake.tokens_issued == 1
        fake.valid_tokens.clear()
        assert client.put_object('c', 'o', 1).retries == 1
        assert fake.tokens_issued == 2
    finally:
        client.close()


def test_a_failure_that_is_not_network_closes_the_connection(
        fake, client, monkeypatch):
    """A half-used connection (a bug, a gevent kill...) is closed, never
    pooled nor left open."""
    client.put_object('c', 'o', 1)
    conn = client.pools[0].idle[-1]
    assert conn.sock is not None

    def broken(self):
        raise RuntimeError('not a network error')
    monkeypatch.setattr(httpconn.HTTPConnection, 'read_response', broken)
    with pytest.raises(RuntimeError):
        client.get_object('c', 'o')
    assert conn.sock is None and client.pools[0].idle == []


def test_close_leaves_running_requests_to_close_their_connections(client):
    """configure() replaces a worker's client while requests still run:
    their connections close when they end, not kept in a dead pool."""
    client.put_object('c', 'o', 1)
    pool = client.pools[0]
    in_use = pool.get()
    client.close()
    pool.put(in_use)
    assert in_use.sock is None and pool.idle == []


def test_socket_errors_retried_and_counted(fake, client):
    fake.script.extend(['drop', 'drop'])
    client.close()                      # fresh connections: not stale
    timing = client.put_object('c', 'o', 10)
    assert timing.retries == 2


def test_socket_errors_exhausted(fake):
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    auth = AuthOptions(storage_urls=['http://127.0.0.1:%d/v1/a' % port],
                       token='t')
    client = SwiftClient(auth, retries=2, connect_timeout=1)
    with pytest.raises(SwiftRequestError) as info:
        client.get_object('c', 'o')
    assert info.value.http_status is None and info.value.retries == 2
    assert 'refused' in str(info.value).lower()
    # The same name on 2.7, where the class is socket.error.
    assert info.value.error_class == 'ConnectionRefusedError'
    assert info.value.reconnects == 0


def test_closed_keep_alive_replaced_without_retry(fake, client):
    stale = []
    real = store._is_stale
    store._is_stale = lambda exc: stale.append(exc) or real(exc)
    try:
        client.put_object('c', 'o', 10)
        fake.close_after_response = True
        client.put_object('c', 'o', 10)   # the server closes after this
        fake.close_after_response = False
        assert len(client.pools[0].idle) == 1 and stale == []
        wait_for(lambda: idle_input(client.pools[0].idle[0]), 10,
                 'idle_input(client.pools[0].idle[0])')
        timing = client.get_object('c', 'o')
    finally:
        store._is_stale = real
    assert timing.retries == 0 and timing.status == 200
    assert timing.reconnects == 1 and timing.size == 10
    assert len(stale) == 1
    assert len([r for r in fake.requests if r['method'] == 'GET']) == 1


def test_requests_go_to_the_storage_urls_in_turn(fake):
    token = fake.issue_token()
    fake.containers['c'] = {}
    urls = [fake.storage_url, fake.storage_url.replace('127.0.0.1',
                                                       'localhost')]
    client = SwiftClient(AuthOptions(storage_urls=urls, token=token),
                         retries=3)
    hosts = [url.split('/')[2] for url in urls]
    try:
        timings = [client.put_object('c', 'o', 1) for _ in range(4)]
        assert [t.endpoint for t in timings] == [0, 1, 0, 1]
        assert [r['headers']['host'] for r in fake.requests] == hosts * 2
        assert all(len(p.idle) == 1 for p in client.pools)
        # A request and its retries keep to one URL.
        del fake.requests[:]
        fake.script.extend([503, 503])
        assert client.put_object('c', 'o', 1).endpoint == 0
        assert [r['headers']['host'] for r in fake.requests] == \
            [hosts[0]] * 3
        fake.script.extend([503] * 4)
        with pytest.raises(SwiftRequestError) as info:
            client.put_object('c', 'o', 1)
        assert info.value.endpoint == 1
    finally:
        client.close()


def test_one_storage_url_names_no_endpoint(fake, client):
    assert client.put_object('c', 'o', 1).endpoint is None
    fake.script.extend([503] * 4)
    with pytest.raises(SwiftRequestError) as info:
        client.put_object('c', 'o', 1)
    assert info.value.endpoint is None


def test_containers_and_listings(fake, client):
    client.put_container('pol', policy='gold')
    assert fake.policies['pol'] == 'gold'
    assert client.head_container('pol').status == 204
    assert client.head_container('nope', missing_ok=True).status == 404
    fake.listing_limit = 3
    for i in range(8):
        client.put_object('pol', 'obj/%02d' % i, 1)
    assert client.list_objects('pol') == ['obj/%02d' % i for i in range(8)]
    assert client.list_objects('pol', prefix='obj/0') == [
        'obj/%02d' % i for i in range(8)]
    assert client.list_containers() == ['c', 'pol']
    assert client.list_containers(prefix='po') == ['pol']
    with pytest.raises(SwiftRequestError) as info:
        client.delete_container('pol')
    assert info.value.http_status == 409
    for name in client.list_objects('pol'):
        client.delete_object('pol', name)
    assert client.delete_container('pol').status == 204
    assert client.delete_container('pol', missing_ok=True).status == 404


def test_a_benchmark_head_and_a_listing_page_are_timed_as_reads(fake,
                                                                client):
    for name in ('tiny_000001', 'tiny_000002', 'small_000001'):
        client.put_object('c', name, 10)
    head = client.stat_object('c', 'tiny_000001')
    assert head.status == 200 and head.size == 0
    assert 0 <= head.first_byte_latency <= head.last_byte_latency
    fake.script.extend([404])
    assert client.stat_object('c', 'tiny_000002').retries == 1
    page = client.list_page('c', 1, prefix='tiny_', block_size=7)
    assert page.status == 200 and page.size > 0
    assert 0 <= page.first_byte_latency <= page.last_byte_latency
    assert fake.requests[-1]['path'].endswith('/c')
    assert fake.requests[-1]['query'] == 'format=json&limit=1&prefix=tiny_'
    client.list_page('c', 50, prefix='a/b')
    assert fake.requests[-1]['query'] == 'format=json&limit=50&prefix=a%2Fb'
    client.list_page('c', 2)
    assert fake.requests[-1]['query'] == 'format=json&limit=2'


def test_unicode_names(fake, client):
    name = u'\u00e9t\u00e9 \u2603/x'
    client.put_object('c', name, 3)
    assert name in fake.containers['c']
    assert client.list_objects('c') == [name]
    assert client.get_object('c', name).status == 200


@pytest.fixture
def canned():
    server = CannedServer()
    yield server
    server.stop()


def _canned_client(server, **kwargs):
    auth = AuthOptions(storage_urls=['http://127.0.0.1:%d/v1/a' % server.port],
                       token='t')
    kwargs.setdefault('retries', 3)
    return SwiftClient(auth, **kwargs)


def _ok(body=b'', status=b'200 OK', extra=b''):
    return (b'HTTP/1.1 %s\r\nX-Trans-Id: tx9\r\nContent-Length: %d\r\n%s\r\n'
            % (status, len(body), extra)) + body


@pytest.mark.parametrize('pages', [
    # The same page again (a server that ignores the marker).
    [b'[{"name": "a"}, {"name": "b/c"}]'] * 2,
    # A page that goes back.
    [b'[{"name": "m"}]', b'[{"name": "k"}, {"name": "l"}]'],
    # A last entry without a name: no marker to go on from.
    [b'[{"name": "a"}, {"bytes": 1}]'],
])
def test_a_listing_that_does_not_advance_ends_with_an_error(canned, pages):
    canned.replies.extend(_ok(page) for page in pages)
    # More of the same, which a client that loops would read.
    canned.replies.extend(_ok(pages[-1]) for _ in range(5))
    client = _canned_client(canned)
    try:
        with pytest.raises(StoreError) as info:
            client.list_objects('c d')
    finally:
        client.close()
    assert len(canned.requests) == len(pages)
    message = str(info.value)
    assert message.startswith('GET http://127.0.0.1:%d/v1/a/c%%20d?format='
                              'json&limit=10000' % canned.port)
    assert message.endswith(': the listing does not advance (its last name '
                            'is not past the marker: the same names '
                            "again); is the storage URL Swift's?")
    if len(pages) == 2:
        assert '&marker=' + pages[0].split(b'"')[-2].decode().replace(
            '/', '%2F') + ':' in message


def test_a_listing_goes_on_past_subdirs_and_ends_at_an_empty_page(canned):
    canned.replies.extend([_ok(b'[{"subdir": "a/"}, {"name": "b"}]'),
                           _ok(b'[{"subdir": "c/"}]'), _ok(b'[]')])
    client = _canned_client(canned)
    try:
        assert client.list_containers() == ['b']
    finally:
        client.close()
    assert [head.split(b' ')[1] for _, head, _ in canned.requests] == [
        b'/v1/a?format=json&limit=10000',
        b'/v1/a?format=json&limit=10000&marker=b',
        b'/v1/a?format=json&limit=10000&marker=c%2F']


def test_malformed_response_retried_and_counted(canned):
    canned.replies.extend([b'garbage\r\n\r\n', (b'HTTP/1.1 200 OK\r\n\r\nab',
                                                CLOSE), _ok(b'body')])
    client = _canned_client(canned)
    try:
        timing = client.get_object('c', 'o')
        assert timing.status == 200 and timing.retries == 1
        assert timing.trans_id is None     # the read-to-close answer
        timing = client.request('GET', 'c', 'o', read='keep')
        assert timing.retries == 0 and timing.body == b'body'
        assert timing.size == 4
        assert timing.trans_id == 'tx9'
    finally:
        client.close()
    assert canned.connections == 3   # the read-to-close one not reused


def test_timeout_on_reused_connection_is_a_counted_retry(canned):
    canned.replies.extend([_ok(), SILENT, _ok(status=b'201 Created')])
    client = _canned_client(canned, network_timeout=0.3)
    try:
        assert client.put_object('c', 'o', 10).retries == 0
        timing = client.put_object('c', 'o', 10)
        assert timing.status == 201 and timing.retries == 1
        assert timing.reconnects == 0
        assert timing.retry_causes == {'timeout': 1}
        # Timed from the first send: the wait for the timeout is in it.
        assert timing.last_byte_latency >= 0.3
    finally:
        client.close()


def test_a_listing_without_timeout_retries_fails_at_the_first(canned):
    canned.replies.append(SILENT)
    client = _canned_client(canned, network_timeout=0.3)
    try:
        with pytest.raises(SwiftRequestError) as info:
            client.list_containers(retry_timeouts=False)
        assert info.value.error_class == 'timeout'
        assert info.value.retries == 0
        # Other failures are retried as ever.
        canned.replies.extend([CLOSE, _ok(b'[]')])
        assert client.list_containers(retry_timeouts=False) == []
    finally:
        client.close()


@pytest.mark.parametrize('how', [CLOSE, RESET])
def test_a_connection_broken_after_the_request_went_out_is_a_retry(
        canned, how):
    """A reused connection that the server closes or resets once it read
    the request: a retry with its cause, never a reconnect."""
    canned.replies.extend([_ok(), how, _ok(b'abc')])
    client = _canned_client(canned)
    try:
        assert client.get_object('c', 'o').retries == 0
        timing = client.get_object('c', 'o')
    finally:
        client.close()
    assert (timing.status, timing.retries, timing.reconnects) == (200, 1, 0)
    assert timing.retry_causes == {
        'NoResponse' if how == CLOSE else 'ConnectionResetError': 1}
    assert len(canned.requests) == 3


def test_timeouts_exhausted_are_named_timeout(canned):
    canned.replies.extend([SILENT] * 4)
    client = _canned_client(canned, network_timeout=0.2)
    try:
        with pytest.raises(SwiftRequestError) as info:
            client.get_object('c', 'o')
    finally:
        client.close()
    exc = info.value
    assert exc.http_status is None and exc.error_class == 'timeout'
    assert exc.retries == 3 and exc.reconnects == 0


def test_server_closing_after_a_503_is_a_reconnect_not_a_retry(canned):
    """The retry after a 503 finds the connection the server closed
    behind it: sent on a new one, counted apart.  (The pause before the
    retry lasts until the server's FIN is in.)"""
    canned.replies.extend([(_ok(status=b'503 Unavailable'), CLOSE),
                           _ok(b'abc'), (_ok(status=b'503 Unavailable'),
                                         CLOSE),
                           _ok(status=b'503 Unavailable')])

    def until_closed(seconds):
        wait_for(lambda: all(idle_input(c) for c in client.pools[0].idle), 10,
                 'all(idle_input(c) for c in client.pools[0].idle)')
    client = _canned_client(canned, retries=1, retry_backoff=(0.1, 1),
                            sleep=until_closed)
    try:
        timing = client.get_object('c', 'o')
        assert (timing.status, timing.retries, timing.reconnects,
                timing.size) == (200, 1, 1, 3)
        with pytest.raises(SwiftRequestError) as info:
            client.get_object('c', 'o')
    finally:
        client.close()
    exc = info.value
    assert (exc.http_status, exc.retries, exc.reconnects) == (503, 1, 1)
    assert exc.error_class is None
    assert canned.connections == 3


def test_chunked_listing_and_head_headers(canned):
    listing = b'[{"name": "a"}, {"name": "b:c"}]'
    canned.replies.extend([
        b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'
        b'%x\r\n%s\r\n0\r\n\r\n' % (len(listing), listing),
        b'HTTP/1.1 204 No Content\r\n\r\n',
        _ok(status=b'204 No Content', extra=b'X-Container-Object-Count: 2'
            b'\r\nX-Meta-Url: http://h:1/\r\n')])
    client = _canned_client(canned)
    try:
        assert client.list_objects('c') == ['a', 'b:c']
        head = client.head_container('c')
        assert head.headers['x-container-object-count'] == '2'
        assert head.headers['x-meta-url'] == 'http://h:1/'
        assert head.headers['x-trans-id'] == 'tx9'
    finally:
        client.close()
    assert canned.connections == 1
    assert canned.requests[-1][1].startswith(b'HEAD /v1/a/c HTTP/1.1\r\n')


@pytest.fixture
def clock(monkeypatch):
    fake_clock = FakeClock()
    monkeypatch.setattr(store, 'monotonic', fake_clock)
    return fake_clock


def test_retries_wait_with_backoff_and_fail_with_their_time(fake, clock):
    client = SwiftClient(v1(fake), retries=3, retry_backoff=(0.1, 0.25),
                         sleep=clock.sleep, draw=lambda: 0.5)
    try:
        client.put_container('c')
        fake.script.extend([503, 503, 503, 503])
        with pytest.raises(SwiftRequestError) as info:
            client.put_object('c', 'o', 10)
    finally:
        client.close()
    assert clock.slept == pytest.approx([0.075, 0.15, 0.1875])
    exc = info.value
    assert (exc.http_status, exc.retries) == (503, 3)
    assert exc.retry_causes == {'503': 3}
    # From the first send to giving up: every pause included (the fake
    # clock stands still otherwise).
    assert exc.time_to_failure == pytest.approx(0.4125)


def test_success_after_retries_is_timed_from_the_first_send(fake, clock):
    client = SwiftClient(v1(fake), retries=3, retry_backoff=(1.0, 10.0),
                         sleep=clock.sleep, draw=lambda: 0.0)
    try:
        client.put_container('c')
        client.put_object('c', 'o', 10)
        fake.script.extend([503, 404])
        timing = client.get_object('c', 'o')
    finally:
        client.close()
    assert clock.slept == [0.5, 1.0]
    assert (timing.status, timing.retries) == (200, 2)
    assert timing.retry_causes == {'503': 1, '404': 1}
    assert timing.first_byte_latency == timing.last_byte_latency == 1.5


def test_without_backoff_retries_go_at_once(fake):
    slept = []
    client = SwiftClient(v1(fake), retries=3, sleep=slept.append)
    try:
        client.put_container('c')
        fake.script.extend([503, 503])
        timing = client.put_object('c', 'o', 10)
    finally:
        client.close()
    assert timing.retries == 2 and slept == []


def test_a_retry_with_a_new_token_does_not_wait(fake, clock):
    client = SwiftClient(v1(fake), retries=3, retry_backoff=(1.0, 10.0),
                         sleep=clock.sleep)
    try:
        client.put_container('c')
        fake.valid_tokens.discard(client.grant.token)
        timing = client.put_object('c', 'o', 10)
    finally:
        client.close()
    assert timing.retries == 1 and timing.retry_causes == {'401': 1}
    assert clock.slept == []


def test_a_socket_failure_records_its_time(canned, clock):
    canned.replies.extend([SILENT] * 3)
    client = _canned_client(canned, retries=2, network_timeout=0.2,
                            retry_backoff=(2.0, 4.0), sleep=clock.sleep,
                            draw=lambda: 0.0)
    try:
        with pytest.raises(SwiftRequestError) as info:
            client.get_object('c', 'o')
    finally:
        client.close()
    exc = info.value
    assert exc.error_class == 'timeout' and exc.retries == 2
    assert exc.retry_causes == {'timeout': 2}
    assert exc.time_to_failure == 3.0      # 1 + 2 s of pauses


def test_a_failure_without_retries_has_a_time(fake):
    client = SwiftClient(v1(fake), retries=0)
    try:
        client.put_container('c')
        fake.script.append(500)
        with pytest.raises(SwiftRequestError) as info:
            client.get_object('c', 'o')
    finally:
        client.close()
    assert info.value.time_to_failure > 0
    assert info.value.retry_causes is None


@pytest.fixture
def heads():
    server = HeadServer()
    yield server
    server.stop()


class CountingTokens(object):
    """A renewable token source: each renew() issues the next token."""

    renewable = True

    def __init__(self, url):
        self.url = url
        self.grant = Grant([url], 'tk1', 1)
        self.renewals = 0

    def current(self):
        return self.grant

    def renew(self, stale, reason=None):
        if stale is self.grant:
            self.renewals += 1
            self.grant = Grant([self.url], 'tk%d' % (self.renewals + 1),
                               self.renewals + 1)
        return self.grant


def _heads_client(heads, **kwargs):
    url = 'http://127.0.0.1:%d/v1/a' % heads.port
    kwargs.setdefault('retries', 3)
    return SwiftClient(AuthOptions(), tokens=CountingTokens(url), **kwargs)


def test_an_early_413_to_a_put_is_its_answer(heads):
    heads.actions.append(answer(
        b'HTTP/1.1 413 Request Entity Too Large\r\nX-Trans-Id: tx413\r\n'
        b'Content-Length: 0\r\n\r\n', 'close'))
    client = _heads_client(heads)
    try:
        with pytest.raises(SwiftRequestError) as info:
            client.put_object('c', 'o', BIG)
    finally:
        client.close()
    exc = info.value
    assert (exc.http_status, exc.trans_id, exc.error_class) == (
        413, 'tx413', None)
    assert exc.retries == 0 and exc.time_to_failure > 0


def test_an_early_401_to_a_put_renews_the_token_once(heads):
    heads.actions.extend([
        answer(b'HTTP/1.1 401 Unauthorized\r\nX-Trans-Id: tx401\r\n'
               b'Content-Length: 0\r\n\r\n', 'reset'),
        answer(b'HTTP/1.1 201 Created\r\nX-Trans-Id: tx201\r\n'
               b'Content-Length: 0\r\n\r\n')])
    client = _heads_client(heads)
    try:
        timing = client.put_object('c', 'o', 5 * 1024 * 1024)
        renewals = client.tokens.renewals
    finally:
        client.close()
    assert (timing.status, timing.trans_id, timing.retries) == (
        201, 'tx201', 1)
    assert timing.retry_causes == {'401': 1}
    assert renewals == 1
    tokens = [line for head in heads.heads for line in head.split(b'\r\n')
              if line.startswith(b'X-Auth-Token')]
    assert tokens == [b'X-Auth-Token: tk1', b'X-Auth-Token: tk2']


def test_a_listing_page_over_the_byte_limit_ends_the_listing(canned):
    page = b'[' + b', '.join([b'{"name": "o%05d"}' % i
                              for i in range(200)]) + b']'
    canned.replies.extend(_ok(page) for _ in range(4))
    client = _canned_client(canned)
    assert client.max_body == httpconn.MAX_BODY
    client.max_body = 1000
    try:
        with pytest.raises(SwiftRequestError) as info:
            client.list_objects('c')
    finally:
        client.close()
    # Refused by its Content-Length, and not asked for again.
    assert len(canned.requests) == 1
    assert str(info.value).endswith(
        'failed: BodyTooLarge: response body of %d bytes, over the 1000 '
        'read whole' % len(page))


def test_a_listing_that_always_advances_ends_at_max_pages(canned,
                                                          monkeypatch):
    from ssbench.store import paging
    monkeypatch.setattr(paging, 'MAX_PAGES', 4)
    canned.replies.extend(_ok(b'[{"name": "n%03d"}]' % i) for i in range(9))
    client = _canned_client(canned)
    try:
        with pytest.raises(StoreError) as info:
            client.list_objects('c')
    finally:
        client.close()
    assert len(canned.requests) == 4
    assert str(info.value) == 'the listing of container c: more than 4 ' \
        'pages; not ended'


def test_a_listing_ends_at_its_deadline(canned):
    from ssbench.store import paging
    canned.replies.extend(_ok(b'[{"name": "n%03d"}]' % i) for i in range(9))
    client = _canned_client(canned)
    clock = FakeClock(start=0.0, step=1.0)
    try:
        with pytest.raises(paging.DeadlinePassed) as info:
            client.list_containers(deadline=paging.Deadline(
                2.5, 'cleanup-containers', clock))
    finally:
        client.close()
    # Set at 0, checked at 1, 2 and 3 s: after the third page.
    assert len(canned.requests) == 3
    assert str(info.value) == 'cleanup-containers did not end within 2.5 s'

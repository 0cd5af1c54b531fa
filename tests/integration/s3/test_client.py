"""ssbench.s3.client: S3 requests signed per attempt with the Keyring of
that moment, path or virtual-host addressed, an error's S3 code carried
as its error class beside the status, and a worker's S3Access following
its master's CONFIGUREs."""
from __future__ import absolute_import, division, print_function

import collections
import hashlib

import pytest

from ssbench.s3 import batchdelete, multipart, sigv4
from ssbench.s3.operation import content_md5
from ssbench.s3.errorbody import S3RequestError
from ssbench.store.connpool import ConnectionPool
from tests import s3fake
from tests.clocks import FakeClock

from tests.unit.s3.test_client import NOON, SECRET

pytestmark = pytest.mark.timeout(30)


ERROR = (b'<?xml version="1.0" encoding="UTF-8"?><Error><Code>%s</Code>'
         b'<Message>%s</Message></Error>')


class _Scripted(s3fake.Handler):
    """Answers each request with the next (status, body) of
    server.script (200 and nothing once it is empty), keeping
    (method, path, headers, body) of each in server.seen."""

    def respond(self, body):
        server = self.server
        with server.lock:
            server.seen.append((self.command, self.path,
                                dict((k.lower(), v)
                                     for k, v in self.headers.items()),
                                body))
            status, reply = server.script.popleft() if server.script \
                else (200, b'')
            request_id = 'req%d' % len(server.seen)
        self.reply(status, reply, [('x-amz-request-id', request_id)])


def host_header(url):
    """The Host header a connection to `url` sends: what is signed."""
    return ConnectionPool(url, 1, None, None).host_header


@pytest.fixture
def server():
    with s3fake.serving(_Scripted, seen=[],
                        script=collections.deque()) as httpd:
        yield httpd


def client_of(server, clock, **kwargs):
    return s3fake.client_of(server.url, clock, SECRET, 2, **kwargs)


def expected_authorization(method, path, query, host, amz_date, payload,
                           region='us-east-1'):
    """The Authorization header of a request, from the secret itself."""
    key = sigv4.SigningKey('AKID', amz_date[:8], region, sigv4.derive_key(
        SECRET, amz_date[:8], region))
    return key.authorization(method, path, query, [
        ('host', host), ('x-amz-date', amz_date),
        ('x-amz-content-sha256', payload)], amz_date, payload)


def test_put_get_delete_path_style_each_signed(server):
    clock = FakeClock(NOON)
    client = client_of(server, clock)
    try:
        timing = client.put_object('bucket-000001', 'tiny_000042', 5000)
        assert timing.status == 200 and timing.trans_id == 'req1'
        clock.advance(2)
        timing = client.get_object('bucket-000001', 'tiny_000042')
        assert timing.first_byte_latency is not None
        client.delete_object('bucket-000001', 'tiny_000042')
    finally:
        client.close()
    host = host_header(server.url)
    for (method, path, headers, body), amz in zip(server.seen, (
            '20240229T120000Z', '20240229T120002Z', '20240229T120002Z')):
        assert path == '/bucket-000001/tiny_000042'
        assert headers['x-amz-date'] == amz
        assert headers['x-amz-content-sha256'] == 'UNSIGNED-PAYLOAD'
        assert headers['authorization'] == expected_authorization(
            method, path, (), host, amz, 'UNSIGNED-PAYLOAD')
        assert 'x-auth-token' not in headers
    assert [seen[0] for seen in server.seen] == ['PUT', 'GET', 'DELETE']
    assert server.seen[0][3] == b'A' * 5000


def test_each_retry_is_signed_again_at_its_own_date(server):
    # 23:59:59, then a 503 and a retry a second later: the next day's
    # key signs the retry.
    clock = FakeClock(NOON + 12 * 3600 - 1)
    server.script.append((503, ERROR % (b'SlowDown', b'Reduce your rate')))
    client = client_of(server, clock)
    assert len(client.ring[0].dates) == 2
    original = client._route

    def route(*args):
        found = original(*args)
        clock.advance(1)
        return found
    client._route = route
    try:
        timing = client.get_object('b-000000', 'o')
    finally:
        client.close()
    assert timing.retries == 1 and timing.retry_causes == {'503': 1}
    dates = [seen[2]['x-amz-date'] for seen in server.seen]
    assert dates == ['20240229T235959Z', '20240301T000000Z']
    assert server.seen[1][2]['authorization'] == expected_authorization(
        'GET', '/b-000000/o', (), host_header(server.url), dates[1],
        'UNSIGNED-PAYLOAD')


def test_an_s3_error_code_is_the_error_class_beside_the_status(server):
    server.script.append((403, ERROR % (b'SignatureDoesNotMatch',
                                        b'The request signature we '
                                        b'calculated does not match')))
    client = client_of(server, FakeClock(NOON))
    try:
        with pytest.raises(S3RequestError) as caught:
            client.get_object('b-000000', 'o')
    finally:
        client.close()
    error = caught.value
    assert error.http_status == 403
    assert error.error_class == 'SignatureDoesNotMatch'
    assert 'SignatureDoesNotMatch: The request signature' in str(error)
    assert len(str(error).splitlines()) == 1


def test_an_error_without_an_s3_body_keeps_its_reason(server):
    server.script.append((403, b''))
    client = client_of(server, FakeClock(NOON))
    try:
        with pytest.raises(S3RequestError) as caught:
            client.delete_object('b-000000', 'o')
    finally:
        client.close()
    assert caught.value.error_class is None
    assert caught.value.reason == 'Forbidden'


def test_a_signed_payload_is_the_bodys_sha256(server):
    client = client_of(server, FakeClock(NOON), signed_payload=True)
    try:
        client.put_object('b-000000', 'o', 100000, b'B', block_size=4096)
        client.put_object('b-000000', 'empty', 0)
        client.put_object('b-000000', 'o', 100000, b'B', block_size=4096)
    finally:
        client.close()
    digest = hashlib.sha256(b'B' * 100000).hexdigest()
    payloads = [seen[2]['x-amz-content-sha256'] for seen in server.seen]
    assert payloads == [digest, sigv4.EMPTY_PAYLOAD, digest]
    method, path, headers, body = server.seen[0]
    assert headers['authorization'] == expected_authorization(
        'PUT', path, (), host_header(server.url), headers['x-amz-date'],
        digest)


def test_perform_sends_an_operation_and_returns_the_body(server):
    # Two DeleteObjects bodies of one size: each signed with its own hash.
    server.script.extend([(200, b'<DeleteResult/>'), (200, b'<x/>'),
                          (404, ERROR % (b'NoSuchUpload', b'gone'))])
    client = client_of(server, FakeClock(NOON), signed_payload=True)
    try:
        assert client.perform(batchdelete.delete_objects(
            'b-000000', [u'k1', u'caf\xe9'])) == b'<DeleteResult/>'
        assert client.perform(batchdelete.delete_objects(
            'b-000000', [u'k2', u'caf\xe9'])) == b'<x/>'
        assert client.perform(multipart.abort('b-000000', u'a b/c', 'u1'),
                              missing_ok=True) is None
    finally:
        client.close()
    (method, path, headers, body), second, third = server.seen
    assert (method, path) == ('POST', '/b-000000?delete=')
    assert body == batchdelete.delete_body([u'k1', u'caf\xe9'])
    assert headers['content-md5'] == content_md5(body)
    assert headers['content-length'] == str(len(body))
    assert headers['x-amz-content-sha256'] == sigv4.payload_hash(body)
    assert second[2]['x-amz-content-sha256'] == sigv4.payload_hash(
        second[3]) != sigv4.payload_hash(body)
    assert third[:2] == ('DELETE', '/b-000000/a%20b/c?uploadId=u1')
    assert third[2]['authorization'] == expected_authorization(
        'DELETE', '/b-000000/a b/c', [('uploadId', 'u1')],
        host_header(server.url), third[2]['x-amz-date'],
        sigv4.EMPTY_PAYLOAD)


def test_list_page_and_a_query_that_needs_escaping(server):
    client = client_of(server, FakeClock(NOON))
    try:
        client.list_page('b-000000', 100, prefix='tiny /x')
    finally:
        client.close()
    method, path, headers, _ = server.seen[0]
    assert path == '/b-000000?list-type=2&max-keys=100&prefix=tiny%20%2Fx'
    assert headers['authorization'] == expected_authorization(
        'GET', '/b-000000', [('list-type', '2'), ('max-keys', '100'),
                             ('prefix', 'tiny /x')],
        host_header(server.url), headers['x-amz-date'], 'UNSIGNED-PAYLOAD')


def test_create_bucket_outside_us_east_1_names_its_region(server):
    client = client_of(server, FakeClock(NOON), region='eu-west-1')
    try:
        client.put_container('b-000000', policy=None)
        assert client.head_container('b-000000').status == 200
    finally:
        client.close()
    (method, path, headers, body), head = server.seen
    assert (method, path) == ('PUT', '/b-000000')
    assert b'<LocationConstraint>eu-west-1</LocationConstraint>' in body
    assert '/eu-west-1/s3/aws4_request' in headers['authorization']
    assert head[:2] == ('HEAD', '/b-000000')


def test_virtual_addressing_puts_the_bucket_in_the_host(server):
    client = client_of(server, FakeClock(NOON), addressing='virtual')
    route = client._route
    try:
        pool, path, headers, _ = route(0, 'GET', '', [
            ('/b-000000/tiny 1', [], 'UNSIGNED-PAYLOAD'), ('User-Agent', 'x')])
        assert path == '/tiny%201'
        assert pool.url == 'http://b-000000.127.0.0.1:%d' % \
            server.server_address[1]
        amz = dict(headers)['x-amz-date']
        assert dict(headers)['Authorization'] == expected_authorization(
            'GET', '/tiny 1', (), 'b-000000.' + host_header(server.url),
            amz, 'UNSIGNED-PAYLOAD')
        # The service itself (ListBuckets) has no bucket in its host.
        pool, path, _, _ = route(0, 'GET', '', [
            ('/', [], 'UNSIGNED-PAYLOAD'), ('User-Agent', 'x')])
        assert pool.url == server.url and path == '/'
    finally:
        client.close()


def test_an_answer_read_whole_is_bounded_and_not_asked_again(server):
    # ListBuckets (run-scenario --s3's first request) over the limit: one
    # request, refused by its Content-Length, nothing parsed.
    assert client_of(server, FakeClock(NOON)).max_body == 8 * 1024 * 1024
    huge = b'<ListAllMyBucketsResult>' + b' ' * 5000
    server.script.extend([(200, huge)] * 3)
    client = client_of(server, FakeClock(NOON))
    client.max_body = 4096
    try:
        with pytest.raises(S3RequestError) as info:
            client.list_buckets()
    finally:
        client.close()
    assert len(server.seen) == 1
    assert str(info.value).endswith(
        'failed: BodyTooLarge: response body of %d bytes, over the 4096 '
        'read whole' % len(huge))


def test_an_error_body_is_kept_only_in_part(server):
    # The code comes first: kept; the rest, however long, is not read.
    body = ERROR % (b'SlowDown', b'calm') + b' ' * (200 * 1024)
    server.script.append((500, body))
    client = client_of(server, FakeClock(NOON))
    try:
        with pytest.raises(S3RequestError) as info:
            client.get_object('b', 'k')
    finally:
        client.close()
    assert info.value.error_class == 'SlowDown'

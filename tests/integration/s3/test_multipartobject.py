"""ssbench.s3.multipartobject: a large object over S3 as one timed
multipart upload (aborted when it fails), read and deleted plainly,
against a small S3 server that keeps what it is sent."""
from __future__ import absolute_import, division, print_function

import calendar
import hashlib
import re

import pytest

from ssbench import CREATE_OBJECT, DELETE_OBJECT, READ_OBJECT, UPDATE_OBJECT
from ssbench.compat import PY2
from ssbench.s3 import multipart
from ssbench.s3.errorbody import S3RequestError
from ssbench.wire import protocol
from ssbench.wire.messagecheck import check_from_worker
from ssbench.worker.execution import StoreJobs
from ssbench.s3.multipartobject import MultipartObjects
from tests import s3fake
from tests.clocks import FakeClock

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urlparse import parse_qsl, urlsplit
else:
    from urllib.parse import parse_qsl, urlsplit

pytestmark = pytest.mark.timeout(30)

NOON = calendar.timegm((2024, 2, 29, 12, 0, 0, 0, 0, 0))
# Small parts: the store's limits are the master's to check.
PART = 1000
ERROR = (b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code>'
         b'<Message>%s</Message></Error>')


class _S3(s3fake.Handler):
    """Objects and multipart uploads in memory (server.objects,
    server.uploads); server.fail_parts maps a part number to the status
    its UploadPart answers, server.complete_error the S3 code of an
    <Error> that Complete's 200 carries, server.abort_status the status
    of a refused AbortMultipartUpload."""

    def respond(self, body):
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        key = parts.path
        server = self.server
        with server.lock:
            server.seen.append((self.command, key, query, len(body)))
            getattr(self, '_' + self.command.lower())(key, query, body)

    def _post(self, key, query, body):
        server = self.server
        if 'uploads' in query:
            upload_id = 'up%d' % len(server.seen)
            server.uploads[upload_id] = {}
            return self.reply(200, (
                '<InitiateMultipartUploadResult><Key>%s</Key><UploadId>%s'
                '</UploadId></InitiateMultipartUploadResult>' % (
                    key, upload_id)).encode('ascii'))
        stored = server.uploads.pop(query['uploadId'])
        if server.complete_error:
            # S3 answers at once and sends white space while it works.
            return self.reply(200, b'\n  ' + ERROR % (
                server.complete_error, b'We encountered an internal error'))
        etags = re.findall(br'<ETag>"([0-9a-f]+)"</ETag>', body)
        numbers = sorted(stored)
        assert etags == [stored[n][1] for n in numbers]
        server.objects[key] = b''.join(stored[n][0] for n in numbers)
        self.reply(200, (
            '<CompleteMultipartUploadResult><Key>%s</Key><ETag>"%s"</ETag>'
            '</CompleteMultipartUploadResult>' % (
                key, multipart.multipart_etag(
                    [etag.decode('ascii') for etag in etags]))
        ).encode('ascii'))

    def _put(self, key, query, body):
        server = self.server
        number = int(query['partNumber'])
        status = server.fail_parts.get(number)
        if status:
            return self.reply(status, ERROR % (b'InternalError', b'oops'))
        etag = hashlib.md5(body).hexdigest().encode('ascii')
        server.uploads[query['uploadId']][number] = (body, etag)
        self.reply(200, headers=[('ETag', '"%s"' % etag.decode('ascii'))])

    def _get(self, key, query, body):
        self.reply(200, self.server.objects[key])

    def _head(self, key, query, body):
        found = self.server.objects.get(key)
        self.reply(404 if found is None else 200)

    def _delete(self, key, query, body):
        if 'uploadId' in query and self.server.abort_status:
            return self.reply(self.server.abort_status,
                              ERROR % (b'AccessDenied', b'no'))
        if 'uploadId' in query:
            self.server.uploads.pop(query['uploadId'], None)
            self.server.aborted.append(query['uploadId'])
        else:
            self.server.objects.pop(key, None)
        self.reply(204)


@pytest.fixture
def s3():
    with s3fake.serving(_S3, seen=[], objects={}, uploads={}, aborted=[],
                        fail_parts={}, complete_error=None,
                        abort_status=None) as httpd:
        client = s3fake.client_of(httpd.url, FakeClock(NOON), 'the-secret',
                                  1)
        client.server = httpd
        yield client
        client.close()


def job(kind, size=None, **more):
    found = {'type': kind, 'container': 'bench-000000-default-policy',
             'name': 'big_000001', 'size_str': 'big', 'segment_size': PART,
             'large_object': 'slo', 'job_id': 1}
    if size is not None:
        found['size'] = size
    found.update(more)
    return found


KEY = '/bench-000000-default-policy/big_000001'


def test_create_is_one_multipart_upload_timed_as_one(s3):
    timing = MultipartObjects(s3, 256).run(job(CREATE_OBJECT, 2500))
    server = s3.server
    assert server.objects[KEY] == b'A' * 2500
    methods = [(method, sorted(query)) for method, _, query, _ in
               server.seen]
    assert methods[0] == ('POST', ['uploads'])
    assert sorted(methods[1:4]) == [('PUT', ['partNumber', 'uploadId'])] * 3
    assert methods[4] == ('POST', ['uploadId'])
    assert sorted(size for method, _, _, size in server.seen
                  if method == 'PUT') == [500, 1000, 1000]
    assert timing.status == 200 and timing.retries == 0
    assert 0 < timing.first_byte_latency <= timing.last_byte_latency
    assert timing.segments['count'] == 3
    assert server.uploads == {} and server.aborted == []


def test_update_read_and_delete(s3):
    objects = MultipartObjects(s3, 256)
    objects.run(job(CREATE_OBJECT, 1500))
    objects.run(job(UPDATE_OBJECT, 2000))
    assert s3.server.objects[KEY] == b'B' * 2000
    read = objects.run(job(READ_OBJECT))
    assert read.size == 2000 and read.first_byte_latency is not None
    assert read.segments is None
    objects.run(job(DELETE_OBJECT))
    assert KEY not in s3.server.objects
    # A plain GET and a plain DELETE: no query.
    assert [(method, query) for method, _, query, _ in
            s3.server.seen[-2:]] == [('GET', {}), ('DELETE', {})]


def test_a_failed_part_aborts_the_upload(s3):
    s3.server.fail_parts[2] = 500
    with pytest.raises(S3RequestError) as caught:
        MultipartObjects(s3, 256).run(job(CREATE_OBJECT, 2500))
    error = caught.value
    assert error.http_status == 500 and error.error_class == 'InternalError'
    assert error.time_to_failure > 0
    server = s3.server
    assert len(server.aborted) == 1 and server.uploads == {}
    assert server.seen[-1][0] == 'DELETE'
    assert ('POST', ['uploadId']) not in [
        (method, sorted(query)) for method, _, query, _ in server.seen]
    assert KEY not in server.objects


def test_a_failed_abort_is_logged_and_the_parts_failure_raised(s3, caplog):
    s3.server.fail_parts[1] = 500
    s3.server.abort_status = 403
    with pytest.raises(S3RequestError) as caught:
        MultipartObjects(s3, 256).run(job(CREATE_OBJECT, 1500))
    assert caught.value.http_status == 500
    assert len(s3.server.uploads) == 1
    upload_id = list(s3.server.uploads)[0]
    assert 'multipart upload %s of ' % upload_id in caplog.text
    assert 'AccessDenied' in caplog.text


def test_an_error_in_completes_200_fails_with_its_code_and_aborts(s3):
    s3.server.complete_error = b'InternalError'
    with pytest.raises(S3RequestError) as caught:
        MultipartObjects(s3, 256).run(job(CREATE_OBJECT, 1500))
    assert caught.value.http_status == 200
    assert caught.value.error_class == 'InternalError'
    assert len(s3.server.aborted) == 1


def test_a_retried_part_counts_in_the_operation(s3):
    s3.server.fail_parts[1] = 503
    original = s3.server.fail_parts

    class Once(dict):
        def get(self, number, default=None):
            return original.pop(number, default)
    s3.server.fail_parts = Once()
    timing = MultipartObjects(s3, 256).run(job(CREATE_OBJECT, 1500))
    assert timing.retries == 1 and timing.retry_causes == {'503': 1}
    assert timing.segments['retries'] == 1
    assert s3.server.objects[KEY] == b'A' * 1500


def test_head_first_skips_an_object_that_is_there(s3):
    objects = MultipartObjects(s3, 256)
    objects.run(job(CREATE_OBJECT, 1500))
    before = len(s3.server.seen)
    timing = objects.run(job(CREATE_OBJECT, 1500, head_first=True))
    assert timing.status == 200
    assert [seen[0] for seen in s3.server.seen[before:]] == ['HEAD']


def test_swift_jobs_send_large_objects_over_s3_as_multipart(s3):
    results = []
    jobs = StoreJobs('w1', results.append, lambda *a, **k: s3, None,
                     lambda: None, own_auth=object(), now=FakeClock(1e9))
    for kind in (CREATE_OBJECT, READ_OBJECT, DELETE_OBJECT):
        jobs.run_job(job(kind, size=2500 if kind == CREATE_OBJECT
                         else None))
    for result in results:
        assert 'exception' not in result, result
        assert check_from_worker(protocol.unpack(protocol.pack(
            result))) is None
    assert results[0]['segments']['count'] == 3
    assert results[1]['size'] == 2500
    assert s3.server.seen[0][2] == {'uploads': ''}

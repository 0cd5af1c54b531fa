"""The S3 building blocks (ssbench.s3.listing, batchdelete, multipart),
signed by ssbench.s3.sigv4 and sent over ssbench.store.httpconn, against
the local Swift's s3api: a listing of several pages, a batch delete, a
multipart upload read back whole by botocore, and an incomplete one
listed and aborted.  Makes its own bucket and leaves nothing behind.

Skipped unless `tools/saio status` says Swift is up (failed instead with
SSBENCH_REQUIRE_SWIFT=1).
"""
from __future__ import absolute_import, division, print_function

import hashlib
import uuid

import pytest

from ssbench.s3 import batchdelete, listing, multipart
from ssbench.s3.operation import Operation, object_path
from tests import localswift
from tests.e2e.s3support import botocore_s3, delete_bucket
from tests.s3client import S3Client

pytestmark = pytest.mark.e2e

MIB = multipart.MIB


def all_keys(s3, bucket, max_keys=None):
    """(keys, pages) of a bucket listed page by page."""
    keys, pages, token = [], 0, None
    while True:
        _, body = s3.ok(listing.list_objects(bucket, continuation_token=token,
                                             max_keys=max_keys))
        page = listing.parse_objects(body)
        keys.extend(entry.key for entry in page.objects)
        pages += 1
        if not page.truncated:
            return keys, pages
        token = page.next_token


def uploads(s3, bucket):
    return multipart.parse_uploads(
        s3.ok(multipart.list_uploads(bucket))[1]).uploads


@pytest.fixture
def s3():
    localswift.require_swift()
    client = S3Client()
    yield client
    client.close()


@pytest.fixture
def bucket(s3):
    """A bucket of its own, emptied (uploads aborted, objects deleted)
    and deleted after the test, by botocore: whatever the library did."""
    name = 's3-library-%s' % uuid.uuid4().hex[:12]
    s3.ok(Operation('PUT', object_path(name), [], [('Content-Length', '0')],
                    b''))
    yield name
    boto = botocore_s3(fail_fast=True)
    delete_bucket(boto, name)
    assert name not in [b['Name'] for b in boto.list_buckets()['Buckets']]


def test_list_pages_then_delete_in_a_batch(s3, bucket):
    keys = sorted([u'obj-%02d' % n for n in range(7)] +
                  [u'a&b <c>', u'caf\xe9/\xe9t\xe9', u'x+y z', u'tab\tkey'])
    for key in keys:
        s3.ok(Operation('PUT', object_path(bucket, key), [],
                        [('Content-Length', '1')], b''), b'k')
    listed, pages = all_keys(s3, bucket, max_keys=3)
    assert (listed, pages) == (keys, 4)
    assert listing.parse_buckets(s3.ok(listing.list_buckets())[1],
                                 u's3-library-').names.count(bucket) == 1
    _, body = s3.ok(batchdelete.delete_objects(bucket, keys[:-1] +
                                               [u'never there']))
    assert batchdelete.parse_result(body) == ([], [])
    assert all_keys(s3, bucket) == ([keys[-1]], 1)


def test_a_multipart_upload_completes_whole(s3, bucket):
    key = u'large & <object>'
    size = 2 * 5 * MIB + 1000
    data = b''.join(bytes(bytearray([part.number])) * part.size
                    for part in multipart.part_plan(size, 5 * MIB))
    upload_id = multipart.parse_create(s3.ok(
        multipart.create(bucket, key))[1])
    etags = []
    for part in multipart.part_plan(size, 5 * MIB):
        headers, _ = s3.ok(multipart.upload_part(bucket, key, upload_id,
                                                 part),
                           data[part.offset:part.offset + part.size])
        etags.append(headers['etag'])
    assert len(etags) == 3
    done = multipart.parse_complete(s3.ok(multipart.complete(
        bucket, key, upload_id, etags))[1])
    assert (done.bucket, done.key) == (bucket, key)
    assert done.etag.strip('"') == multipart.multipart_etag(etags)
    got = botocore_s3(fail_fast=True).get_object(Bucket=bucket,
                                                 Key=key)
    assert got['ContentLength'] == size
    assert hashlib.md5(got['Body'].read()).hexdigest() == \
        hashlib.md5(data).hexdigest()
    assert uploads(s3, bucket) == []


def test_an_incomplete_upload_is_listed_and_aborted(s3, bucket):
    key = u'left behind'
    upload_id = multipart.parse_create(s3.ok(
        multipart.create(bucket, key))[1])
    s3.ok(multipart.upload_part(bucket, key, upload_id,
                                multipart.Part(1, 0, 1000)), b'x' * 1000)
    assert uploads(s3, bucket) == [multipart.Upload(key, upload_id)]
    assert all_keys(s3, bucket) == ([], 1)
    status, _, _ = s3.call(multipart.abort(bucket, key, upload_id))
    assert status == 204
    assert uploads(s3, bucket) == []
    status, _, body = s3.call(multipart.complete(bucket, key, upload_id,
                                                 ['0' * 32]))
    assert status == 404 and b'<Code>NoSuchUpload</Code>' in body

"""Capture the answers of the local Swift's s3api that tests/unit/s3 reads
(tests/data/s3; SOURCE.txt there says how they were made):

    PYTHONPATH=$PWD python -m tests.s3capture [DIRECTORY]

Makes a bucket of its own, writes each answer's body as it came, and
deletes everything it made.
"""
from __future__ import absolute_import, division, print_function

import io
import os
import sys
import uuid

from ssbench.s3 import batchdelete, listing, multipart
from ssbench.s3.operation import Operation, object_path
from tests import paths
from tests.s3client import S3Client

KEYS = [u'a&b <c>.txt', u'caf\xe9/\u00e9t\xe9', u'x+y z', u'"q\'']
PART = 5 * 1024 * 1024


def capture(folder):
    s3 = S3Client()
    bucket = 'capture-%s' % uuid.uuid4().hex[:10]

    def save(name, data):
        with io.open(os.path.join(folder, name), 'wb') as fp:
            fp.write(data)

    s3.ok(Operation('PUT', object_path(bucket), [],
                    [('Content-Length', '0')], b''))
    try:
        for key in KEYS:
            s3.ok(Operation('PUT', object_path(bucket, key), [],
                            [('Content-Length', '3')], b''), b'abc')
        _, body = s3.ok(listing.list_objects(bucket, max_keys=3))
        save('listobjects-truncated.xml', body)
        token = listing.parse_objects(body).next_token
        save('listobjects-last.xml', s3.ok(listing.list_objects(
            bucket, continuation_token=token, max_keys=3))[1])
        save('listbuckets.xml', s3.ok(listing.list_buckets())[1])

        key = u'big & <large>'
        upload_id = multipart.parse_create(s3.ok(
            multipart.create(bucket, key))[1])
        etags = [s3.ok(multipart.upload_part(bucket, key, upload_id, part),
                       b'p' * part.size)[0]['etag']
                 for part in multipart.part_plan(PART + 10, PART)]
        save('listuploads.xml', s3.ok(multipart.list_uploads(bucket))[1])
        wrong = etags[:1] + ['"%s"' % ('0' * 32)]
        save('complete-invalidpart.xml', s3.call(multipart.complete(
            bucket, key, upload_id, wrong))[2])
        save('complete.xml', s3.ok(multipart.complete(bucket, key,
                                                      upload_id, etags))[1])
        small = u'small parts'
        upload_id = multipart.parse_create(s3.ok(
            multipart.create(bucket, small))[1])
        save('create.xml', s3.ok(multipart.create(bucket, small))[1])
        small_etags = [s3.ok(multipart.upload_part(
            bucket, small, upload_id, multipart.Part(number, 0, 1)),
            b'x')[0]['etag'] for number in (1, 2)]
        save('complete-entitytoosmall.xml', s3.call(multipart.complete(
            bucket, small, upload_id, small_etags))[2])

        save('delete-verbose.xml', s3.ok(batchdelete.delete_objects(
            bucket, KEYS[:2] + [u'never there'], quiet=False))[1])
        save('delete-quiet.xml', s3.ok(batchdelete.delete_objects(
            bucket, KEYS[2:] + [key]))[1])
    finally:
        for upload in multipart.parse_uploads(
                s3.ok(multipart.list_uploads(bucket))[1]).uploads:
            s3.ok(multipart.abort(bucket, upload.key, upload.upload_id))
        keys = [entry.key for entry in listing.parse_objects(
            s3.ok(listing.list_objects(bucket))[1]).objects]
        if keys:
            s3.ok(batchdelete.delete_objects(bucket, keys))
        s3.ok(Operation('DELETE', object_path(bucket), [], [], b''))
        s3.close()


if __name__ == '__main__':
    capture(sys.argv[1] if len(sys.argv) > 1 else
            os.path.join(paths.DATA, 's3'))

"""run-scenario --s3 of large objects against the local Swift's S3 API
(tools/saio): objects of a size class with segment_size go up as
multipart uploads of 5 MiB parts (the s3api's smallest by default),
without an error; botocore reads one back whole, its ETag of the
multipart form, and no upload is left incomplete.  The buckets are
deleted with botocore."""
from __future__ import absolute_import, division, print_function

import json
import os

import pytest

from tests import localswift
from tests.e2e import support
from tests.e2e.s3support import botocore_s3, delete_bucket, s3_env

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

MiB = 1024 * 1024
SIZE = 11 * MiB
PART = 5 * MiB


def incomplete_uploads(s3, bucket):
    return s3.list_multipart_uploads(Bucket=bucket).get('Uploads', [])


@pytest.fixture
def large(tmpdir):
    """(scenario path, its one bucket) of a few CREATEs and READs of
    11 MiB objects in 5 MiB parts; the bucket is deleted afterwards."""
    localswift.require_swift()
    base = support.unique_base()
    data = {'name': 's3 large objects',
            'sizes': [{'name': 'big', 'size_min': SIZE, 'size_max': SIZE,
                       'segment_size': PART}],
            'initial_files': {'big': 2}, 'operation_count': 4,
            'crud_profile': [1, 1, 0, 0], 'user_count': 2,
            'container_base': base, 'container_count': 1}
    path = os.path.join(str(tmpdir), 'large.scenario')
    with open(path, 'w') as fp:
        json.dump(data, fp)
    bucket = base + '-000000-default-policy'
    yield path, bucket
    delete_bucket(botocore_s3(), bucket)


def test_large_objects_go_up_as_multipart_uploads(tmpdir, large):
    scenario, bucket = large
    stats = os.path.join(str(tmpdir), 'large.stat.gz')
    ran = support.master(
        'run-scenario', '-f', scenario, '--s3', '--workers', '1', '-s',
        stats, '--progress', 'none', '--seed', '7',
        *support.zmq_args(), env=s3_env(), timeout=90)
    assert ran.status == 0, ran
    results = support.read_results(stats)
    assert [r['exception'] for r in results if 'exception' in r] == []
    uploads = [r for r in results if r['type'] == 'upload_object']
    assert uploads and [r for r in results if r['type'] == 'get_object']
    for record in uploads:
        # Parts 1 and 2 of 5 MiB, part 3 the last MiB.
        assert record['segments']['count'] == 3
        assert 0 < record['first_byte_latency'] <= \
            record['last_byte_latency']
    for record in results:
        if record['type'] == 'get_object':
            assert record['size'] == SIZE
    s3 = botocore_s3()
    # The initial objects stay (the run deletes those it created): each
    # whole, as the worker wrote it (b'A's), with a multipart ETag.
    keys = [item['Key'] for item in
            s3.list_objects_v2(Bucket=bucket).get('Contents', [])]
    assert keys
    got = s3.get_object(Bucket=bucket, Key=keys[0])
    body = got['Body'].read()
    assert len(body) == SIZE and body == b'A' * SIZE
    assert got['ETag'].strip('"').endswith('-3')
    assert incomplete_uploads(s3, bucket) == []

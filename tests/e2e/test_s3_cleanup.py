"""cleanup-containers --s3 against the local Swift's S3 API (tools/saio):
botocore makes buckets of a base of its own, with objects (one of them a
key that XML cannot carry) and an incomplete multipart upload, and a
bucket of another base; cleanup leaves no bucket of the base, and the
other untouched (deleted here afterwards)."""
from __future__ import absolute_import, division, print_function

import pytest

from tests import localswift
from tests.e2e import support
from tests.e2e.s3support import botocore_s3, delete_bucket, s3_env

pytestmark = pytest.mark.e2e


def _names(s3, prefix):
    return sorted(bucket['Name'] for bucket in s3.list_buckets()['Buckets']
                  if bucket['Name'].startswith(prefix))


def test_cleanup_over_s3_leaves_no_bucket_of_the_base():
    localswift.require_swift()
    s3 = botocore_s3()
    base = support.unique_base()
    other = '%sother-000000-default-policy' % base
    mine = ['%s-%06d-default-policy' % (base, index) for index in (0, 7)]
    try:
        for name in mine + [other]:
            s3.create_bucket(Bucket=name)
            for key in (u'tiny_000001', u'a b+c/d', u'caf\xe9', u'x\x01y'):
                s3.put_object(Bucket=name, Key=key, Body=b'ssbench')
        s3.create_multipart_upload(Bucket=mine[1], Key=u'large_000001')
        ran = support.master('cleanup-containers', '--s3', '-b', base,
                             env=s3_env(), timeout=60)
        assert ran.status == 0, (ran.out, ran.err)
        assert 'Deleted 2 buckets' in ran.err and '8 objects' in ran.err
        assert _names(s3, base) == [other]
        assert s3.list_objects_v2(Bucket=other)['KeyCount'] == 4
    finally:
        for name in mine + [other]:
            delete_bucket(s3, name)
    assert _names(s3, base) == []


def test_a_wrong_secret_is_one_line_naming_the_s3_code():
    localswift.require_swift()
    ran = support.master('cleanup-containers', '--s3', '-b',
                         support.unique_base(), env=s3_env('wrong'),
                         timeout=60)
    assert ran.status == 1
    lines = ran.err.strip().splitlines()
    assert len(lines) == 1 and 'SignatureDoesNotMatch' in lines[0], ran.err
    assert lines[0].startswith('ERROR:cannot list buckets: GET ')

"""Shared pieces of the S3 end-to-end tests: botocore, an S3 client
independent of ssbench's own, to set up and check what a test needs, and
the environment of an ssbench run over S3."""
from __future__ import absolute_import, division, print_function

import re
import time

import botocore.session
from botocore.config import Config
from botocore.exceptions import ClientError

from tests import localswift
from tests.e2e import support
from tests.s3client import TIMEOUT


def botocore_s3(endpoint=localswift.S3_ENDPOINT, fail_fast=False):
    """A botocore S3 client of the local Swift's test account, path-style.

    `fail_fast`: no retry and TIMEOUT seconds to connect and to read, so
    that a check sees each request's own answer and a Swift that does not
    answer fails the test soon; otherwise botocore's own retries and
    timeouts."""
    config = {'s3': {'addressing_style': 'path'}}
    if fail_fast:
        config.update(retries={'max_attempts': 0},
                      connect_timeout=TIMEOUT, read_timeout=TIMEOUT)
    return botocore.session.get_session().create_client(
        's3', region_name=localswift.S3_REGION, endpoint_url=endpoint,
        aws_access_key_id=localswift.S3_ACCESS,
        aws_secret_access_key=localswift.S3_SECRET, config=Config(**config))


# Characters that XML 1.0 cannot carry, not even as a reference: a
# DeleteObjects body cannot name a key holding one.
_NOT_XML = re.compile(u'[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]')
DELETE_TRIES = 5


def _code(exc):
    return exc.response.get('Error', {}).get('Code')


def empty_bucket(s3, bucket):
    """Abort every incomplete multipart upload of the bucket (their parts
    are stored, and no object listing shows them), then delete every
    object, a listing page at a time: one DeleteObjects for the keys XML
    can carry, a DeleteObject for each other."""
    for page in s3.get_paginator('list_multipart_uploads').paginate(
            Bucket=bucket):
        for upload in page.get('Uploads', []):
            s3.abort_multipart_upload(Bucket=bucket, Key=upload['Key'],
                                      UploadId=upload['UploadId'])
    for page in s3.get_paginator('list_objects_v2').paginate(Bucket=bucket):
        batch, alone = [], []
        for item in page.get('Contents', []):
            key = item['Key']
            if _NOT_XML.search(key):
                alone.append(key)
            else:
                batch.append({'Key': key})
        if batch:
            errors = s3.delete_objects(Bucket=bucket, Delete={
                'Objects': batch, 'Quiet': True}).get('Errors', [])
            assert errors == [], errors
        for key in alone:
            s3.delete_object(Bucket=bucket, Key=key)


def delete_bucket(s3, bucket):
    """empty_bucket(), then delete the bucket; a bucket already gone
    (NoSuchBucket) is as good as deleted."""
    try:
        for attempt in range(DELETE_TRIES):
            empty_bucket(s3, bucket)
            try:
                s3.delete_bucket(Bucket=bucket)
                return
            except ClientError as exc:
                # 409 BucketNotEmpty: the listing may lag the deletes (as
                # ssbench's own cleanup knows); empty it again.
                if _code(exc) != 'BucketNotEmpty' or \
                        attempt + 1 == DELETE_TRIES:
                    raise
                time.sleep(0.2 * (attempt + 1))
    except ClientError as exc:
        if _code(exc) != 'NoSuchBucket':
            raise


def s3_env(secret=localswift.S3_SECRET):
    """The environment of an S3 run (and no Swift credential)."""
    return dict(support.no_auth_env(),
                AWS_ACCESS_KEY_ID=localswift.S3_ACCESS,
                AWS_SECRET_ACCESS_KEY=secret,
                AWS_ENDPOINT_URL=localswift.S3_ENDPOINT,
                AWS_REGION=localswift.S3_REGION, AWS_DEFAULT_REGION='')

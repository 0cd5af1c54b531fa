"""Shared pieces of the S3 end-to-end tests: botocore, an S3 client
independent of ssbench's own, to set up and check what a test needs, and
the environment of an ssbench run over S3."""
from __future__ import absolute_import, division, print_function

import botocore.session
from botocore.config import Config

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


def s3_env(secret=localswift.S3_SECRET):
    """The environment of an S3 run (and no Swift credential)."""
    return dict(support.no_auth_env(),
                AWS_ACCESS_KEY_ID=localswift.S3_ACCESS,
                AWS_SECRET_ACCESS_KEY=secret,
                AWS_ENDPOINT_URL=localswift.S3_ENDPOINT,
                AWS_REGION=localswift.S3_REGION, AWS_DEFAULT_REGION='')

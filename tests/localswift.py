"""The local Swift of tools/saio, for the tests that need one: whether it
is up, and the credentials of its test account."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from tests.commands import run
from tests.paths import ROOT

SAIO = os.path.join(ROOT, 'tools', 'saio')
AUTH_URL = 'http://127.0.0.1:8080/auth/v1.0'
USER, KEY = 'test:tester', 'testing'
# Its S3 API (s3api before tempauth): the tempauth user and key sign.
S3_ENDPOINT = 'http://127.0.0.1:8080'
S3_ACCESS, S3_SECRET, S3_REGION = USER, KEY, 'us-east-1'


def saio_up():
    try:
        return run([SAIO, 'status'], 30).status == 0
    except OSError:
        return False


def require_swift():
    """Skip (or, with SSBENCH_REQUIRE_SWIFT=1 as in CI, fail) without the
    local Swift of tools/saio."""
    if saio_up():
        return
    reason = 'local Swift is not running (start it with tools/saio start)'
    if os.environ.get('SSBENCH_REQUIRE_SWIFT') == '1':
        pytest.fail(reason)
    pytest.skip(reason)


def auth_args():
    """run-scenario/cleanup-containers flags for its test account."""
    return ['-A', AUTH_URL, '-U', USER, '-K', KEY]

"""The local Swift of tools/saio serves the S3 API (s3api before tempauth):
botocore and ssbench's own SigV4 signer put, get, list and delete through
it, and a wrong secret is refused as SignatureDoesNotMatch.

Skipped unless `tools/saio status` says Swift is up (failed instead with
SSBENCH_REQUIRE_SWIFT=1); a Swift started before its proxies had s3api
fails, saying to restart it.  SSBENCH_S3_ENDPOINT points the tests at
another proxy of the same Swift (default: tools/saio's 8080).
"""
from __future__ import absolute_import, division, print_function

import json
import os
import time
import uuid

import pytest
from botocore.exceptions import ClientError

from ssbench.compat import PY2
from ssbench.s3 import sigv4
from tests import localswift
from tests.commands import run
from tests.e2e.s3support import botocore_s3, delete_bucket

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    import httplib
    from urlparse import urlparse
else:
    import http.client as httplib
    from urllib.parse import urlparse

pytestmark = pytest.mark.e2e

ENDPOINT = os.environ.get('SSBENCH_S3_ENDPOINT', localswift.S3_ENDPOINT)
TIMEOUT = 10


def request(method, path, query='', headers=(), body=b''):
    """(status, body) of one plain HTTP request to the S3 endpoint."""
    url = urlparse(ENDPOINT)
    conn = httplib.HTTPConnection(url.hostname, url.port, timeout=TIMEOUT)
    try:
        conn.request(method, path + ('?' + query if query else ''), body,
                     dict(headers))
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


@pytest.fixture(scope='module')
def s3api():
    localswift.require_swift()
    status, body = request('GET', '/info')
    assert status == 200, status
    if 's3api' not in json.loads(body.decode('utf-8')):
        pytest.fail('the Swift on %s has no s3api in its proxy pipeline: it '
                    'was started before tools/saio added it; restart it '
                    '(tools/saio stop; tools/saio start)' % ENDPOINT)


@pytest.fixture
def bucket(s3api):
    """A fresh bucket, emptied and deleted after the test (not named
    ssbench_*, which a cleanup-containers of another test would take)."""
    s3 = botocore_s3(ENDPOINT, fail_fast=True)
    name = 'saio-s3api-%s' % uuid.uuid4().hex[:12]
    s3.create_bucket(Bucket=name)
    yield name
    delete_bucket(s3, name)


def test_botocore_puts_gets_and_deletes(bucket):
    s3 = botocore_s3(ENDPOINT, fail_fast=True)
    s3.put_object(Bucket=bucket, Key='a b/c+d', Body=b'hello')
    assert s3.get_object(Bucket=bucket, Key='a b/c+d')['Body'].read() == \
        b'hello'
    s3.delete_object(Bucket=bucket, Key='a b/c+d')
    with pytest.raises(ClientError) as caught:
        s3.get_object(Bucket=bucket, Key='a b/c+d')
    assert caught.value.response['Error']['Code'] == 'NoSuchKey'


def signer_request(key, method, path, body=b'', payload=None, params=()):
    headers = [('Content-Length', str(len(body)))] if body else []
    host = urlparse(ENDPOINT).netloc
    headers += key.sign(method, path, params, host, headers,
                        sigv4.amz_date(time.time()),
                        payload or sigv4.UNSIGNED_PAYLOAD)
    return request(method, sigv4.uri_encode(path, True),
                   sigv4.canonical_query(params), headers, body)


def signing_key(secret=localswift.S3_SECRET):
    date = sigv4.amz_date(time.time())[:8]
    return sigv4.SigningKey(localswift.S3_ACCESS, date, localswift.S3_REGION,
                            sigv4.derive_key(secret, date,
                                             localswift.S3_REGION))


def test_s3api_takes_ssbench_signatures(bucket):
    key = signing_key()
    name = u'dir/caf\xe9 x+y=%z~!'
    path = u'/%s/%s' % (bucket, name)
    body = b'x' * 1000
    assert signer_request(key, 'PUT', path, body)[0] == 200
    assert signer_request(key, 'PUT', path + u'2', body,
                          sigv4.payload_hash(body))[0] == 200
    assert signer_request(key, 'GET', path) == (200, body)
    status, listing = signer_request(
        key, 'GET', u'/' + bucket,
        params=[('list-type', '2'), ('prefix', u'dir/caf\xe9 ')])
    assert status == 200
    assert listing.count(b'<Key>') == 2
    assert signer_request(key, 'DELETE', path)[0] == 204
    listed = botocore_s3(ENDPOINT, fail_fast=True).list_objects_v2(
        Bucket=bucket)
    assert [obj['Key'] for obj in listed['Contents']] == [name + u'2']


def test_a_signed_payload_that_differs_is_refused(bucket):
    status, _ = signer_request(signing_key(), 'PUT', u'/%s/o' % bucket,
                               b'abc', sigv4.payload_hash(b'abd'))
    assert status == 400


def test_a_wrong_secret_is_signature_does_not_match(bucket):
    status, body = signer_request(signing_key('wrong'), 'GET',
                                  u'/%s/o' % bucket)
    assert status == 403
    assert b'<Code>SignatureDoesNotMatch</Code>' in body


def test_saio_env_gives_the_s3_settings():
    ran = run([localswift.SAIO, 'env'], 30)
    assert ran.status == 0
    assert ('export AWS_ACCESS_KEY_ID=test:tester AWS_SECRET_ACCESS_KEY='
            'testing AWS_ENDPOINT_URL=http://127.0.0.1:8080 '
            'AWS_DEFAULT_REGION=us-east-1 AWS_REGION=us-east-1') in \
        ran.out.splitlines()

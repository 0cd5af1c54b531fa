"""A minimal S3 client of ssbench's own parts, for the tests that talk to
the local Swift's s3api: an Operation (ssbench.s3.operation) signed by
ssbench.s3.sigv4 and sent over ssbench.store.httpconn."""
from __future__ import absolute_import, division, print_function

import time

from ssbench.compat import PY2
from ssbench.s3 import sigv4
from ssbench.store.httpconn import HTTPConnection
from tests import localswift

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urlparse import urlparse
else:
    from urllib.parse import urlparse

TIMEOUT = 10


class S3Client(object):
    """Sends Operations to one S3 endpoint over one keep-alive
    connection."""

    def __init__(self, endpoint=localswift.S3_ENDPOINT,
                 access=localswift.S3_ACCESS, secret=localswift.S3_SECRET,
                 region=localswift.S3_REGION):
        url = urlparse(endpoint)
        self.conn = HTTPConnection(url.hostname, url.port, TIMEOUT, TIMEOUT)
        date = sigv4.amz_date(time.time())[:8]
        self.key = sigv4.SigningKey(access, date, region,
                                    sigv4.derive_key(secret, date, region))

    def call(self, op, body=None):
        """(status, headers, body) of an Operation; `body` (bytes) is
        sent instead of op.body when given (an UploadPart's)."""
        body = op.body if body is None else body
        headers = list(op.headers) + self.key.sign(
            op.method, op.path, op.params, self.conn.host_header,
            op.headers, sigv4.amz_date(time.time()))
        self.conn.send(op.method, op.target(), headers, len(body), body)
        resp = self.conn.read_response()
        data = self.conn.read_body()
        if resp.will_close:
            self.conn.close()
        return resp.status, resp.headers, data

    def ok(self, op, body=None):
        """call() that asserts a 2xx answer: its headers and body."""
        status, headers, data = self.call(op, body)
        assert 200 <= status < 300, (op.method, op.target(), status, data)
        return headers, data

    def close(self):
        self.conn.close()

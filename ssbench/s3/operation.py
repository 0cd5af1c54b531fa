"""An S3 request as data, before it is signed and sent.

The builders of listing.py, batchdelete.py and multipart.py return an
Operation: the method, the raw path (/bucket or /bucket/key, not
percent-encoded), the raw query pairs, the headers to send and sign
beside Host and SigV4's own, and the body (bytes).  Signing and sending
are the caller's:

    op = listing.list_objects(bucket, prefix='ssbench-')
    headers = list(op.headers) + key.sign(op.method, op.path, op.params,
                                          host, op.headers, amz_date)
    conn.send(op.method, op.target(), headers, len(op.body), op.body)
"""
from __future__ import absolute_import

import base64
import collections
import hashlib

from ssbench.s3 import sigv4


class Operation(collections.namedtuple(
        'Operation', 'method path params headers body')):
    """One S3 request: method, raw path, raw (name, value) query pairs,
    (name, value) headers and body bytes."""

    __slots__ = ()

    def target(self):
        """The request target that goes on the wire: the path encoded as
        SigV4 signs it, and the canonical query."""
        path = sigv4.uri_encode(self.path, True)
        query = sigv4.canonical_query(self.params)
        return '%s?%s' % (path, query) if query else path


def object_path(bucket, key=None):
    """/bucket, or /bucket/key (raw: the signer encodes it)."""
    return u'/%s' % bucket if key is None else u'/%s/%s' % (
        bucket, key.decode('utf-8') if isinstance(key, bytes) else key)


def content_md5(body):
    """The Content-MD5 header of a body: its MD5, base64."""
    return str(base64.b64encode(hashlib.md5(body).digest()).decode('ascii'))


def with_body(method, path, params, body, headers=()):
    """An Operation that sends `body` (XML) with its length and
    Content-MD5, which S3 requires of DeleteObjects."""
    return Operation(method, path, params, [
        ('Content-Length', str(len(body))),
        ('Content-MD5', content_md5(body)),
        ('Content-Type', 'application/xml')] + list(headers), body)

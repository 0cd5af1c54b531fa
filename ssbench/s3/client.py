"""S3Client: the S3 store (docs/internals.rst, "Stores"): the timed,
retried requests of ssbench.store.client spoken over the S3 API.

A container is a bucket (the scenario names it by S3's rules, see
ssbench.s3.buckets) and an object an S3 object: PUT Object, GET Object
(first and last byte timed as a Swift GET), HEAD Object, DELETE Object,
HEAD Bucket and CreateBucket keep the store's method names, so
the master and the workers call them alike; a large object is a
multipart upload (ssbench.s3.multipartobject).  Each attempt is signed
anew (Signature Version 4), its X-Amz-Date being that attempt's, with
the Keyring `keys()` gives then (a worker's changes when its master
sends the next day's keys).  An error's XML body names its S3 code
(SlowDown, NoSuchKey, SignatureDoesNotMatch, ...), which a failed
request carries as its error class beside the HTTP status.
"""
from __future__ import absolute_import, division, print_function

import hashlib
import time

from ssbench.compat import urlsplit
from ssbench.errors import S3Error, SsbenchError
from ssbench.s3 import sigv4
from ssbench.s3.errorbody import S3RequestError, s3_error
from ssbench.s3.keyring import Keyring
from ssbench.store.cleanup import one_line
from ssbench.store.client import DEFAULT_BLOCK_SIZE, StoreClient
from ssbench.store.outcome import RequestError

# What the user must fix, by the S3 code of the master's failed request.
_HINTS = {
    'BucketAlreadyExists': 'another account owns a bucket of that name: '
                           'name others with --container-base',
    'AccessDenied': 'the keys may not create and delete buckets',
    'InvalidAccessKeyId': 'check AWS_ACCESS_KEY_ID',
    'SignatureDoesNotMatch': 'check AWS_SECRET_ACCESS_KEY and --region',
    'AuthorizationHeaderMalformed': 'check --region',
    'IllegalLocationConstraintException': 'check --region',
}
# The region whose CreateBucket takes no LocationConstraint.
US_EAST_1 = 'us-east-1'
# The signed payload hashes remembered: sizes repeat within a size class.
_HASHES_KEPT = 64


class S3Client(StoreClient):
    """Timed S3 requests to `endpoint_url` (http(s)://HOST[:PORT]).

    `keys()` is the ssbench.s3.keyring.Keyring to sign with now;
    `addressing` 'path' (http://HOST/BUCKET/KEY) or 'virtual'
    (http://BUCKET.HOST/KEY); `signed_payload` signs each body's SHA-256
    instead of UNSIGNED-PAYLOAD; `region` is the bucket's for
    CreateBucket.  `now()` is the wall clock of X-Amz-Date.  The other
    arguments are StoreClient's.
    """

    TRANS_ID = 'x-amz-request-id'
    Error = S3RequestError
    error_bodies = True
    # Bytes of an answer read whole (a listing page, a DeleteObjects
    # result) at most: parsing one costs 10 to 17 times its size
    # (docs/reliability.rst, "Answers from outside"); a page of 1000 keys
    # of 1024 bytes, each byte URL-encoded, is under 3.5 MB (docs/s3.rst).
    max_body = 8 * 1024 * 1024

    def __init__(self, endpoint_url, keys, region=US_EAST_1,
                 addressing='path', signed_payload=False, now=time.time,
                 **kwargs):
        StoreClient.__init__(self, **kwargs)
        self.endpoint_url = endpoint_url
        self.keys = keys
        self.region = region
        self.virtual = addressing == 'virtual'
        self.signed_payload = signed_payload
        self.now = now
        self.pools = [self._pool(endpoint_url)]
        self._bucket_pools = {}
        self._hashes = {}

    def large_objects(self, block_size):
        """Multipart uploads (ssbench.s3.multipartobject)."""
        from ssbench.s3.multipartobject import MultipartObjects
        return MultipartObjects(self, block_size)

    @staticmethod
    def explain(exc, doing, policy=None):
        """The one-line S3Error to raise for the master's own request
        that failed with `exc` (`policy` is Swift's alone)."""
        if isinstance(exc, SsbenchError) and \
                not isinstance(exc, RequestError):
            return exc      # already one line that says what is wrong
        hint = _HINTS.get(getattr(exc, 'error_class', None))
        return S3Error('%s: %s%s' % (doing, one_line(exc),
                                     '; ' + hint if hint else ''))

    # -- one attempt ----------------------------------------------------

    def _route(self, turn, method, path_tail, send_headers):
        """(pool, request path, headers, None: no token) of one attempt,
        signed now (one endpoint: `turn` does not matter); the headers'
        first slot holds (raw path, query pairs, payload hash)."""
        path, params, payload = send_headers[0]
        pool = self.pools[0]
        if self.virtual and len(path) > 1:
            bucket, _, key = path[1:].partition('/')
            pool = self._bucket_pool(bucket)
            path = '/' + key
        headers = send_headers[1:]
        headers.extend(self.keys().sign(
            method, path, params, pool.host_header, (),
            sigv4.amz_date(self.now()), payload))
        target = sigv4.uri_encode(path, True)
        if params:
            target += '?' + sigv4.canonical_query(params)
        return pool, target, headers, None

    def _bucket_pool(self, bucket):
        """The pool of a bucket's own host name (virtual addressing)."""
        found = self._bucket_pools.get(bucket)
        if found is None:
            parts = urlsplit(self.endpoint_url)
            found = self._bucket_pools[bucket] = self._pool(
                '%s://%s.%s' % (parts.scheme, bucket, parts.netloc))
        return found

    def _refusal(self, resp, body):
        """(reason with the S3 code and message, the S3 code) of an error
        response."""
        code, message = s3_error(body or b'')
        if code is None:
            return resp.reason, None
        return '%s %s: %s' % (resp.reason, code, message or ''), code

    def _payload(self, size, block, whole=False):
        """x-amz-content-sha256 of a body of `size` bytes of `block` (or,
        `whole`, of `block` itself: a body is hashed anew, since two
        bodies of a size may differ)."""
        if not self.signed_payload:
            return sigv4.UNSIGNED_PAYLOAD
        if whole:
            return sigv4.payload_hash(block)
        if not size:
            return sigv4.EMPTY_PAYLOAD
        key = (size, block[:1], len(block))
        found = self._hashes.get(key)
        if found is None:
            digest = hashlib.sha256()
            view = memoryview(block)
            left = size
            while left >= len(block):
                digest.update(view)
                left -= len(block)
            if left:
                digest.update(view[:left])
            if len(self._hashes) >= _HASHES_KEPT:
                self._hashes.clear()
            found = self._hashes[key] = digest.hexdigest()
        return found

    # -- requests -------------------------------------------------------

    def _address(self, container, name, query, size, block, whole):
        """(the headers' first slot: the raw path, the query's raw (name,
        value) pairs and the payload hash, signed per attempt; the path
        and query as sent) of a request to the bucket `container`."""
        path = '/'
        if container is not None:
            path += container
            if name is not None:
                path += '/' + name
        params = list(query or ())
        shown = sigv4.uri_encode(path, True)
        if params:
            shown += '?' + sigv4.canonical_query(params)
        return (path, params, self._payload(size, block, whole)), shown

    def put_container(self, container, policy=None):
        """CreateBucket; a region other than us-east-1 is its location
        constraint.  (Storage policies are Swift's: run-scenario refuses
        one with --s3.)"""
        body = None
        if self.region != US_EAST_1:
            body = ('<CreateBucketConfiguration xmlns="http://s3.amazonaws'
                    '.com/doc/2006-03-01/"><LocationConstraint>%s'
                    '</LocationConstraint></CreateBucketConfiguration>' %
                    self.region).encode('utf-8')
        return self.request('PUT', container, body=body, read='keep')

    def list_page(self, container, limit, prefix=None,
                  block_size=DEFAULT_BLOCK_SIZE):
        """One page of ListObjectsV2 (at most `limit` keys, of `prefix`
        when given), read in `block_size` chunks and discarded."""
        query = [('list-type', '2'), ('max-keys', str(limit))]
        if prefix:
            query.append(('prefix', prefix))
        return self.request('GET', container, query=query,
                            block_size=block_size)

    def list_buckets(self):
        """ListBuckets (GET /), not retried on a timeout: whether the
        endpoint takes the keys (S3RequestError naming the S3 code,
        such as SignatureDoesNotMatch, when not)."""
        return self.request('GET', read='keep', retry_timeouts=False)

    def send(self, operation, **kwargs):
        """The Timing of an ssbench.s3.operation.Operation (a listing, a
        DeleteObjects, a step of a multipart upload, ...) sent as
        request(**kwargs) sends one."""
        bucket, _, key = operation.path[1:].partition(u'/')
        # request() sets the Content-Length of a body itself.
        headers = dict(item for item in operation.headers
                       if item[0].lower() != 'content-length')
        return self.request(operation.method, bucket or None, key or None,
                            query=operation.params, headers=headers,
                            body=operation.body or None, **kwargs)

    def perform(self, operation, missing_ok=False, retry_timeouts=True):
        """send() `operation`: the answer's body (bytes; None for a 404
        with `missing_ok`)."""
        timing = self.send(operation, read='keep', missing_ok=missing_ok,
                           retry_timeouts=retry_timeouts)
        return None if timing.status == 404 else timing.body

    def close(self):
        StoreClient.close(self)
        for pool in self._bucket_pools.values():
            pool.close()


class S3Access(object):
    """A worker's S3 side, as its master's CONFIGUREs set it: the
    endpoint's settings and the Keyring of the signing keys last sent.
    `settings` is None until a CONFIGURE of an S3 run came."""

    def __init__(self, factory=S3Client):
        self.factory = factory
        self.settings = None
        self.keyring = None

    def update(self, form):
        """Take a CONFIGURE's `s3` map (ssbench.wire.protocol.S3_KEYS);
        True when the endpoint's settings changed (a client built before
        is stale), ValueError when the keys are unusable."""
        self.keyring = Keyring.from_wire(form)
        settings = (str(form['endpoint_url']), str(form['region']),
                    str(form['addressing']), bool(form['signed_payload']))
        changed = settings != self.settings
        self.settings = settings
        return changed

    def client(self, **kwargs):
        """The S3Client of the current settings; `kwargs` are
        StoreClient's (concurrency, retries, timeouts, back-off)."""
        endpoint_url, region, addressing, signed = self.settings
        return self.factory(endpoint_url, lambda: self.keyring, region=region,
                            addressing=addressing, signed_payload=signed,
                            **kwargs)

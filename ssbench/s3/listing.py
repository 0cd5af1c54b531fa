"""ListObjectsV2 and ListBuckets: the requests, and the pages they answer.

A bucket's keys come a page at a time (at most max-keys, 1000 by
default): while a page is truncated, the next request carries its
NextContinuationToken.

    token = None
    while True:
        page = parse_objects(send(list_objects(bucket, prefix, token)))
        ...  # page.objects: ObjectEntry(key, size, etag)
        if not page.truncated:
            break
        token = page.next_token

Keys are asked for URL-encoded (encoding-type=url), so that a key XML
cannot carry (a control character) is listed too; parse_objects()
decodes them as AWS's SDKs do, '+' being a space: AWS writes a space so,
Swift's s3api writes %20, and both write a '+' as %2B.

Text comes back as text (unicode on Python 2).  A body that is not the
listing expected, an S3 <Error> among them, is xmlsafe.BadBody.
"""
from __future__ import absolute_import

import collections

from ssbench.compat import PY2
from ssbench.s3 import xmlsafe
from ssbench.s3.operation import Operation, object_path

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urllib import unquote_plus
else:
    from urllib.parse import unquote_plus

# The most keys one page holds, and what S3 gives without max-keys.
MAX_KEYS = 1000

ObjectEntry = collections.namedtuple('ObjectEntry', 'key size etag')
ObjectPage = collections.namedtuple('ObjectPage',
                                    'objects truncated next_token')
BucketPage = collections.namedtuple('BucketPage', 'names next_token')


def list_objects(bucket, prefix=None, continuation_token=None,
                 max_keys=None):
    """The ListObjectsV2 request of one page of a bucket's keys."""
    params = [('list-type', '2'), ('encoding-type', 'url')]
    if prefix:
        params.append(('prefix', prefix))
    if continuation_token is not None:
        params.append(('continuation-token', continuation_token))
    if max_keys is not None:
        if not 1 <= max_keys <= MAX_KEYS:
            raise ValueError('max-keys is 1 to %d, not %r' % (MAX_KEYS,
                                                              max_keys))
        params.append(('max-keys', str(max_keys)))
    return Operation('GET', object_path(bucket), params, [], b'')


def _size(text):
    try:
        size = int(text)
    except (TypeError, ValueError):
        size = -1
    if size < 0:
        raise xmlsafe.BadBody('object size %r' % (text,))
    return size


def url_decoded(text):
    """A URL-encoded key as text; BadBody when its bytes are not
    UTF-8."""
    try:
        if PY2:  # pragma: no cover - exercised by the 2.7 run
            return unquote_plus(text.encode('utf-8')).decode('utf-8')
        return unquote_plus(text, errors='strict')
    except UnicodeError as exc:
        raise xmlsafe.BadBody('key %r is not UTF-8 once decoded: %s'
                              % (text, exc))


def parse_objects(body):
    """The ObjectPage of a ListObjectsV2 answer (bytes): its objects in
    order (keys URL-decoded when the answer says they are encoded),
    whether more follow, and the token to ask for them."""
    root = xmlsafe.parse(body, 'ListBucketResult')
    encoded = root.findtext('EncodingType') == u'url'
    objects = []
    for entry in root.findall('Contents'):
        key = entry.findtext('Key')
        if key and encoded:
            key = url_decoded(key)
        if not key:
            raise xmlsafe.BadBody('a listed object without a Key')
        objects.append(ObjectEntry(key, _size(entry.findtext('Size')),
                                   entry.findtext('ETag')))
    truncated = root.findflag('IsTruncated')
    token = root.findtext('NextContinuationToken') or None
    if truncated and token is None:
        raise xmlsafe.BadBody('a truncated listing without a '
                              'NextContinuationToken')
    return ObjectPage(objects, truncated, token)


def list_buckets(prefix=None, continuation_token=None):
    """The ListBuckets request: the account's buckets, those whose names
    start with `prefix` where the store takes that (AWS does, Swift's
    s3api answers every bucket)."""
    params = []
    if prefix:
        params.append(('prefix', prefix))
    if continuation_token is not None:
        params.append(('continuation-token', continuation_token))
    return Operation('GET', u'/', params, [], b'')


def parse_buckets(body, prefix=u''):
    """The BucketPage of a ListBuckets answer (bytes): the names that
    start with `prefix` (whether or not the store heeded it), in order,
    and the token of the next page (None: the last)."""
    root = xmlsafe.parse(body, 'ListAllMyBucketsResult')
    buckets = root.find('Buckets')
    names = [] if buckets is None else [
        bucket.findtext('Name') for bucket in buckets.findall('Bucket')]
    if not all(names):
        raise xmlsafe.BadBody('a listed bucket without a Name')
    return BucketPage([name for name in names if name.startswith(prefix)],
                      root.findtext('ContinuationToken') or None)

"""DeleteObjects: up to 1000 keys of a bucket deleted by one request.

The request is a POST of /bucket?delete with an XML body listing the
keys, and a Content-MD5 of that body: S3 requires a checksum of it, and
Swift's s3api (2.38) takes Content-MD5 or one x-amz-checksum-* header;
Content-MD5 is what every store takes.  In quiet mode (the default here)
the answer names only the keys that failed; a key that was not there
counts as deleted.

    for keys in batches(all_keys):
        result = parse_result(send(delete_objects(bucket, keys)))
        ...  # result.errors: DeleteError(key, code, message)
"""
from __future__ import absolute_import

import collections

from ssbench.s3 import xmlsafe
from ssbench.s3.operation import object_path, with_body

# The most keys one DeleteObjects may name (S3's limit; Swift's s3api
# has it as max_multi_delete_objects, 1000 by default).
MAX_KEYS = 1000

DeleteError = collections.namedtuple('DeleteError', 'key code message')
DeleteResult = collections.namedtuple('DeleteResult', 'deleted errors')


def batches(keys, size=MAX_KEYS):
    """The keys (any iterable) in lists of at most `size`, in order."""
    batch = []
    for key in keys:
        batch.append(key)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def delete_body(keys, quiet=True):
    """The XML body (bytes) naming the keys; ValueError for no key, more
    than MAX_KEYS, or a key that XML cannot carry."""
    if not 1 <= len(keys) <= MAX_KEYS:
        raise ValueError('a DeleteObjects names 1 to %d keys, not %d'
                         % (MAX_KEYS, len(keys)))
    parts = [u'<Delete xmlns="%s">' % xmlsafe.XMLNS]
    parts.extend(u'<Object><Key>%s</Key></Object>' % xmlsafe.escape(key)
                 for key in keys)
    parts.append(u'<Quiet>true</Quiet></Delete>' if quiet
                 else u'</Delete>')
    return u''.join(parts).encode('utf-8')


def delete_objects(bucket, keys, quiet=True):
    """The DeleteObjects request of up to MAX_KEYS keys of a bucket."""
    return with_body('POST', object_path(bucket), [('delete', '')],
                     delete_body(keys, quiet))


def parse_result(body):
    """The DeleteResult of a DeleteObjects answer (bytes): the keys
    deleted (none in quiet mode) and a DeleteError per key that was not,
    with its S3 code (AccessDenied, InternalError, ...)."""
    root = xmlsafe.parse(body, 'DeleteResult')
    deleted = [node.findtext('Key') for node in root.findall('Deleted')]
    errors = [DeleteError(node.findtext('Key'), node.findtext('Code'),
                          node.findtext('Message'))
              for node in root.findall('Error')]
    if not all(deleted) or not all(error.key for error in errors):
        raise xmlsafe.BadBody('a Deleted or Error entry without a Key')
    return DeleteResult(deleted, errors)

"""`cleanup-containers --s3`: delete ssbench's buckets and everything in
them.

The buckets are those a run names from the container base and the policy
(ssbench.s3.buckets.bucket_name(), the Swift path's
<base>_<digits>_<policy> mapped by S3's rules).  In each, the incomplete
multipart uploads are aborted first (their parts are stored, and no
object listing shows them), then the objects are listed a ListObjectsV2
page at a time and each page deleted by DeleteObjects (a key that XML
cannot carry gets a DELETE of its own), then the bucket is deleted.

Every loop over the store's answers ends (docs/reliability.rst, "Answers
from outside"): a listing that hands out a continuation token or upload
markers again, or more than MAX_PAGES pages (MAX_BUCKET_PAGES of
buckets), ends the bucket's cleanup (or, for the bucket listing, the
whole) with one line, and so does the deadline of the whole cleanup.
"""
from __future__ import absolute_import, division, print_function

import logging
import re

from ssbench.compat import monotonic
from ssbench.errors import S3Error
from ssbench.s3 import batchdelete, listing, multipart, xmlsafe
from ssbench.s3.buckets import bucket_name
from ssbench.store.cleanup import (DEFAULT_DEADLINE, CleanupStats,
                                   delete_each, empty_then_delete, one_line)
from ssbench.store.paging import MAX_PAGES, Deadline, Pages

log = logging.getLogger(__name__)

# ListBuckets pages read at most (AWS gives up to 10,000 buckets a page,
# Swift's s3api every bucket in one).
MAX_BUCKET_PAGES = 1000


def bucket_parts(base, policy):
    """(head, tail) of the bucket names a run gives base and policy:
    each is head-<6-digit index>tail (ScenarioError when the base gives
    no bucket name)."""
    first, second = bucket_name(base, 0, policy), bucket_name(base, 1, policy)
    # The two differ only in the index's last digit.
    end = [a == b for a, b in zip(first, second)].index(False) + 1
    return first[:end - 7], first[end:]


def bucket_pattern(base, policy):
    """The names of bucket_parts(), any index: the Swift path's
    <base>_<digits>_<policy> pattern, mapped to bucket names."""
    head, tail = bucket_parts(base, policy)
    return re.compile(r'^%s-\d+%s$' % (re.escape(head), re.escape(tail)))


def carried(key):
    """Whether a DeleteObjects body (XML) can name `key`."""
    try:
        xmlsafe.escape(key)
    except ValueError:
        return False
    return True


def _abort_uploads(client, bucket, deadline=None):
    """Abort every incomplete multipart upload of the bucket."""
    key_marker = upload_marker = None
    pages = Pages('ListMultipartUploads of bucket %s' % bucket, MAX_PAGES,
                  deadline)
    while True:
        page = multipart.parse_uploads(client.perform(multipart.list_uploads(
            bucket, key_marker=key_marker, upload_id_marker=upload_marker)))
        for upload in page.uploads:
            # An upload completed or aborted meanwhile is as good as gone.
            client.perform(multipart.abort(bucket, upload.key,
                                           upload.upload_id), missing_ok=True)
        if not page.truncated or not page.uploads:
            return
        key_marker = page.next_key_marker or page.uploads[-1].key
        upload_marker = page.next_upload_id_marker or \
            page.uploads[-1].upload_id
        pages.next((key_marker, upload_marker))


def _delete_keys(client, bucket, keys, stats):
    """Delete the keys (at most a page): one DeleteObjects for those XML
    can carry, a DELETE for each other; the count of failures, and the
    first's reason."""
    batch = [key for key in keys if carried(key)]
    failed, reason = 0, None
    if batch:
        result = batchdelete.parse_result(client.perform(
            batchdelete.delete_objects(bucket, batch)))
        failed = len(result.errors)
        if failed:
            first = result.errors[0]
            reason = '%s: %s %s' % (first.key, first.code, first.message)
    for key in keys:
        if not carried(key):
            client.request('DELETE', bucket, key, missing_ok=True)
    stats.objects += len(keys) - failed
    stats.object_failures += failed
    return failed, reason


def _delete_objects(client, bucket, stats, deadline=None):
    """Delete every listed object of the bucket, a page at a time; the
    objects that could not be are logged (one line per bucket) and
    counted."""
    failed, reason, token = 0, None, None
    pages = Pages('ListObjectsV2 of bucket %s' % bucket, MAX_PAGES,
                  deadline)
    while True:
        page = listing.parse_objects(client.perform(
            listing.list_objects(bucket, continuation_token=token)))
        if page.objects:
            more, why = _delete_keys(client, bucket,
                                     [entry.key for entry in page.objects],
                                     stats)
            failed += more
            reason = reason or why
        if not page.truncated:
            break
        token = page.next_token
        pages.next(token)
    if failed:
        log.error('could not delete %d objects in %s: %s', failed, bucket,
                  reason)
    return failed


def _delete_bucket(client, bucket, stats, sleep, deadline=None):
    def empty():
        failed = _delete_objects(client, bucket, stats, deadline)
        if failed:
            # Refused once, refused again: no point in trying the bucket.
            raise S3Error('it still holds the %d objects that could not '
                          'be deleted' % failed)

    if deadline is not None:
        deadline.check()
    _abort_uploads(client, bucket, deadline)
    empty_then_delete(client, bucket, empty, stats, sleep)


def _reason(exc):
    if isinstance(exc, xmlsafe.BadBody):
        return 'the answer is not the S3 document expected: %s' % (exc,)
    return one_line(exc)


def list_matching(client, base, policy, deadline=None):
    """The names of the account's buckets of base and policy, every
    ListBuckets page read; S3Error (one line) when they cannot be
    listed."""
    prefix = bucket_parts(base, policy)[0] + '-'
    pattern = bucket_pattern(base, policy)
    names, token = [], None
    pages = Pages('ListBuckets', MAX_BUCKET_PAGES, deadline)
    try:
        while True:
            page = listing.parse_buckets(client.perform(
                listing.list_buckets(prefix, token), retry_timeouts=False),
                prefix)
            names.extend(name for name in page.names if pattern.match(name))
            if page.next_token is None:
                return names
            token = page.next_token
            pages.next(token)
    except Exception as exc:    # one line that says what went wrong
        raise S3Error('cannot list buckets: %s' % (_reason(exc),))


def cleanup_buckets(client, base='ssbench', policy='default_policy',
                    concurrency=10, sleep=None, deadline=DEFAULT_DEADLINE,
                    clock=monotonic):
    """Delete every bucket a run named from base and policy, and all it
    holds: `concurrency` buckets at a time (`sleep(seconds)` pauses
    before a bucket not yet empty is tried again), within `deadline`
    seconds on `clock` (monotonic; None: no deadline).  Logs the rates;
    returns CleanupStats, or raises StoreError when anything could not
    be deleted."""
    import gevent

    whole = Deadline(deadline, 'cleanup-containers --s3', clock)
    names = list_matching(client, base, policy, whole)
    head, tail = bucket_parts(base, policy)
    log.info('Deleting %d buckets (%s-*%s) and their objects; '
             'concurrency=%d', len(names), head, tail, concurrency)
    stats = CleanupStats()
    pause = sleep or gevent.sleep
    return delete_each(
        names, lambda name: _delete_bucket(client, name, stats, pause,
                                           whole),
        concurrency, stats, 'bucket', _reason)

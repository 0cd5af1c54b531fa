"""Cleaning any store up: its containers (or buckets) deleted a few at a
time, and what was and was not (ssbench.swift.cleanup, s3.cleanup)."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.compat import monotonic
from ssbench.errors import StoreError
from ssbench.store.paging import DeadlinePassed

log = logging.getLogger(__name__)

# A container may answer 409 (not empty) for a moment after its objects
# are gone, until the container listing catches up.
CONTAINER_DELETE_TRIES = 5
# How long a whole cleanup may take by default: a day deletes some
# hundred million objects at a store's usual few thousand a second.
DEFAULT_DEADLINE = 24 * 3600.0


class CleanupStats(object):
    """What a cleanup did: containers and objects deleted, and what could
    not be deleted (`failures`: containers, `object_failures`: objects)."""

    def __init__(self):
        self.containers = 0
        self.objects = 0
        self.failures = 0
        self.object_failures = 0


def quietly(func, *args):
    """Call func in a greenlet without letting gevent print a traceback:
    returns (result, None) or (None, exception)."""
    try:
        return func(*args), None
    except Exception as exc:
        return None, exc


def one_line(exc):
    """Why `exc` failed, in one line."""
    if isinstance(exc, StoreError):
        return '%s' % (exc,)
    return '%s: %s' % (type(exc).__name__, exc)


def empty_then_delete(client, name, empty, stats, sleep):
    """empty(), then delete the container (or bucket) `name`; one that
    answers 409 (not empty: the listing may lag the deletes) is emptied
    and deleted again after sleep(seconds), CONTAINER_DELETE_TRIES times
    in all."""
    for attempt in range(CONTAINER_DELETE_TRIES):
        empty()
        try:
            timing = client.delete_container(name, missing_ok=True)
        except StoreError as exc:
            if getattr(exc, 'http_status', None) == 409 and \
                    attempt + 1 < CONTAINER_DELETE_TRIES:
                sleep(0.2 * (attempt + 1))
                continue
            raise
        if timing.status != 404:
            stats.containers += 1
        return


def delete_each(names, delete, concurrency, stats, what, reason=one_line):
    """delete(name) for each of `names`, `concurrency` at a time (a
    container or a bucket, `what`, with all it holds, counted in
    `stats`): logs each failure (`reason(exc)` says why) and the rates;
    returns `stats`, or raises StoreError when anything could not be
    deleted (the deadline's, said once, when it passed)."""
    import gevent.pool

    started = monotonic()
    pool = gevent.pool.Pool(concurrency)
    greenlets = [pool.spawn(quietly, delete, name) for name in names]
    pool.join()
    late = None
    for name, greenlet in zip(names, greenlets):
        exc = greenlet.value[1]
        if exc is not None:
            stats.failures += 1
            if isinstance(exc, DeadlinePassed):
                late = exc      # every one left says it: said once, below
                continue
            log.error('could not delete %s %s: %s', what, name, reason(exc))
    elapsed = max(monotonic() - started, 1e-9)
    log.info('Deleted %d %ss (%.1f/s) and %d objects (%.1f/s) in '
             '%.1f s', stats.containers, what, stats.containers / elapsed,
             stats.objects, stats.objects / elapsed, elapsed)
    if late is not None:
        raise StoreError('%s: %d %s(s) not deleted' % (late, stats.failures,
                                                       what))
    if stats.failures or stats.object_failures:
        raise StoreError('%d %s(s) and %d object(s) could not be '
                         'deleted' % (stats.failures, what,
                                      stats.object_failures))
    return stats

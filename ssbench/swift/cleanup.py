"""`cleanup-containers`: delete ssbench's containers and everything in them."""
from __future__ import absolute_import, division, print_function

import logging
import re

from ssbench.swift import hints
from ssbench.compat import monotonic, string_types
from ssbench.errors import SwiftError
from ssbench.swift.paging import Deadline, DeadlinePassed

log = logging.getLogger(__name__)

# A container may answer 409 (not empty) for a moment after its objects
# are gone, until the container listing catches up.
CONTAINER_DELETE_TRIES = 5
# How long a whole cleanup may take by default: a day deletes some
# hundred million objects at a store's usual few thousand a second.
DEFAULT_DEADLINE = 24 * 3600.0


def container_pattern(base, policy):
    """The names ssbench gives containers: <base>_<digits>_<policy>, and
    their large objects' segments containers, the same with `_segments`
    (ssbench.wire.protocol.segments_container)."""
    return re.compile(r'^%s_\d+_%s(_segments)?$' % (
        re.escape(base), re.escape(policy)))


def matching_containers(names, base, policy):
    """The names among `names` that ssbench created for base and policy."""
    pattern = container_pattern(base, policy)
    return [name for name in names if pattern.match(name)]


class CleanupStats(object):
    """What a cleanup did: containers and objects deleted, and what could
    not be deleted (`failures`: containers, `object_failures`: objects)."""

    def __init__(self):
        self.containers = 0
        self.objects = 0
        self.failures = 0
        self.object_failures = 0


def _quietly(func, *args):
    """Call func in a greenlet without letting gevent print a traceback:
    returns (result, None) or (None, exception)."""
    try:
        return func(*args), None
    except Exception as exc:
        return None, exc


def _listing(list_names, what, *args, **kwargs):
    """The names list_names(*args, **kwargs) returns; an answer that is no
    listing (not UTF-8, not JSON, not a list of named entries: another
    server at the storage URL) is one SwiftError saying so."""
    try:
        names = list_names(*args, **kwargs)
        if all(isinstance(name, string_types) for name in names):
            return names
    except (ValueError, TypeError, KeyError, AttributeError):
        # ValueError includes UnicodeDecodeError and JSON syntax errors.
        pass
    raise SwiftError('%s: the answer is not a Swift listing (UTF-8 JSON, '
                     'a list of names); check the storage URL (-S, or the '
                     'one the auth server returns)' % (what,))


def _delete_objects(client, name, objects, concurrency, stats):
    """Delete objects of one container; failures are counted and the first
    one is logged (one line per container, not one per object)."""
    import gevent.pool

    def delete(obj):
        # An object already gone (404) is as good as deleted.
        return client.request('DELETE', name, obj, missing_ok=True)

    pool = gevent.pool.Pool(concurrency)
    greenlets = [pool.spawn(_quietly, delete, obj) for obj in objects]
    pool.join()
    failed = [exc for _, exc in (g.value for g in greenlets)
              if exc is not None]
    stats.objects += len(objects) - len(failed)
    stats.object_failures += len(failed)
    if failed:
        log.error('could not delete %d of %d objects in %s: %s',
                  len(failed), len(objects), name, _reason(failed[0]))


def _reason(exc):
    if isinstance(exc, SwiftError):
        return '%s' % (exc,)
    return '%s: %s' % (type(exc).__name__, exc)


def _delete_container(client, name, concurrency, stats, deadline=None):
    import gevent

    for attempt in range(CONTAINER_DELETE_TRIES):
        if deadline is not None:
            deadline.check()
        objects = _listing(client.list_objects, 'cannot list the objects '
                           'of %s' % (name,), name, deadline=deadline)
        _delete_objects(client, name, objects, concurrency, stats)
        try:
            timing = client.delete_container(name, missing_ok=True)
        except SwiftError as exc:
            if getattr(exc, 'http_status', None) == 409 and \
                    attempt + 1 < CONTAINER_DELETE_TRIES:
                gevent.sleep(0.2 * (attempt + 1))
                continue
            raise
        if timing.status != 404:
            stats.containers += 1
        return


def cleanup_containers(client, base='ssbench', policy='default_policy',
                       concurrency=10, deadline=DEFAULT_DEADLINE,
                       clock=monotonic):
    """Delete every container named <base>_<n>_<policy> and all its
    objects: `concurrency` containers at a time, and `concurrency` objects
    at a time within each, within `deadline` seconds on `clock`
    (monotonic; None: no deadline).  Logs the rates; returns
    CleanupStats, or raises SwiftError when anything could not be
    deleted."""
    whole = Deadline(deadline, 'cleanup-containers', clock)
    try:
        # The first request: a server too slow to answer it within the
        # network timeout ends the cleanup at once, not after every retry.
        listed = _listing(client.list_containers, 'cannot list containers',
                          base + '_', retry_timeouts=False, deadline=whole)
    except Exception as exc:    # one line that says what to fix
        raise hints.explain(exc, 'cannot list containers')
    names = matching_containers(listed, base, policy)
    log.info('Deleting %d containers (%s_*_%s) and their objects; '
             'concurrency=%d', len(names), base, policy, concurrency)
    stats = CleanupStats()
    return delete_each(
        names, lambda name: _delete_container(client, name, concurrency,
                                              stats, whole),
        concurrency, stats, 'container')


def delete_each(names, delete, concurrency, stats, what, reason=_reason):
    """delete(name) for each of `names`, `concurrency` at a time (a
    container or a bucket, `what`, with all it holds, counted in
    `stats`): logs each failure (`reason(exc)` says why) and the rates;
    returns `stats`, or raises SwiftError when anything could not be
    deleted (the deadline's, said once, when it passed)."""
    import gevent.pool

    started = monotonic()
    pool = gevent.pool.Pool(concurrency)
    greenlets = [pool.spawn(_quietly, delete, name) for name in names]
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
        raise SwiftError('%s: %d %s(s) not deleted' % (late, stats.failures,
                                                       what))
    if stats.failures or stats.object_failures:
        raise SwiftError('%d %s(s) and %d object(s) could not be '
                         'deleted' % (stats.failures, what,
                                      stats.object_failures))
    return stats

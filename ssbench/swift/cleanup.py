"""`cleanup-containers`: delete ssbench's containers and everything in them."""
from __future__ import absolute_import, division, print_function

import logging
import re

from ssbench.swift import hints
from ssbench.compat import monotonic, string_types
from ssbench.errors import SwiftError
from ssbench.store.cleanup import (DEFAULT_DEADLINE, CleanupStats,
                                   delete_each, empty_then_delete, one_line,
                                   quietly)
from ssbench.store.paging import Deadline

log = logging.getLogger(__name__)


def container_pattern(base, policy):
    """The names ssbench gives containers: <base>_<digits>_<policy>, and
    their large objects' segments containers, the same with `_segments`
    (ssbench.segments_container)."""
    return re.compile(r'^%s_\d+_%s(_segments)?$' % (
        re.escape(base), re.escape(policy)))


def matching_containers(names, base, policy):
    """The names among `names` that ssbench created for base and policy."""
    pattern = container_pattern(base, policy)
    return [name for name in names if pattern.match(name)]


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
    greenlets = [pool.spawn(quietly, delete, obj) for obj in objects]
    pool.join()
    failed = [exc for _, exc in (g.value for g in greenlets)
              if exc is not None]
    stats.objects += len(objects) - len(failed)
    stats.object_failures += len(failed)
    if failed:
        log.error('could not delete %d of %d objects in %s: %s',
                  len(failed), len(objects), name, one_line(failed[0]))


def _delete_container(client, name, concurrency, stats, deadline=None):
    def empty():
        if deadline is not None:
            deadline.check()
        objects = _listing(client.list_objects, 'cannot list the objects '
                           'of %s' % (name,), name, deadline=deadline)
        _delete_objects(client, name, objects, concurrency, stats)

    import gevent
    empty_then_delete(client, name, empty, stats, gevent.sleep)


def cleanup_containers(client, base='ssbench', policy='default_policy',
                       concurrency=10, deadline=DEFAULT_DEADLINE,
                       clock=monotonic):
    """Delete every container named <base>_<n>_<policy> and all its
    objects: `concurrency` containers at a time, and `concurrency` objects
    at a time within each, within `deadline` seconds on `clock`
    (monotonic; None: no deadline).  Logs the rates; returns
    CleanupStats, or raises StoreError when anything could not be
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

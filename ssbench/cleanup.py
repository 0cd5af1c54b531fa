"""`cleanup-containers`: delete ssbench's containers and everything in them."""
from __future__ import absolute_import, division, print_function

import logging
import re

from ssbench.compat import monotonic
from ssbench.errors import SwiftError

log = logging.getLogger(__name__)

# A container may answer 409 (not empty) for a moment after its objects
# are gone, until the container listing catches up.
CONTAINER_DELETE_TRIES = 5


def container_pattern(base, policy):
    """The names ssbench gives containers: <base>_<digits>_<policy>."""
    return re.compile(r'^%s_\d+_%s$' % (re.escape(base), re.escape(policy)))


def matching_containers(names, base, policy):
    """The names among `names` that ssbench created for base and policy."""
    pattern = container_pattern(base, policy)
    return [name for name in names if pattern.match(name)]


class CleanupStats(object):
    def __init__(self):
        self.containers = 0
        self.objects = 0
        self.failures = 0


def _delete_container(client, name, concurrency, stats):
    import gevent
    import gevent.pool

    for attempt in range(CONTAINER_DELETE_TRIES):
        objects = client.list_objects(name)
        pool = gevent.pool.Pool(concurrency)
        for obj in objects:
            pool.spawn(client.request, 'DELETE', name, obj, missing_ok=True)
        pool.join()
        stats.objects += len(objects)
        try:
            timing = client.request('DELETE', name, read='keep',
                                    missing_ok=True)
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
                       concurrency=10):
    """Delete every container named <base>_<n>_<policy> and all its
    objects: `concurrency` containers at a time, and `concurrency` objects
    at a time within each.  Logs the rates; returns CleanupStats."""
    import gevent.pool

    names = matching_containers(client.list_containers(prefix=base + '_'),
                                base, policy)
    log.info('Deleting %d containers (%s_*_%s) and their objects; '
             'concurrency=%d', len(names), base, policy, concurrency)
    stats = CleanupStats()
    started = monotonic()
    pool = gevent.pool.Pool(concurrency)
    greenlets = [pool.spawn(_delete_container, client, name, concurrency,
                            stats) for name in names]
    pool.join()
    for name, greenlet in zip(names, greenlets):
        if greenlet.exception is not None:
            stats.failures += 1
            log.error('could not delete container %s: %s', name,
                      greenlet.exception)
    elapsed = max(monotonic() - started, 1e-9)
    log.info('Deleted %d containers (%.1f/s) and %d objects (%.1f/s) in '
             '%.1f s', stats.containers, stats.containers / elapsed,
             stats.objects, stats.objects / elapsed, elapsed)
    if stats.failures:
        raise SwiftError('%d container(s) could not be deleted'
                         % stats.failures)
    return stats

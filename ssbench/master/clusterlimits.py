"""Before a run: the scenario's objects against the cluster's limits.

The cluster's /info (Swift's capabilities) says its `max_file_size` and
whether it has the `slo` middleware (and how many segments a static large
object may have; the `dlo` middleware is not listed there).  A size class
the cluster would refuse object by object is refused before anything
starts, in one line naming the cluster's limit.  A cluster whose /info
is disabled or does not answer gets a warning (for a scenario of large
objects) and the run goes on: its answers to the uploads will tell.  One
whose answer does not come within the network timeout ends the run
before it starts: every request of the run would time out alike.  A
--noop run has no cluster and no check.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.errors import SsbenchError, StoreError

log = logging.getLogger(__name__)


def problems(scenario, info):
    """The one-line reasons the cluster described by `info` (its /info)
    cannot store the objects of `scenario`; the first size class each."""
    swift = info.get('swift') if isinstance(info.get('swift'), dict) \
        else {}
    max_file_size = swift.get('max_file_size')
    if not isinstance(max_file_size, int) or isinstance(max_file_size,
                                                        bool):
        max_file_size = None
    found = []
    for size in scenario.sizes:
        name = size.name
        if size.segment_size is None:
            if max_file_size is not None and size.size_max > max_file_size:
                found.append(
                    'size class %s: size_max %d is above the cluster\'s '
                    'max_file_size %d; give it a "segment_size" (or '
                    '--segment-size) to store it as a large object' % (
                        name, size.size_max, max_file_size))
            continue
        if max_file_size is not None and size.segment_size > max_file_size:
            found.append('size class %s: segment_size %d is above the '
                         'cluster\'s max_file_size %d' % (
                             name, size.segment_size, max_file_size))
        if size.large_object != 'slo':
            continue    # the dlo middleware says nothing in /info
        if 'slo' not in info:
            found.append('size class %s: the cluster has no SLO middleware '
                         '(its /info does not list "slo"); try "large_object"'
                         ': "dlo"' % (name,))
        else:
            limit = info['slo'].get('max_manifest_segments') \
                if isinstance(info['slo'], dict) else None
            count = -(-size.size_max // size.segment_size)
            if isinstance(limit, int) and count > limit:
                found.append(
                    'size class %s: %d segments of %d bytes, above the '
                    'cluster\'s max_manifest_segments %d' % (
                        name, count, size.segment_size, limit))
    return found


def check_cluster(swift, scenario):
    """Raise SsbenchError (one line) when the cluster `swift` (a
    SwiftClient) cannot store the scenario's objects, or does not answer
    its /info within the network timeout.  When its /info
    does not tell, a scenario of large objects gets a warning; any other
    scenario goes on as it always did (a cluster that cannot be reached
    says so when the containers are made)."""
    say = log.warning if scenario.segmented else log.debug
    try:
        info = swift.cluster_info()
    except StoreError as exc:
        if getattr(exc, 'error_class', None) == 'timeout':
            raise SsbenchError(
                'the cluster\'s /info gave no complete answer within the '
                'network timeout (%s); is the storage URL Swift\'s, or give '
                'a longer --network-timeout' % (exc,))
        say('cannot read the cluster\'s /info (%s): object sizes are not '
            'checked against its limits', exc)
        return
    if info is None:
        say('the cluster does not answer /info (disabled?): object sizes '
            'are not checked against its limits')
        return
    found = problems(scenario, info)
    if found:
        raise SsbenchError(found[0])

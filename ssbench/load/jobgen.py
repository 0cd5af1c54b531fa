"""Job generation for the master; pure and seedable.

A job is the map the master sends to a worker (the worker echoes its keys
into the result):

    type         upload_object | get_object | update_object | delete_object
                 | head_object | list_container
    size_str     size class name (of the class whose profile drew a LIST)
    container    container name
    name         object name ('' for a LIST)
    limit        names a LIST asks for (the scenario's "listing")
    prefix       the prefix a LIST asks for, when the scenario gives one
    size         bytes to upload (create and update only)
    block_size   chunk size for uploads and reads
    delete_after X-Delete-After seconds (benchmark create/update, when set)
    head_first   True on initial-population jobs: HEAD, upload if missing
    segment_size bytes per segment, on every job of a segmented size class
    large_object 'slo' or 'dlo', with segment_size
    noop         True in --noop runs

Jobs never carry credentials.  Randomness comes from an injected
`random.Random`, time from an injected clock, so tests can pin both.

How the pieces fit (master side), with an ssbench.load.objectring.ObjectRing:

- `initial_jobs()` populates; feed the results to `ring.on_results()` so
  the ring holds exactly the initial objects that are confirmed present.
- `bench_jobs()` takes READ/UPDATE/DELETE/HEAD objects from the ring when
  the job is generated; a CREATE's object joins it when its result is
  back.  A LIST takes a container of the scenario at random, as a CREATE
  does.
- `cleanup_jobs()` deletes what the run created and left behind.
"""
from __future__ import absolute_import, division, print_function

import logging
import random as _random
from bisect import bisect_right

from ssbench import (CREATE_OBJECT, CRUD_TYPES, DELETE_OBJECT,
                     LIST_CONTAINER, OPERATION_TYPES, UPDATE_OBJECT)
from ssbench.compat import monotonic

log = logging.getLogger(__name__)

# bench_jobs() yields WAIT when draw after draw found only objects in use
# (ssbench.load.objectring): no job can be made until results come back.
# Sent FORCE instead of resumed, it takes an object whatever uses it.
WAIT = object()
FORCE = object()
WAIT_AFTER_BUSY = 32
# Object number used in --noop placeholder names; real objects start at 1.
PLACEHOLDER_INDEX = 0
# Container names bench_jobs() makes once and keeps (up to ~1 MB of them);
# a scenario with more makes each name as it draws it.
NAMES_KEPT = 10000


def object_name(size_name, number):
    """`<size_name>_<6-digit number>`, the name of every ssbench object."""
    return '%s_%06d' % (size_name, number)


def segment_keys(scenario):
    """{size class name: the job keys of its large objects} of the
    segmented size classes."""
    return dict((size.name, {'segment_size': size.segment_size,
                             'large_object': size.large_object})
                for size in scenario.sizes if size.segment_size)


def initial_objects(scenario):
    """Yield (size_str, container, name) of the initial population.

    Classes are interleaved one object at a time, in the order of `sizes`
    (0.3.x used dict order, which varied), while any class has objects left;
    one round-robin container cursor runs across the interleaved sequence.
    The result depends only on the scenario, so reruns find their objects.
    """
    containers = scenario.containers
    container_count = len(containers)
    remaining = [(size.name, size.initial_count)
                 for size in scenario.sizes if size.initial_count > 0]
    cursor = 0
    number = 1
    while remaining:
        for size_str, _ in remaining:
            yield (size_str, containers[cursor % container_count],
                   object_name(size_str, number))
            cursor += 1
        number += 1
        remaining = [entry for entry in remaining if entry[1] >= number]


def initial_jobs(scenario, rng=None):
    """CREATE jobs for the initial population, each with `head_first`: the
    worker HEADs the object and uploads it only if it is missing."""
    rng = rng or _random.Random()
    randint = rng.randint
    block_size = scenario.block_size
    segmented = segment_keys(scenario)
    for size_str, container, name in initial_objects(scenario):
        size = scenario.size(size_str)
        job = {
            'type': CREATE_OBJECT,
            'size_str': size_str,
            'container': container,
            'name': name,
            'size': randint(size.size_min, size.size_max),
            'block_size': block_size,
            'head_first': True,
        }
        if size_str in segmented:
            job.update(segmented[size_str])
        yield job


def bench_jobs(scenario, rng, ring, clock=None, noop=False):
    """Generate the benchmark jobs.

    Each job picks a size class with probability proportional to its
    initial count, then a job type from that class's profile.  Jobs are
    numbered from max(initial counts) + 1; a CREATE is named after its
    number and goes to a random container, as does a LIST (a page of
    `scenario.listing`'s limit and prefix).  READ/UPDATE/DELETE/HEAD take
    their object from `ring` now; when the class has none the draw is
    skipped and redrawn (counted in `ring.skipped`), so exactly
    `operation_count` jobs come out.  With `noop`, such jobs use a
    placeholder object instead (`<size>_000000` in the first container).
    In run_seconds mode,
    generation stops once `clock()` (default: monotonic) reports that many
    seconds since the first job.  If no job can ever be produced again (no
    objects left and no class can CREATE) generation ends early with a
    warning rather than spin.  When WAIT_AFTER_BUSY draws in a row find
    only objects other jobs still use, it yields WAIT (see its comment).
    """
    if clock is None:
        clock = monotonic
    used = scenario.used_sizes
    # One draw picks the (size class, job type) pair: the class's share of
    # the initial files times the type's share of the class's profile,
    # whose running sums pair_cum holds.
    pairs = []
    pair_cum = []
    pair_total = 0
    for size in used:
        profile = size.crud_profile
        profile_total = float(sum(profile))
        for job_type, share in zip(OPERATION_TYPES, profile):
            weight = size.initial_count * share / profile_total
            if weight > 0:
                pairs.append((size.name, size.size_min,
                              size.size_max - size.size_min + 1, job_type))
                pair_total += weight
                pair_cum.append(pair_total)
    last_pair = len(pairs) - 1
    class_names = [size.name for size in used]
    can_create = any(size.crud_profile[0] > 0 for size in used)
    containers = scenario.containers
    container_count = len(containers)
    if container_count <= NAMES_KEPT:
        # Made once instead of per CREATE (a tenth of a job's cost).
        containers = list(containers)
    block_size = scenario.block_size
    delete_after = scenario.delete_after
    operation_count = scenario.operation_count
    run_seconds = scenario.run_seconds
    number = scenario.max_initial_count
    random = rng.random
    take = ring.take
    segmented = segment_keys(scenario)
    crud_types = frozenset(CRUD_TYPES)
    limit, prefix = scenario.listing
    listing = {'limit': limit}
    if prefix is not None:
        listing['prefix'] = prefix

    produced = 0
    start = None
    busy_draws = 0
    force = False
    while True:
        if run_seconds is None:
            if produced >= operation_count:
                return
        else:
            now = clock()
            if start is None:
                start = now
            elif now - start >= run_seconds:
                return
        while True:   # draw until a job can be made
            index = bisect_right(pair_cum, random() * pair_total)
            if index > last_pair:   # float rounding at the very top
                index = last_pair
            size_str, size_min, span, job_type = pairs[index]
            if job_type == CREATE_OBJECT:
                container = containers[int(random() * container_count)]
                name = None
                break
            if job_type == LIST_CONTAINER:
                container = containers[int(random() * container_count)]
                name = ''
                break
            found = take(size_str, job_type, force)
            if found:
                container, name = found
                break
            if noop:
                container = containers[0]
                name = object_name(size_str, PLACEHOLDER_INDEX)
                break
            ring.skipped += 1
            if found is False:     # objects there, all in use
                busy_draws += 1
                if busy_draws >= WAIT_AFTER_BUSY:
                    busy_draws = 0
                    force = (yield WAIT) is FORCE
                continue
            if not can_create and not any(
                    ring.count(name) for name in class_names):
                log.warning('no objects left to read, update or delete and '
                            'no size class creates any: stopping after %d '
                            'jobs', produced)
                return
        number += 1
        if name is None:
            name = '%s_%06d' % (size_str, number)
        job = {'type': job_type, 'size_str': size_str,
               'container': container, 'name': name,
               'block_size': block_size}
        if job_type == CREATE_OBJECT or job_type == UPDATE_OBJECT:
            size = size_min + int(random() * span) if span > 1 else size_min
            if size >= size_min + span:
                size = size_min + span - 1
            job['size'] = size
            if delete_after:
                job['delete_after'] = delete_after
        elif job_type == LIST_CONTAINER:
            job.update(listing)
        # A HEAD of a large object is a HEAD of its manifest: one request.
        if segmented and size_str in segmented and job_type in crud_types:
            job.update(segmented[size_str])
        if noop:
            job['noop'] = True
        produced += 1
        busy_draws = 0
        force = False
        yield job


def cleanup_jobs(created, noop=False, scenario=None):
    """DELETE jobs for `created`, the objects the run created and left
    behind (ObjectRing.pop_created(): the initial population is kept).
    With the `scenario`, those of segmented classes delete their segments
    too."""
    segmented = segment_keys(scenario) if scenario is not None else {}
    for size_str, container, name in created:
        job = {'type': DELETE_OBJECT, 'size_str': size_str,
               'container': container, 'name': name}
        if size_str in segmented:
            job.update(segmented[size_str])
        if noop:
            job['noop'] = True
        yield job

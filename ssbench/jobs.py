"""Job generation and object bookkeeping for the master; pure and seedable.

A job is the map the master sends to a worker (the worker echoes its keys
into the result):

    type         upload_object | get_object | update_object | delete_object
    size_str     size class name
    container    container name
    name         object name
    size         bytes to upload (create and update only)
    block_size   chunk size for uploads and reads
    delete_after X-Delete-After seconds (benchmark create/update, when set)
    head_first   True on initial-population jobs: HEAD, upload if missing
    noop         True in --noop runs

Jobs never carry credentials.  Randomness comes from an injected
`random.Random`, time from an injected clock, so tests can pin both.

How the pieces fit (master side):

- `initial_jobs()` populates; feed each result to `ObjectRing.on_result()`
  so the ring holds exactly the initial objects that are confirmed present.
- `bench_jobs()` takes READ/UPDATE/DELETE objects from the ring *when the
  job is generated*: a DELETE removes its object at once so no later job
  uses it, READ/UPDATE rotate theirs to the back.  A CREATE's object joins
  the ring only when its successful result reaches `on_result()`.
- `cleanup_jobs()` deletes what the run created and left behind.
"""
from __future__ import absolute_import, division, print_function

import logging
import random as _random
from array import array
from bisect import bisect_right

from ssbench import CREATE_OBJECT, UPDATE_OBJECT, DELETE_OBJECT, CRUD_TYPES
from ssbench.compat import monotonic, range

log = logging.getLogger(__name__)

# Object number used in --noop placeholder names; real objects start at 1.
PLACEHOLDER_INDEX = 0


def object_name(size_name, number):
    """`<size_name>_<6-digit number>`, the name of every ssbench object."""
    return '%s_%06d' % (size_name, number)


# Ring entries are ints, 8 bytes each in an array: a long run creates
# hundreds of thousands of objects, and (container, name) tuples of fresh
# strings would cost ~200 bytes apiece.  An object named
# `<size_str>_<6+ digit number>` in a container the ring has seen packs as
# (number << CONTAINER_BITS | container index) << 1 | initial.  Any other
# name (never produced by ssbench itself) is kept as a tuple in a side table
# under a negative code.
CONTAINER_BITS = 20
_CONTAINER_MASK = (1 << CONTAINER_BITS) - 1
# Object numbers from here on would not fit a signed 64-bit code.
_NUMBER_LIMIT = 1 << (63 - CONTAINER_BITS - 1)
_TYPECODE = 'q' if 'q' in getattr(array, 'typecodes', '') else 'l'
_COMPACT_AT = 4096


class _Ring(object):
    """A FIFO of int codes in an array with a moving head; the dead front
    is cut off once it is at least half of the array."""

    __slots__ = ('codes', 'head')

    def __init__(self):
        self.codes = array(_TYPECODE)
        self.head = 0

    def __len__(self):
        return len(self.codes) - self.head

    def __iter__(self):
        codes = self.codes
        for index in range(self.head, len(codes)):
            yield codes[index]

    def popleft(self):
        head = self.head
        code = self.codes[head]
        head += 1
        if head >= _COMPACT_AT and head * 2 >= len(self.codes):
            del self.codes[:head]
            head = 0
        self.head = head
        return code

    def replace(self, codes):
        self.codes = array(_TYPECODE, codes)
        self.head = 0


class ObjectRing(object):
    """Live objects per size class, in FIFO order; bounded by what exists.

    Entries are (container, name, initial) objects (stored packed, see
    CONTAINER_BITS).  Besides the rings it remembers run-created objects
    whose DELETE is in flight or failed, so cleanup can retry them, and
    counts jobs skipped for lack of an object.
    """

    def __init__(self):
        self._rings = {}
        self._order = []          # size names in first-seen order
        self._deleting = {}       # (container, name) -> size_str
        self._undeleted = []      # (size_str, container, name)
        self._containers = []     # container index -> name
        self._container_index = {}
        self._odd = {}            # -code -> (container, name), odd names
        self._next_odd = 1
        self.skipped = 0

    def _ring(self, size_str):
        ring = self._rings.get(size_str)
        if ring is None:
            ring = self._rings[size_str] = _Ring()
            self._order.append(size_str)
        return ring

    def _encode(self, size_str, container, name, initial):
        index = self._container_index.get(container)
        if index is None and len(self._containers) <= _CONTAINER_MASK:
            index = self._container_index[container] = len(self._containers)
            self._containers.append(container)
        prefix = len(size_str) + 1
        digits = name[prefix:]
        if (index is not None and name[prefix - 1:prefix] == '_' and
                name.startswith(size_str) and digits.isdigit()):
            number = int(digits)
            if '%06d' % number == digits and number < _NUMBER_LIMIT:
                return ((number << CONTAINER_BITS | index) << 1 |
                        (1 if initial else 0))
        code = self._next_odd
        self._next_odd += 1
        self._odd[code] = (container, name, bool(initial))
        return -code

    def _decode(self, size_str, code):
        """(container, name, initial) of a code."""
        if code < 0:
            return self._odd[-code]
        return (self._containers[(code >> 1) & _CONTAINER_MASK],
                '%s_%06d' % (size_str, code >> (CONTAINER_BITS + 1)),
                bool(code & 1))

    def _forget(self, code):
        if code < 0:
            del self._odd[-code]

    def add(self, size_str, container, name, initial=False):
        """Append an existing object at the back of its class's ring."""
        self._ring(size_str).codes.append(
            self._encode(size_str, container, name, initial))

    def load(self, objects, initial=True):
        """Add many (size_str, container, name) objects, e.g. the initial
        population of a --noop run, which uploads nothing."""
        for size_str, container, name in objects:
            self.add(size_str, container, name, initial)

    def take(self, size_str, job_type):
        """(container, name) for a READ/UPDATE/DELETE job, or None.

        READ and UPDATE use the head object and rotate it to the back;
        DELETE removes the head.
        """
        ring = self._rings.get(size_str)
        if ring is None:
            return None
        codes = ring.codes
        head = ring.head
        if head >= len(codes):
            return None
        code = codes[head]
        head += 1
        if head >= _COMPACT_AT and head * 2 >= len(codes):
            del codes[:head]
            head = 0
        ring.head = head
        if code >= 0:
            container = self._containers[(code >> 1) & _CONTAINER_MASK]
            name = '%s_%06d' % (size_str, code >> (CONTAINER_BITS + 1))
            initial = code & 1
        else:
            container, name, initial = self._odd[-code]
        if job_type == DELETE_OBJECT:
            if code < 0:
                del self._odd[-code]
            if not initial:
                self._deleting[(container, name)] = size_str
        else:
            codes.append(code)
        return container, name

    def fill(self, job):
        """Name the object `job` (READ/UPDATE/DELETE) works on; False when
        its class has none, and the job should be skipped."""
        found = self.take(job['size_str'], job['type'])
        if found is None:
            self.skipped += 1
            return False
        job['container'], job['name'] = found
        return True

    def on_result(self, result):
        """Update the rings from a result record of any phase.

        A successful CREATE adds its object (as initial when the job was a
        population job, `head_first`); a DELETE of a run-created object that
        failed is kept for cleanup.  Other results change nothing.
        """
        job_type = result.get('type')
        if job_type == CREATE_OBJECT:
            if 'exception' not in result:
                self.add(result['size_str'], result['container'],
                         result['name'], result.get('head_first', False))
        elif job_type == DELETE_OBJECT and self._deleting:
            key = (result.get('container'), result.get('name'))
            size_str = self._deleting.pop(key, None)
            if size_str is not None and 'exception' in result:
                self._undeleted.append((size_str,) + key)

    def on_results(self, results):
        """on_result() for a list of records, in one call."""
        deleting = self._deleting
        rings = self._rings
        encode = self._encode
        for result in results:
            job_type = result.get('type')
            if job_type == CREATE_OBJECT:
                if 'exception' not in result:
                    size_str = result['size_str']
                    ring = rings.get(size_str)
                    if ring is None:
                        ring = self._ring(size_str)
                    ring.codes.append(encode(
                        size_str, result['container'], result['name'],
                        result.get('head_first', False)))
            elif job_type == DELETE_OBJECT and deleting:
                key = (result.get('container'), result.get('name'))
                size_str = deleting.pop(key, None)
                if size_str is not None and 'exception' in result:
                    self._undeleted.append((size_str,) + key)

    def count(self, size_str=None):
        """Live objects in one class, or in all of them."""
        if size_str is not None:
            return len(self._rings.get(size_str, ()))
        return sum(len(ring) for ring in self._rings.values())

    __len__ = count

    def objects(self, size_str):
        """The (container, name, initial) entries of a class, head first."""
        ring = self._rings.get(size_str)
        if ring is None:
            return []
        return [self._decode(size_str, code) for code in ring]

    def pop_created(self):
        """Remove and return (size_str, container, name) of every object the
        run created that may still exist: live ones in the rings, then those
        whose DELETE failed or never answered.  Initial objects stay."""
        found = []
        for size_str in self._order:
            ring = self._rings[size_str]
            kept = []
            for code in ring:
                container, name, initial = self._decode(size_str, code)
                if initial:
                    kept.append(code)
                else:
                    found.append((size_str, container, name))
                    self._forget(code)
            ring.replace(kept)
        found.extend(self._undeleted)
        found.extend(sorted((size_str, container, name) for
                            (container, name), size_str in
                            self._deleting.items()))
        self._undeleted = []
        self._deleting = {}
        return found


def _cumulative(weights):
    total = 0
    out = []
    for weight in weights:
        total += weight
        out.append(total)
    return out


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
    for size_str, container, name in initial_objects(scenario):
        size = scenario.size(size_str)
        yield {
            'type': CREATE_OBJECT,
            'size_str': size_str,
            'container': container,
            'name': name,
            'size': randint(size.size_min, size.size_max),
            'block_size': block_size,
            'head_first': True,
        }


def bench_jobs(scenario, rng, ring, clock=None, noop=False):
    """Generate the benchmark jobs.

    Each job picks a size class with probability proportional to its
    initial count, then a CRUD type from that class's profile.  Jobs are
    numbered from max(initial counts) + 1; a CREATE is named after its
    number and goes to a random container.  READ/UPDATE/DELETE take their
    object from `ring` now; when the class has none the draw is skipped and
    redrawn (counted in `ring.skipped`), so exactly `operation_count` jobs
    come out.  With `noop`, such jobs use a placeholder object instead
    (`<size>_000000` in the first container).  In run_seconds mode,
    generation stops once `clock()` (default: monotonic) reports that many
    seconds since the first job.  If no job can ever be produced again (no
    objects left and no class can CREATE) generation ends early with a
    warning rather than spin.
    """
    if clock is None:
        clock = monotonic
    used = scenario.used_sizes
    # One draw picks the (size class, CRUD type) pair: the class's share of
    # the initial files times the type's share of the class's profile.
    pairs = []
    weights = []
    for size in used:
        profile = size.crud_profile
        profile_total = float(sum(profile))
        for kind, job_type in enumerate(CRUD_TYPES):
            weight = size.initial_count * profile[kind] / profile_total
            if weight > 0:
                pairs.append((size.name, size.size_min,
                              size.size_max - size.size_min + 1, job_type))
                weights.append(weight)
    pair_cum = _cumulative(weights)
    pair_total = pair_cum[-1]
    last_pair = len(pairs) - 1
    class_names = [size.name for size in used]
    can_create = any(size.crud_profile[0] > 0 for size in used)
    containers = scenario.containers
    container_count = len(containers)
    block_size = scenario.block_size
    delete_after = scenario.delete_after
    operation_count = scenario.operation_count
    run_seconds = scenario.run_seconds
    number = scenario.max_initial_count
    random = rng.random
    take = ring.take

    produced = 0
    start = None
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
            found = take(size_str, job_type)
            if found is not None:
                container, name = found
                break
            if noop:
                container = containers[0]
                name = object_name(size_str, PLACEHOLDER_INDEX)
                break
            ring.skipped += 1
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
        if noop:
            job['noop'] = True
        produced += 1
        yield job


def cleanup_jobs(ring, noop=False):
    """DELETE jobs for the objects the run created and left behind (see
    ObjectRing.pop_created); the initial population is kept."""
    for size_str, container, name in ring.pop_created():
        job = {'type': DELETE_OBJECT, 'size_str': size_str,
               'container': container, 'name': name}
        if noop:
            job['noop'] = True
        yield job

"""The master's record of which objects exist, per size class, in FIFO
order: what READ, UPDATE and DELETE jobs may name (see ssbench.load.jobgen).

- The initial population joins through `load()` (a --noop run, which
  uploads nothing) or through its successful results (`on_results()`).
- `take()` hands out an object *when a job is generated*: a DELETE removes
  its object at once so no later job uses it, READ and UPDATE rotate theirs
  to the back.  A CREATE's object joins only when its successful result
  reaches `on_results()`.
- A DELETE never takes an object that a READ or UPDATE handed out earlier
  has not answered for yet (its result, success or failure, reaches
  `on_results()`): the DELETE could overtake it, and the READ would fail
  with a 404 (an UPDATE would put the object back behind the ring's back),
  an error of the benchmark's making, not the cluster's.  Such objects are
  passed over (to the back, at most PASS_OVER_MAX of them); when no
  object is found that way, the draw is skipped.  In segmented classes
  (`guard_updates()`) READ and UPDATE pass over objects the same way.
- A HEAD takes its object as a READ does, under the same rules.
- `pop_created()` gives what the run created and may have left behind.
- A class given a rank picker (`rank_by()`, from the scenario's
  `popularity`, ssbench.load.popularity) keeps its objects in a fixed
  order instead, by packed code: the initial population by number (the
  first objects are the hottest), then the run's by job number (names
  ssbench does not make rank before both); created objects join at the
  cold end and deleted ones leave.  Each job takes the
  object at the rank its picker draws, a DELETE removing it; an object
  that may not be used yet is passed over to the next colder ones, as
  above.
"""
from __future__ import absolute_import, division, print_function

from array import array
from bisect import bisect_left, bisect_right

from ssbench import (CREATE_OBJECT, DELETE_OBJECT, HEAD_OBJECT, READ_OBJECT,
                     UPDATE_OBJECT)
from ssbench.compat import range

# Ring entries are ints, 8 bytes each in an array: a long run creates
# hundreds of thousands of objects, and (container, name) tuples of fresh
# strings would cost ~200 bytes apiece.  An object named
# `<size_str>_<6+ digit number>` (ssbench.load.jobgen.object_name) in a
# container the ring has seen packs as (number << CONTAINER_BITS | container
# index) << 1 | initial.  Any other name (never produced by ssbench itself) is
# kept as a tuple in a side table under a negative code.
CONTAINER_BITS = 20
_CONTAINER_MASK = (1 << CONTAINER_BITS) - 1
# Object numbers from here on would not fit a signed 64-bit code.
_NUMBER_LIMIT = 1 << (63 - CONTAINER_BITS - 1)
_TYPECODE = 'q' if 'q' in getattr(array, 'typecodes', '') else 'l'
_COMPACT_AT = 4096
# The dead front is cut once it is this fraction (1/N) of the array.  At
# one half, a class that appends faster than it pops (CREATEs outnumbering
# DELETEs: very_small's "zero" class) never got there, and its array held
# one dead code per READ, UPDATE and DELETE ever drawn: 14 bytes per live
# object after 10 million jobs instead of 8.  At 1/8 the array stays within
# 8/7 of the live objects (plus _COMPACT_AT) for at most 7 codes moved per
# pop (one memmove, far below the take() that pops).
_DEAD_SHARE = 8
# A DELETE looks this far for an object no READ or UPDATE uses: the scan
# stays short when the class has fewer objects than jobs in flight.
PASS_OVER_MAX = 64
# A ranked class keeps its codes in chunks of up to twice this many: a
# DELETE moves at most one chunk's tail, never the whole class.
CHUNK = 1024


class _Ring(object):
    """A FIFO of int codes in an array with a moving head; the dead front
    is cut off once it is an eighth of the array (_DEAD_SHARE)."""

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

    def add(self, code):
        self.codes.append(code)

    def popleft(self):
        head = self.head
        code = self.codes[head]
        head += 1
        if (head >= _COMPACT_AT and
                head * _DEAD_SHARE >= len(self.codes)):
            del self.codes[:head]
            head = 0
        self.head = head
        return code

    def replace(self, codes):
        self.codes = array(_TYPECODE, codes)
        self.head = 0


class _Ranked(object):
    """The codes of a ranked class, ascending (rank 0 first), in sorted
    chunks with a Fenwick tree of their lengths, so that finding, adding
    and removing an object cost O(log n) plus a move within one chunk."""

    __slots__ = ('pick', 'chunks', 'firsts', 'tree', 'top', 'size')

    def __init__(self, pick, codes=()):
        self.pick = pick          # n -> rank in [0, n)
        self.replace(codes)

    def __len__(self):
        return self.size

    def __iter__(self):
        for chunk in self.chunks:
            for code in chunk:
                yield code

    def replace(self, codes):
        codes = sorted(codes)
        self.chunks = [array(_TYPECODE, codes[start:start + CHUNK])
                       for start in range(0, len(codes), CHUNK)]
        self._index()

    def _index(self):
        """Drop empty chunks; rebuild the chunks' first codes and tree."""
        chunks = self.chunks = [chunk for chunk in self.chunks if chunk]
        self.firsts = [chunk[0] for chunk in chunks]
        count = len(chunks)
        tree = [0] * (count + 1)
        for index in range(1, count + 1):
            tree[index] += len(chunks[index - 1])
            parent = index + (index & -index)
            if parent <= count:
                tree[parent] += tree[index]
        self.tree = tree
        top = 1
        while top * 2 <= count:
            top *= 2
        self.top = top if count else 0
        self.size = sum(len(chunk) for chunk in chunks)

    def _bump(self, index, delta):
        tree = self.tree
        count = len(tree) - 1
        index += 1
        while index <= count:
            tree[index] += delta
            index += index & -index

    def add(self, code):
        chunks = self.chunks
        if chunks and code < chunks[-1][-1]:
            index = max(bisect_right(self.firsts, code) - 1, 0)
            chunk = chunks[index]
            chunk.insert(bisect_left(chunk, code), code)
            self.firsts[index] = chunk[0]
            if len(chunk) > 2 * CHUNK:
                chunks[index:index + 1] = [chunk[:CHUNK], chunk[CHUNK:]]
                self._index()
                return
        elif chunks and len(chunks[-1]) < CHUNK:
            index = len(chunks) - 1
            chunks[index].append(code)
        else:
            chunks.append(array(_TYPECODE, (code,)))
            self._index()
            return
        self.size += 1
        self._bump(index, 1)

    def locate(self, rank):
        """(chunk index, offset) of the object at `rank` (< len)."""
        tree = self.tree
        count = len(tree) - 1
        index = 0
        step = self.top
        while step:
            probe = index + step
            if probe <= count and tree[probe] <= rank:
                index = probe
                rank -= tree[probe]
            step >>= 1
        return index, rank

    def following(self, index, offset, count):
        """(chunk index, offset) of the `count` objects after the one at
        (index, offset), colder first, wrapping to the hottest."""
        chunks = self.chunks
        for _ in range(count):
            offset += 1
            if offset >= len(chunks[index]):
                index = index + 1 if index + 1 < len(chunks) else 0
                offset = 0
            yield index, offset

    def remove(self, index, offset):
        chunk = self.chunks[index]
        del chunk[offset]
        if not chunk:
            self._index()
            return
        self.firsts[index] = chunk[0]
        self.size -= 1
        self._bump(index, -1)


class ObjectRing(object):
    """Live objects per size class, in FIFO order; bounded by what exists.

    Entries are (container, name, initial) objects (stored packed, see
    CONTAINER_BITS).  Besides the rings it remembers run-created objects
    whose DELETE is in flight or failed, so cleanup can retry them, the
    objects READ and UPDATE jobs in flight use, and counts jobs skipped for
    lack of an object (`skipped`, kept by ssbench.load.jobgen.bench_jobs).
    """

    def __init__(self):
        self._rings = {}          # size name -> _Ring (0.3.9's rotation)
        self._ranked = {}         # size name -> _Ranked (rank_by())
        self._pickers = {}
        self._order = []          # size names in first-seen order
        self._deleting = {}       # (container, name) -> size_str
        self._undeleted = []      # (size_str, container, name)
        self._containers = []     # container index -> name
        self._container_index = {}
        self._odd = {}            # -code -> (container, name), odd names
        self._next_odd = 1
        # name -> READ/UPDATE jobs out.  Names alone: ours are unique in a
        # run, and an odd name in two containers only makes DELETEs wary.
        self._in_use = {}
        self._updating = {}       # name -> UPDATE jobs out (guarded classes)
        self._guarded = frozenset()
        self.skipped = 0

    def _class(self, size_str):
        """The _Ring or _Ranked of a class, made on first use."""
        ring = self._rings.get(size_str)
        if ring is None:
            ring = self._ranked.get(size_str)
        if ring is None:
            pick = self._pickers.get(size_str)
            if pick is None:
                ring = self._rings[size_str] = _Ring()
            else:
                ring = self._ranked[size_str] = _Ranked(pick)
            self._order.append(size_str)
        return ring

    def rank_by(self, pickers):
        """Skew these classes: {size name: rank picker} (see
        ssbench.load.popularity.pickers()); the others rotate.  Classes
        that hold objects already keep them, ranked in code order."""
        self._pickers = dict(pickers)
        for size_str in self._order:
            pick = self._pickers.get(size_str)
            ring = self._rings.get(size_str)
            if ring is not None and pick is not None:
                del self._rings[size_str]
                self._ranked[size_str] = _Ranked(pick, ring)
            elif ring is None and pick is None:
                self._rings[size_str] = ring = _Ring()
                ring.replace(self._ranked.pop(size_str))
            elif ring is None:
                self._ranked[size_str].pick = pick

    def _encode(self, size_str, container, name, initial):
        index = self._container_index.get(container)
        if index is None and len(self._containers) <= _CONTAINER_MASK:
            index = self._container_index[container] = len(self._containers)
            self._containers.append(container)
        prefix = len(size_str) + 1
        digits = name[prefix:]
        if (index is not None and name[prefix - 1:prefix] == '_' and
                name.startswith(size_str) and digits.isdigit()):
            try:
                number = int(digits)
            except ValueError:
                # Digits int() does not take ('\u00b2'), in a result
                # of a worker of ours or not: an odd name.
                number = -1
            if '%06d' % number == digits and 0 <= number < _NUMBER_LIMIT:
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
        """Append an existing object at the back of its class's ring (in
        its place, in a ranked class)."""
        code = self._encode(size_str, container, name, initial)
        ring = self._rings.get(size_str)
        if ring is not None:
            ring.codes.append(code)
        else:
            self._class(size_str).add(code)

    def load(self, objects, initial=True):
        """Add many (size_str, container, name) objects, e.g. the initial
        population of a --noop run, which uploads nothing."""
        for size_str, container, name in objects:
            self.add(size_str, container, name, initial)

    def guard_updates(self, size_names):
        """In these size classes (segmented ones) an UPDATE has its object
        to itself: it deletes the segments of the version it replaces,
        under a READ still streaming them or another UPDATE whose manifest
        is about to name them.  So an UPDATE passes over objects a READ or
        UPDATE uses, and a READ over objects an UPDATE uses."""
        self._guarded = frozenset(size_names)

    def take(self, size_str, job_type, force=False):
        """(container, name) for a READ/UPDATE/DELETE job (a HEAD takes
        its object as a READ does); None when the class has no object.

        READ and UPDATE use the head object and rotate it to the back;
        DELETE removes the head.  An object that may not be used yet (see
        the module's doc and guard_updates()) is passed over to the back;
        False when every one looked at was.  With `force` the head is taken
        whatever uses it, as 0.3.9 did (for when nothing in flight will
        ever free one).
        """
        ring = self._rings.get(size_str)
        if ring is None:
            ranked = self._ranked.get(size_str)
            return None if ranked is None else self._take_ranked(
                size_str, ranked, job_type, force)
        if ring.head >= len(ring.codes):
            return None
        in_use = self._in_use
        code = ring.popleft()
        container, name, initial = self._decode(size_str, code)
        if job_type == DELETE_OBJECT:
            busy = in_use
        elif size_str not in self._guarded:
            ring.codes.append(code)
            in_use[name] = in_use.get(name, 0) + 1
            return container, name
        elif job_type == UPDATE_OBJECT:
            busy = in_use
        else:
            busy = self._updating
        if name in busy and not force:
            found = self._pass_over(size_str, ring, code, busy)
            if found is None:
                return False
            code, container, name, initial = found
        if job_type == DELETE_OBJECT:
            self._forget(code)
            if not initial:
                self._deleting[(container, name)] = size_str
            return container, name
        ring.codes.append(code)
        in_use[name] = in_use.get(name, 0) + 1
        if job_type == UPDATE_OBJECT:
            updating = self._updating
            updating[name] = updating.get(name, 0) + 1
        return container, name

    def _take_ranked(self, size_str, ranked, job_type, force):
        """take() in a ranked class: the object at the drawn rank, or the
        first colder one (wrapping) that may be used."""
        count = ranked.size
        if not count:
            return None
        index, offset = ranked.locate(ranked.pick(count))
        code = ranked.chunks[index][offset]
        container, name, initial = self._decode(size_str, code)
        in_use = self._in_use
        if job_type == DELETE_OBJECT:
            busy = in_use
        elif size_str not in self._guarded:
            busy = None
        elif job_type == UPDATE_OBJECT:
            busy = in_use
        else:
            busy = self._updating
        if busy and name in busy and not force:
            for index, offset in ranked.following(
                    index, offset, min(count - 1, PASS_OVER_MAX)):
                code = ranked.chunks[index][offset]
                container, name, initial = self._decode(size_str, code)
                if name not in busy:
                    break
            else:
                return False
        if job_type == DELETE_OBJECT:
            ranked.remove(index, offset)
            self._forget(code)
            if not initial:
                self._deleting[(container, name)] = size_str
            return container, name
        in_use[name] = in_use.get(name, 0) + 1
        if job_type == UPDATE_OBJECT and size_str in self._guarded:
            updating = self._updating
            updating[name] = updating.get(name, 0) + 1
        return container, name

    def _pass_over(self, size_str, ring, code, busy):
        """The head object `code` (popped) is in `busy`: pass objects in
        `busy` to the back until one is not; (code, container, name,
        initial) of that one, popped, or None after PASS_OVER_MAX of them
        or the whole class."""
        codes = ring.codes
        codes.append(code)
        for _ in range(min(len(ring) - 1, PASS_OVER_MAX)):
            code = ring.popleft()
            container, name, initial = self._decode(size_str, code)
            if name not in busy:
                return code, container, name, initial
            codes.append(code)
        return None

    def on_results(self, results):
        """Update the rings from a list of result records of any phase.

        A successful CREATE adds its object (as initial when the job was a
        population job, `head_first`); a DELETE of a run-created object that
        failed is kept for cleanup; a READ, UPDATE or HEAD, answered either
        way, frees its object for the jobs that waited for it.  Other results
        change nothing.
        """
        in_use = self._in_use
        updating = self._updating
        for result in results:
            job_type = result.get('type')
            if (job_type == READ_OBJECT or job_type == UPDATE_OBJECT or
                    job_type == HEAD_OBJECT):
                name = result.get('name')
                left = in_use.pop(name, 1) - 1
                if left > 0:
                    in_use[name] = left
                if updating and job_type == UPDATE_OBJECT:
                    left = updating.pop(name, 1) - 1
                    if left > 0:
                        updating[name] = left
            elif job_type == CREATE_OBJECT:
                if 'exception' not in result:
                    self.add(result['size_str'], result['container'],
                             result['name'], result.get('head_first', False))
            elif job_type == DELETE_OBJECT and self._deleting:
                key = (result.get('container'), result.get('name'))
                size_str = self._deleting.pop(key, None)
                if size_str is not None and 'exception' in result:
                    self._undeleted.append((size_str,) + key)

    def count(self, size_str):
        """Live objects in one size class."""
        ring = self._rings.get(size_str)
        if ring is None:
            ring = self._ranked.get(size_str, ())
        return len(ring)

    def pop_created(self):
        """Remove and return (size_str, container, name) of every object the
        run created that may still exist: live ones in the rings, then those
        whose DELETE failed or never answered.  Initial objects stay."""
        found = []
        for size_str in self._order:
            ring = self._class(size_str)
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

"""Sorted runs of doubles spilled to a temporary file, and exact order
statistics over a union of them.

ssbench.report.compute.classicstats and ssbench.report buffer latencies per
cell in LatencyBuffers, which spills each full buffer here as one sorted run,
keeping in memory only every BLOCK-th value (its fences) and the run's count,
exact sum and centred sum of squares.  An exact percentile of any union of runs
is then a binary search over the doubles' bit patterns, counting with one
bisect per run; the 4 kB blocks a probe needs are read back from the file (and
cached a little).

runs_percentile() applies the one nearest-rank rule
(ssbench.measure.rank) to such a union.
"""
from __future__ import absolute_import, division, print_function

import bisect
import math
import operator
import struct
import tempfile
from array import array
from itertools import repeat

try:  # Python 2: a lazy map, so sums over big runs build no lists
    from itertools import imap
except ImportError:
    imap = map

from ssbench.compat import PY2
from ssbench.measure.rank import nearest_rank

# A sorted run keeps every BLOCK-th value in memory (8 bytes per 4 kB).
BLOCK = 512
# Blocks of runs cached while searching percentiles (4 kB each).
BLOCK_CACHE = 2048

_D = struct.Struct('<d')
_Q = struct.Struct('<Q')
_SIGN = 1 << 63


def _key(x):
    """An int that orders like the float x (IEEE-754 bit trick)."""
    bits = _Q.unpack(_D.pack(x))[0]
    return bits if bits < _SIGN else _SIGN - 1 - bits


def _unkey(k):
    return _D.unpack(_Q.pack(k if k >= 0 else _SIGN - 1 - k))[0]


class Run(object):
    """A sorted run of one cell's latencies, stored in a RunStore."""
    __slots__ = ('offset', 'n', 'total', 'residual', 'm2', 'lo', 'hi',
                 'fences')

    def __init__(self, offset, n, total, residual, m2, lo, hi, fences):
        self.offset = offset
        self.n = n
        self.total = total
        self.residual = residual
        self.m2 = m2
        self.lo = lo
        self.hi = hi
        self.fences = fences


class RunStore(object):
    """Sorted runs of doubles in an anonymous temporary file.

    Only every BLOCK-th value of a run (its fences) stays in memory;
    blocks are read back on demand (and cached a little) to count or
    fetch values.  An mmap would be simpler, but the kernel maps pages
    around every fault, so bisecting hundreds of runs would pull most of
    the file into the resident set.
    """

    def __init__(self):
        self._fp = None
        self._size = 0
        self._blocks = {}

    def add(self, values):
        """Sort ``values`` (an array('d')) and store it; returns a Run."""
        ordered = sorted(values)
        n = len(ordered)
        total = math.fsum(ordered)
        # total + residual is the exact sum to ~106 bits, so sums of many
        # runs stay as exact as one fsum over all the values.
        ordered.append(-total)
        residual = math.fsum(ordered)
        ordered.pop()
        mean = total / n
        # All in C and without a second list: sum of (x - mean) ** 2.
        m2 = math.fsum(imap(pow, imap(operator.sub, ordered,
                                      repeat(mean, n)), repeat(2, n)))
        if self._fp is None:
            self._fp = tempfile.TemporaryFile(prefix='ssbench-stats-')
        data = array('d', ordered)
        offset = self._size
        self._fp.write(data.tostring() if PY2 else data.tobytes())
        self._size += data.itemsize * n
        return Run(offset, n, total, residual, m2, ordered[0], ordered[-1],
                   array('d', ordered[::BLOCK]))

    def open(self):
        """Prepare for reading; call after the last add()."""
        if self._fp is not None:
            self._fp.flush()

    def _block(self, run, index):
        key = (run.offset, index)
        block = self._blocks.get(key)
        if block is None:
            if len(self._blocks) >= BLOCK_CACHE:
                self._blocks.clear()
            first = index * BLOCK
            count = min(BLOCK, run.n - first)
            block = array('d')
            self._fp.seek(run.offset + block.itemsize * first)
            data = self._fp.read(block.itemsize * count)
            if PY2:
                block.fromstring(data)
            else:
                block.frombytes(data)
            self._blocks[key] = block
        return block

    def count_le(self, run, x):
        """How many values of the run are <= x."""
        if x < run.lo:
            return 0
        if x >= run.hi:
            return run.n
        index = bisect.bisect_right(run.fences, x) - 1
        return index * BLOCK + bisect.bisect_right(self._block(run, index), x)

    def value_at(self, run, i):
        """The run's i-th smallest value (0-based)."""
        return self._block(run, i // BLOCK)[i % BLOCK]

    def close(self):
        self._blocks = {}
        if self._fp is not None:
            self._fp.close()
            self._fp = None


class LatencyBuffers(object):
    """Latency buffers of each cell, in memory until their total passes
    ``budget`` values, then spilled as sorted runs.

    Three series per cell: ``first`` and ``last`` (first- and last-byte
    latencies of successes) and ``failed`` (failures' times to failure).
    Each is a list of array('d') indexed by cell (a spill replaces a
    cell's array in place, so callers may keep the lists);
    ``first_runs``/``last_runs``/``failed_runs`` hold each cell's spilled
    Runs.
    """
    SERIES = ('first', 'last', 'failed')

    def __init__(self, store, budget):
        self.store = store
        self.budget = budget
        for name in self.SERIES:
            setattr(self, name, [])
            setattr(self, name + '_runs', [])

    def add_cell(self):
        """Make room for one more cell; returns its index."""
        for name in self.SERIES:
            getattr(self, name).append(array('d'))
            getattr(self, name + '_runs').append([])
        return len(self.first) - 1

    def _spill(self, cell, name):
        bufs = getattr(self, name)
        values = bufs[cell]
        if values:
            getattr(self, name + '_runs')[cell].append(self.store.add(values))
            bufs[cell] = array('d')

    def enforce_budget(self):
        """Spill the largest buffers until the total fits the budget."""
        sizes = [(len(buf), cell, name) for name in self.SERIES
                 for cell, buf in enumerate(getattr(self, name))]
        total = sum(size for size, _, _ in sizes)
        sizes.sort(reverse=True)
        for size, cell, name in sizes:
            if total <= self.budget:
                break
            self._spill(cell, name)
            total -= size

    def finish(self):
        """Spill every buffer and make the store readable."""
        for cell in range(len(self.first)):
            for name in self.SERIES:
                self._spill(cell, name)
        self.store.open()


def moments(runs):
    """(n, min, max, mean, population std_dev) of the union of runs, or
    None when they hold no value."""
    n = sum(run.n for run in runs)
    if not n:
        return None
    total = math.fsum([run.total for run in runs] +
                      [run.residual for run in runs])
    mean = total / n
    # Parallel-axis theorem: exact combination of centred sums of squares.
    m2 = math.fsum([run.m2 for run in runs] +
                   [run.n * (run.total / run.n - mean) ** 2 for run in runs])
    return (n, min(run.lo for run in runs), max(run.hi for run in runs),
            mean, math.sqrt(max(m2, 0.0) / n))


def count_le(store, runs, x):
    count_le = store.count_le
    return sum([count_le(run, x) for run in runs])


def kth(store, runs, k, lo, hi):
    """The k-th smallest (1-based) value of sorted runs spanning lo..hi.

    A binary search over the doubles' bit patterns: at most 64 rounds,
    each counting with one bisect per run.
    """
    lo_key, hi_key = _key(lo), _key(hi)
    while lo_key < hi_key:
        mid = (lo_key + hi_key) // 2
        if count_le(store, runs, _unkey(mid)) >= k:
            hi_key = mid
        else:
            lo_key = mid + 1
    return _unkey(lo_key)


def next_after(store, runs, x):
    """The smallest value greater than x in the runs (None if none)."""
    best = None
    for run in runs:
        i = store.count_le(run, x)
        if i < run.n:
            value = store.value_at(run, i)
            if best is None or value < best:
                best = value
    return best


def runs_percentile(store, runs, n, lo, hi, pctile):
    """ssbench.measure.rank.percentile_of_sorted() over the union of
    sorted runs, exactly."""
    first, second, whole = nearest_rank(n, pctile)
    if first == 1:
        a = lo
    elif first == n:
        a = hi
    else:
        a = kth(store, runs, first, lo, hi)
    if second == first:
        b = a
    elif count_le(store, runs, a) >= second:
        b = a
    else:
        b = next_after(store, runs, a)
    return (a + b) / 2 if whole else a

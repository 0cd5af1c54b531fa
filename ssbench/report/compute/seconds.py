"""Counts of results per whole second (int of completed_at), per slot.

The analysis keeps one slot per operation for successes and one per
operation for failures.  Seconds live in chunks of CHUNK seconds with one
array per slot, made on first use, so memory follows the seconds that
hold results: a stray timestamp years away costs one chunk, not years.
Chunks are made for at most MAX_CHUNKS spans of CHUNK seconds (the
widest window of completion times a report keeps, see
ssbench.results.timewindow): a pass over results spread wider is read
again without the strays, so counts beyond it are dropped, not kept.
"""
from __future__ import absolute_import, division, print_function

from array import array

from ssbench.results import timewindow

CHUNK_BITS = 12
CHUNK = 1 << CHUNK_BITS
MAX_CHUNKS = timewindow.MAX_WIDTH // CHUNK + 2
_MASK = CHUNK - 1
_ZEROS = array('I', [0]) * CHUNK


class SecondCounts(object):
    """Results per (second, slot)."""

    def __init__(self, slots):
        self.slots = slots
        self._chunks = {}

    def add(self, second, counts):
        """Add counts[slot] to second for every slot, zeroing counts."""
        chunk = self._chunks.get(second >> CHUNK_BITS)
        if chunk is None:
            if len(self._chunks) >= MAX_CHUNKS:
                counts[:] = [0] * len(counts)
                return
            chunk = self._chunks[second >> CHUNK_BITS] = [None] * self.slots
        i = second & _MASK
        for slot, n in enumerate(counts):
            if n:
                column = chunk[slot]
                if column is None:
                    column = chunk[slot] = array('I', _ZEROS)
                column[i] += n
                counts[slot] = 0

    def items(self, slots):
        """(second, count) ascending, summed over ``slots``, for every
        second where that sum is not 0."""
        for key in sorted(self._chunks):
            chunk = self._chunks[key]
            columns = [chunk[slot] for slot in slots
                       if chunk[slot] is not None]
            if not columns:
                continue
            base = key << CHUNK_BITS
            summed = (columns[0] if len(columns) == 1
                      else map(sum, zip(*columns)))
            for i, n in enumerate(summed):
                if n:
                    yield base + i, n

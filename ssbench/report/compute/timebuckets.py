"""Adaptive time buckets: per-bucket counters over the whole run.

A second s (int of a completed_at) belongs to the bucket with absolute
index s // width.  The width starts at 1 s; whenever the buckets from the
first to the last one seen would number more than MAX_BUCKETS, it doubles
and each pair of buckets 2i, 2i + 1 merges into bucket i, exactly (counts
add, LogHists merge).  The final width is thus the smallest power of two
that fits the run, whatever the order of the results.
"""
from __future__ import absolute_import, division, print_function

from ssbench.measure import loghist

MAX_BUCKETS = 4000


class Row(object):
    """One bucket: bytes per slot and LogHists per (kind, slot).

    ``hists[slot]`` counts last-byte latencies, ``hists[slots + slot]``
    first-byte latencies (None until a value arrives).
    """
    __slots__ = ('bytes', 'hists')

    def __init__(self, slots):
        self.bytes = [0] * slots
        self.hists = [None] * (2 * slots)

    def merge(self, other):
        for slot, n in enumerate(other.bytes):
            self.bytes[slot] += n
        for slot, hist in enumerate(other.hists):
            if hist is None:
                continue
            if self.hists[slot] is None:
                self.hists[slot] = hist
            else:
                self.hists[slot].merge(hist)


class TimeBuckets(object):
    """Rows by absolute bucket index; see the module docstring."""

    def __init__(self, slots, max_buckets=None):
        self.slots = slots
        self.max_buckets = (MAX_BUCKETS if max_buckets is None
                            else max_buckets)
        self.width = 1
        self.rows = {}
        self.lo = None
        self.hi = None

    def row(self, second):
        """The Row of the bucket holding ``second`` (an int), made if
        needed (which may double the width)."""
        index = second // self.width
        row = self.rows.get(index)
        if row is not None:
            return row
        row = self.rows[index] = Row(self.slots)
        if self.lo is None or index < self.lo:
            self.lo = index
        if self.hi is None or index > self.hi:
            self.hi = index
        if self.hi - self.lo >= self.max_buckets:
            while self.hi - self.lo >= self.max_buckets:
                self._double()
            row = self.rows[second // self.width]
        return row

    def _double(self):
        self.width *= 2
        rows = {}
        for index in sorted(self.rows):
            target = rows.get(index // 2)
            if target is None:
                rows[index // 2] = self.rows[index]
            else:
                target.merge(self.rows[index])
        self.rows = rows
        self.lo //= 2
        self.hi //= 2

    def count(self):
        """Buckets from the first to the last (0 without any)."""
        return 0 if self.lo is None else self.hi - self.lo + 1

    def percentiles(self, hist_slots, pctiles):
        """Per bucket (first to last), the pctiles of the LogHists at
        ``hist_slots`` merged: a list of lists (Nones where empty)."""
        empty = [None] * len(pctiles)
        out = []
        if self.lo is None:
            return out
        for index in range(self.lo, self.hi + 1):
            row = self.rows.get(index)
            hist = None
            if row is not None:
                hist = loghist.merged(row.hists[slot] for slot in hist_slots)
            out.append(hist.percentiles(pctiles) if hist is not None
                       else empty)
        return out

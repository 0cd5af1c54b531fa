"""Percentiles of a sorted sequence given as runs of equal values.

A histogram (values with counts) stands for the sorted list that repeats
each value count times; RunLengths indexes that list without building it,
so ssbench.report.compute.percentile.percentile_of_sorted (the report's
nearest-rank rule) applies unchanged.
"""
from __future__ import absolute_import, division, print_function

import bisect

from ssbench.report.compute.percentile import percentile_of_sorted


class RunLengths(object):
    """The ascending sequence holding value_at(j) counts[j] times."""

    def __init__(self, counts, value_at):
        ends = []
        total = 0
        for count in counts:
            total += count
            ends.append(total)
        self._ends = ends
        self._value_at = value_at

    def __len__(self):
        return self._ends[-1] if self._ends else 0

    def __getitem__(self, i):
        # ends[j - 1] <= i < ends[j]: position i lies in run j (never an
        # empty run, whose end equals the one before it).
        return self._value_at(bisect.bisect_right(self._ends, i))

    def percentile(self, pctile):
        """The nearest-rank percentile (None when empty)."""
        return percentile_of_sorted(self, pctile)

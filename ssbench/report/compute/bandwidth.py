"""Bandwidth: the bytes of the successful operations per second of the run.

The seconds are the run's duration as the JSON document's `run` says it
(from the first success's start to the last one's completion, to the
precision of the records, skipped warm-up left out), the same for every
operation and size class, so that their figures add up to the total.
Bytes are the `size` of the successes the stats file holds: an upload's
object size, a read's bytes received.
"""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute.cells import GROUPS, size_order

MB = 1000 ** 2
MiB = 1024 ** 2


def figures(nbytes, seconds):
    """Bytes, and bytes per second in B/s, MB/s (10**6 bytes) and MiB/s
    (2**20 bytes); the rates are None without a duration, and all of
    them without bytes (a 0.3.x file's reads record no size)."""
    rate = nbytes / seconds if seconds and nbytes is not None else None
    return {
        'bytes': nbytes,
        'bytes_per_second': rate,
        'MB_per_second': rate / MB if rate is not None else None,
        'MiB_per_second': rate / MiB if rate is not None else None,
    }


def build(scan, scenario_sizes, seconds):
    """The document's `bandwidth`: the `seconds` of the run and, per
    operation present (`total` first), its figures() and those of each
    size class (`sizes`)."""
    operations = {}
    for _, key, job_type in GROUPS:
        cells = [c for c in range(len(scan.cells))
                 if (job_type is None or scan.cells[c].type == job_type) and
                 (scan.count[c] or scan.errors[c])]
        if not cells:
            continue
        entry = figures(_bytes(scan, cells), seconds)
        sizes = {}
        for size in size_order(scenario_sizes, [scan.cells[c]
                                                for c in cells]):
            sizes[size] = figures(_bytes(scan, [
                c for c in cells if scan.cells[c].size == size]), seconds)
        entry['sizes'] = sizes
        operations[key] = entry
    return {'seconds': seconds, 'operations': operations}


def _bytes(scan, cells):
    """The bytes of the cells' successes; None when none records any."""
    sized = [scan.bytes[c] for c in cells if scan.bytes[c] is not None]
    return sum(sized) if sized else None

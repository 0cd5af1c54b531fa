"""Statistics of a run, computed from a stats file in bounded memory.

The numbers follow the original ssbench 0.3.9 report (docs/internals.rst,
"Report numbers"):
latency series ignore None and 0 values, std_dev is the population standard
deviation, percentiles use the nearest-rank rule with the "whole rank ->
mean of two neighbours" twist, and the worst TX ID is the trans_id of the
first result holding a series' largest latency.

How it stays small: one pass over the stats file (the analysis's,
ssbench.report.compute.scan) keeps counters per (type, size) *cell* and appends
each cell's latencies to a buffer.  Full buffers are sorted and spilled
to a temporary file as runs of doubles (ssbench.results.sortedruns), with each
run's count, exact sum and centred sum of squares.  A series (a group x
size x first/last) is a union of cells, so its count, mean and std_dev
combine from its runs, and an exact percentile is found by a binary
search over the doubles' ordering, counting with bisect in each sorted
run (every 512th value of a run stays in memory; the 4 kB block around a
probe is read back from the file).
Memory is the buffer budget plus about 1/500 of the latencies, whatever
the number of results.
"""
from __future__ import absolute_import, division, print_function

import logging
import math

from ssbench.measure import profile
from ssbench.measure.rank import percentile_of_sorted
from ssbench.measure.record import HEADER_KEY
from ssbench.report.compute.cells import GROUPS, as_text, size_order, worst_of
from ssbench.report.compute.scan import scanned
from ssbench.results import sortedruns

log = logging.getLogger(__name__)

_INF = float('inf')


class SeriesStats(object):
    """Summary of one latency series (or of the jobs-per-worker counts).

    ``min``..``pctile`` are None when the series has no values.
    ``worst_latency`` is None when no result carried a latency at all;
    otherwise ``worst_txid`` is the trans_id (possibly None) of the first
    result holding the largest latency.
    """
    __slots__ = ('count', 'min', 'max', 'avg', 'std_dev', 'pctile',
                 'worst_latency', 'worst_txid')

    def __init__(self, count=0, min=None, max=None, avg=None, std_dev=None,
                 pctile=None, worst_latency=None, worst_txid=None):
        self.count = count
        self.min = min
        self.max = max
        self.avg = avg
        self.std_dev = std_dev
        self.pctile = pctile
        self.worst_latency = worst_latency
        self.worst_txid = worst_txid

    def __repr__(self):
        return 'SeriesStats(%s)' % ', '.join(
            '%s=%r' % (name, getattr(self, name)) for name in self.__slots__)


class SizeSeries(object):
    """First- and last-byte latency series of one size (None = all)."""

    def __init__(self, size_name, first, last):
        self.size_name = size_name
        self.first = first
        self.last = last


class GroupStats(object):
    """TOTAL or one CRUD type: counts, rate and per-size latency series."""

    def __init__(self, label, key, count, errors, retries, start, stop,
                 series):
        self.label = label
        self.key = key
        self.count = count
        self.errors = errors
        self.retries = retries
        self.start = start
        self.stop = stop
        self.series = series

    @property
    def retry_rate(self):
        """Retries per successful request, in percent."""
        return self.retries / self.count * 100 if self.count else 0.0

    @property
    def avg_req_per_sec(self):
        span = self.stop - self.start
        return self.count / span if span else _INF


class SizeRow(object):
    """One row of the scenario's size table."""

    def __init__(self, name, size_min, size_max, share_pct, crud_pcts):
        self.name = name
        self.size_min = size_min
        self.size_max = size_max
        self.share_pct = share_pct
        self.crud_pcts = crud_pcts


class RunStats(object):
    """Everything the reports print, as plain data."""

    def __init__(self, **fields):
        self.name = ''
        self.version = ''
        self.pctile = 95
        self.worker_count = 0
        self.concurrency = 0
        self.start_time = None
        self.stop_time = None
        self.duration = None
        self.delete_after = None
        self.size_rows = []
        self.crud_weighted = [0.0, 0.0, 0.0, 0.0]
        self.groups = []
        self.jobs_per_worker = SeriesStats()
        self.rps_counts = []
        self.skipped = 0
        self.also = None
        self.__dict__.update(fields)


# --- exact statistics of a small in-memory series ----------------------------

def series_stats(values, pctile=95, trans_ids=None):
    """SeriesStats of a list, exactly as the original computes it.

    None and 0 values are ignored; the sum is taken over the sorted values
    like the original.  ``trans_ids`` (parallel to ``values``) names the
    worst result.  Used for small series and as the reference in tests.
    """
    worst = None
    worst_txid = None
    for i, value in enumerate(values):
        if value is not None and (worst is None or value > worst):
            worst = value
            worst_txid = trans_ids[i] if trans_ids is not None else None
    data = sorted(v for v in values if v)
    if not data:
        return SeriesStats(worst_latency=worst, worst_txid=worst_txid)
    n = len(data)
    avg = sum(data) / n
    std_dev = math.sqrt(sum((x - avg) ** 2 for x in data) / n)
    return SeriesStats(n, data[0], data[-1], avg, std_dev,
                       percentile_of_sorted(data, pctile), worst, worst_txid)


def _combine(store, runs, pctile):
    """SeriesStats (without worst) of the union of runs."""
    moments = sortedruns.moments(runs)
    if moments is None:
        return SeriesStats()
    n, lo, hi, mean, std_dev = moments
    return SeriesStats(n, lo, hi, mean, std_dev,
                       sortedruns.runs_percentile(store, runs, n, lo, hi,
                                                  pctile))


def _series(scanner, cells, last, pctile):
    cell_runs = (scanner.buffers.last_runs if last
                 else scanner.buffers.first_runs)
    runs = [run for cell in cells for run in cell_runs[cell]]
    stats = _combine(scanner.store, runs, pctile)
    if last:
        worst = worst_of(scanner.worst_last, scanner.worst_last_id, cells)
    else:
        worst = worst_of(scanner.worst_first, scanner.worst_first_id, cells)
    if worst is not None:
        stats.worst_latency = worst[0]
        stats.worst_txid = as_text(worst[1])
    return stats


def _size_table(scenario):
    """Rows of the size table and the weighted average of the mix: four
    percentages (CRUD), or six (with HEAD and LIST) when a profile of the
    scenario weighs HEAD or LIST."""
    sizes = scenario.get('sizes') or []
    initial = scenario.get('initial_files') or {}
    default_profile = scenario.get('crud_profile')
    total = sum(initial.get(size.get('name'), 0) or 0 for size in sizes)
    none = (0,) * len(profile.PROFILE_KEYS)
    mixes = [profile.weights(size.get('crud_profile') or default_profile)
             or none for size in sizes]
    width = len(none) if any(any(mix[profile.CRUD_COUNT:])
                             for mix in mixes) else profile.CRUD_COUNT
    rows = []
    weighted = [0.0] * width
    for size, mix in zip(sizes, mixes):
        name = size.get('name')
        share = (initial.get(name, 0) or 0) / total if total else 0.0
        profile_total = sum(mix)
        pcts = [(c / profile_total * 100 if profile_total else 0.0)
                for c in mix[:width]]
        for i, pct in enumerate(pcts):
            weighted[i] += share * pct
        rows.append(SizeRow(name, size.get('size_min'), size.get('size_max'),
                            share * 100, pcts))
    return rows, weighted


def compute(stats_file, pctile=95, also=None):
    """Compute a RunStats from a stats file path or an open_stats() object;
    `also`, given, is called with the finished scan while its runs are
    readable, and what it returns kept as RunStats.also."""
    if not hasattr(stats_file, 'iter_batches'):
        from ssbench.results.statsreader import open_stats
        stats_file = open_stats(stats_file)

    def use(scanner):
        run_stats = _build(stats_file.header, scanner, pctile)
        run_stats.also = also and also(scanner)
        return run_stats
    # The summary line's MB/s needs the bytes.
    return scanned(stats_file, use, detail=False, sizes=also is not None)


def _build(header, scanner, pctile):
    scenario = header.get(HEADER_KEY) or {}
    size_rows, crud_weighted = _size_table(scenario)
    scenario_sizes = [row.name for row in size_rows]
    all_cells = list(range(len(scanner.cells)))

    groups = []
    for label, key, job_type in GROUPS:
        cells = [c for c in all_cells
                 if job_type is None or scanner.cells[c].type == job_type]
        count = sum(scanner.count[c] for c in cells)
        if not count:
            continue
        ok_cells = [c for c in cells if scanner.count[c]]
        series = [SizeSeries(None, _series(scanner, cells, False, pctile),
                             _series(scanner, cells, True, pctile))]
        for size in size_order(scenario_sizes,
                               [scanner.cells[c] for c in cells]):
            size_cells = [c for c in cells if scanner.cells[c].size == size]
            series.append(SizeSeries(
                as_text(size), _series(scanner, size_cells, False, pctile),
                _series(scanner, size_cells, True, pctile)))
        groups.append(GroupStats(
            label, key, count, sum(scanner.errors[c] for c in cells),
            sum(scanner.retries[c] for c in cells),
            min(scanner.start[c] for c in ok_cells),
            max(scanner.stop[c] for c in ok_cells), series))

    successes = sum(scanner.count)
    if successes:
        stop_second = int(max(scanner.stop))
        start_time = scanner.start_time
        first_second = int(scanner.min_second)
        # Zeros, then the seconds with successes: a window of weeks is
        # millions of seconds and most of them idle.
        rps_counts = [0] * (stop_second + 1 - first_second)
        for second, count in scanner.successes_per_second():
            if first_second <= second <= stop_second:
                rps_counts[second - first_second] = count
        duration = stop_second - start_time
    else:
        stop_second = start_time = first_second = duration = None
        rps_counts = []
    # Every record here is a result: maps without completed_at (control
    # records to the analysis) are skipped too.
    skipped = scanner.skipped + scanner.controls
    if skipped:
        log.warning('Total number of results skipped: %d', skipped)
    return RunStats(
        name=as_text(header.get('name', '')),
        version=as_text(header.get('version', '')),
        pctile=pctile,
        worker_count=len(scanner.workers),
        concurrency=header.get('user_count') or 0,
        start_time=start_time,
        stop_time=stop_second,
        duration=duration,
        delete_after=header.get('delete_after'),
        size_rows=size_rows,
        crud_weighted=crud_weighted,
        groups=groups,
        jobs_per_worker=series_stats(list(scanner.workers.values()), pctile),
        rps_counts=rps_counts,
        skipped=skipped,
    )

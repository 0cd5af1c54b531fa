"""The JSON document (format_version 1) from a finished Scan."""
from __future__ import absolute_import, division, print_function

from ssbench import CREATE_OBJECT, version
from ssbench.measure import loghist
from ssbench.measure.rank import percentile_name
from ssbench.report.compute import (bandwidth, popularity, protocol,
                                    throughput)
from ssbench.report.compute.jsonsafe import jsonable
from ssbench.report.compute.retrycauses import AUTH_CAUSE
from ssbench.report.compute.scan import OPERATIONS, SLOTS
from ssbench.results.statscheck import HEADER_KEY
from ssbench.report.compute.series import latency_entry
from ssbench.report.compute.cells import GROUPS, as_text, size_order, worst_of

FORMAT_VERSION = 1
# The percentiles of the time series, per bucket.
TIMESERIES_PCTILES = (50, 99)


def build(header, scan, pctiles, stats_path, skip):
    """The document of a scan (see SCHEMA / docs/analysis.rst)."""
    scenario = header.get(HEADER_KEY)
    if not isinstance(scenario, dict):
        scenario = {}
    operations = []
    for _, key, job_type in GROUPS:
        cells = [c for c in range(len(scan.cells))
                 if job_type is None or scan.cells[c].type == job_type]
        if any(scan.count[c] or scan.errors[c] for c in cells):
            operations.append(_operation(key, cells, scan, scenario,
                                         pctiles))
    run = _run(header, scan, skip)
    sizes = [s.get('name') for s in scenario.get('sizes') or []
             if isinstance(s, dict)]
    doc = {
        'format_version': FORMAT_VERSION,
        'generator': 'ssbench %s' % (version,),
        'stats_file': stats_path,
        'header': _header(header),
        'scenario': scenario,
        'run': run,
        'percentiles': list(pctiles),
        'operations': operations,
        'timeseries': _timeseries(scan, [op['operation']
                                         for op in operations]),
        'bandwidth': bandwidth.build(scan, sizes, run['duration']),
        'popularity': popularity.section(
            scenario, scan.reads,
            sum(scan.count[c] for c, cell in enumerate(scan.cells)
                if cell.type == CREATE_OBJECT)),
        'errors': {
            'recorded': scan.cause_keys_seen or (
                not sum(scan.errors) and scan.reconnects_recorded),
            'total': sum(scan.errors),
            'causes': scan.causes.summary(),
        },
        'retries': scan.retry_causes.summary(),
    }
    if scan.endpoints is not None:
        # Only a run of several storage URLs has the section.
        doc['endpoints'] = scan.endpoints.section(pctiles)
    return jsonable(doc)


def summary(header, scan, pctiles):
    """What the summary line reads of the document
    (ssbench.report.compute.suitefigures.step_figures): header, run,
    bandwidth and the "total" operation with its all-sizes last-byte
    entry only, the same as build()'s; a scan without detail (the text
    report's) has all of it."""
    cells = list(range(len(scan.cells)))
    run = _run(header, scan, 0)
    operations = []
    if any(scan.count) or any(scan.errors):
        count, errors, start, stop, rate = _counts(cells, scan)
        operations.append({
            'operation': 'total', 'count': count, 'errors': errors,
            'start': start, 'stop': stop, 'req_per_s': rate,
            'latency': {'last_byte': [latency_entry(
                scan.store, [part for c in cells
                             for part in scan.buffers.last_runs[c]],
                worst_of(scan.worst_last, scan.worst_last_id, cells),
                pctiles, None)]}})
    return jsonable({'header': _header(header), 'run': run,
                     'operations': operations,
                     'bandwidth': bandwidth.build(scan, (),
                                                  run['duration'])})


def _header(header):
    return dict((k, v) for k, v in header.items() if k != HEADER_KEY)


def _run(header, scan, skip):
    if any(scan.count):
        # To the precision of the records: from the first success's
        # start to the last one's completion.  The text report's "Ran"
        # line keeps 0.3.9's whole seconds (classicstats), which are off
        # by up to a second: a third of a 3 s step.
        start_time = min(scan.start)
        stop_time = max(scan.stop)
        duration = stop_time - start_time
    else:
        start_time = stop_time = duration = None
    run = {
        'name': as_text(header.get('name', '')),
        'version': as_text(header.get('version', '')),
        'worker_count': len(scan.workers),
        'concurrency': header.get('user_count') or 0,
        'start_time': start_time,
        'stop_time': stop_time,
        'duration': duration,
        'records': scan.records,
        'skipped': scan.skipped,
        'skip_seconds': skip,
    }
    # Only an S3 run's has the API it spoke: a Swift run's is as it was.
    spoken = protocol.section(header)
    if spoken is not None:
        run['protocol'] = spoken.pop('protocol')
        run['s3'] = spoken
    return run


def _slots(key):
    """The operation slots of a GROUPS key ("total": all of them)."""
    if key == 'total':
        return list(range(SLOTS))
    return [OPERATIONS.index(key)]


def _counts(cells, scan):
    """(successes, failures, first start, last stop, successes per
    second) of the cells: what any scan has."""
    count = sum(scan.count[c] for c in cells)
    ok_cells = [c for c in cells if scan.count[c]]
    start = min(scan.start[c] for c in ok_cells) if ok_cells else None
    stop = max(scan.stop[c] for c in ok_cells) if ok_cells else None
    return (count, sum(scan.errors[c] for c in cells), start, stop,
            count / (stop - start) if ok_cells and stop != start else None)


def _operation(key, cells, scan, scenario, pctiles):
    count, errors, start, stop, rate = _counts(cells, scan)
    sized = [scan.bytes[c] for c in cells if scan.bytes[c] is not None]
    slots = _slots(key)
    by_cause = scan.retry_causes.by_cause(None if key == 'total' else key)
    return {
        'operation': key,
        'count': count,
        'errors': errors,
        'retries': sum(scan.retries[c] for c in cells),
        'retries_by_cause': by_cause,
        'auth_retries': by_cause.get(AUTH_CAUSE, 0),
        'reconnects': (sum(scan.reconnects[c] for c in cells)
                       if scan.reconnects_recorded else None),
        'bytes': sum(sized) if sized else None,
        'start': start,
        'stop': stop,
        'req_per_s': rate,
        'throughput': throughput.summarize(scan.seconds.items(slots)),
        'latency': _latency(cells, scan, scenario, pctiles),
    }


def _latency(cells, scan, scenario, pctiles):
    """Per size (None: all sizes first) the first- and last-byte entries
    of the successes, and "all_requests": the successes' last-byte
    latencies with the failures' times to failure."""
    sizes = [s.get('name') for s in scenario.get('sizes') or []
             if isinstance(s, dict)]
    groups = [(None, cells)]
    for size in size_order(sizes, [scan.cells[c] for c in cells]):
        groups.append((size, [c for c in cells
                              if scan.cells[c].size == size]))
    out = {'first_byte': [], 'last_byte': [], 'all_requests': []}
    buffers = scan.buffers
    for size, size_cells in groups:
        for kind, runs, values, ids in (
                ('first_byte', buffers.first_runs, scan.worst_first,
                 scan.worst_first_id),
                ('last_byte', buffers.last_runs, scan.worst_last,
                 scan.worst_last_id)):
            series_runs = [run for c in size_cells for run in runs[c]]
            out[kind].append(latency_entry(
                scan.store, series_runs, worst_of(values, ids, size_cells),
                pctiles, size))
        out['all_requests'].append(_all_requests(scan, size_cells, pctiles,
                                                 size))
    return out


def _all_requests(scan, cells, pctiles, size):
    """The latency entry of every request of the cells, failures at their
    time to failure, with how many failures it holds ("failures") and
    how many had no time ("failures_without_time", left out)."""
    buffers = scan.buffers
    runs = [run for c in cells
            for run in buffers.last_runs[c] + buffers.failed_runs[c]]
    # Failed cells as cells past the last one, for one worst_of() over
    # successes and failures (the first in file order wins a tie).
    shift = len(scan.cells)
    worst = worst_of(scan.worst_last + scan.worst_failed,
                     scan.worst_last_id + scan.worst_failed_id,
                     list(cells) + [shift + c for c in cells])
    entry = latency_entry(scan.store, runs, worst, pctiles, size)
    entry['failures'] = sum(run.n for c in cells
                            for run in buffers.failed_runs[c])
    entry['failures_without_time'] = sum(scan.untimed[c] for c in cells)
    return entry


def _timeseries(scan, names):
    buckets = scan.buckets
    width = buckets.width
    count = buckets.count()
    series = {}
    for name in names:
        slots = _slots(name)
        requests = _per_bucket(scan.seconds.items(slots), buckets)
        errors = _per_bucket(
            scan.seconds.items([SLOTS + s for s in slots]), buckets)
        nbytes = [0] * count
        for index, row in buckets.rows.items():
            nbytes[index - buckets.lo] = sum(row.bytes[s] for s in slots)
        entry = {'requests': requests, 'errors': errors, 'bytes': nbytes}
        for kind, offset in (('last_byte', 0), ('first_byte', SLOTS)):
            values = buckets.percentiles(
                [offset + s for s in slots], TIMESERIES_PCTILES)
            for i, pctile in enumerate(TIMESERIES_PCTILES):
                entry['%s_%s' % (kind, percentile_name(pctile))] = [
                    v[i] for v in values]
        series[name] = entry
    return {
        'bucket_seconds': width,
        'start': (float(buckets.lo * width) if buckets.lo is not None
                  else None),
        'count': count,
        'percentile_relative_error': loghist.RELATIVE_ERROR,
        'operations': series,
    }


def _per_bucket(items, buckets):
    counts = [0] * buckets.count()
    for second, n in items:
        counts[second // buckets.width - buckets.lo] += n
    return counts

"""Analysis of a stats file as one JSON-ready document.

analyze() reads the stats file once (scan), then builds the document
(document): exact latency statistics per operation and size class, the
time series, the throughput summary and the causes of failures.  The
renderers (jsonreport, html, compare) take that document.
"""
from __future__ import absolute_import, division, print_function

import numbers

from ssbench.measure.finite import is_non_negative
from ssbench.results import clockrecords, eventrecords, healthrecords
from ssbench.report.compute import (document, endpoints, fleet, openloop,
                                    popularity, timeline)
from ssbench.report.compute.scan import scanned
from ssbench.errors import StatsFileError, UsageError
from ssbench.results.statscheck import HEADER_KEY
from ssbench.results.recordview import RecordView, controls_of_kind
from ssbench.report.compute.metricnames import DEFAULT_PERCENTILES


def _check_percentiles(pctiles):
    """Percentiles as given (integral ones as int), without repeats."""
    out = []
    for pctile in pctiles:
        if (isinstance(pctile, bool) or
                not isinstance(pctile, numbers.Real) or
                not 0 <= pctile <= 100):
            raise UsageError('percentile %r is not a number from 0 to 100'
                             % (pctile,))
        pctile = int(pctile) if pctile == int(pctile) else float(pctile)
        if pctile not in out:
            out.append(pctile)
    return out


def _check_skip(skip):
    if not is_non_negative(skip):
        raise UsageError('warm-up skip %r is not a number of seconds >= 0'
                         % (skip,))
    return skip


def analyze(stats_file, percentiles=DEFAULT_PERCENTILES, skip=0):
    """The analysis document (a dict of JSON types) of a stats file.

    ``stats_file`` is a path or an ssbench.results.statsreader.open_stats()
    object. Results that completed within ``skip`` seconds of the run's first
    request start are left out of every statistic.  Raises StatsFileError for
    an unusable file, UsageError for bad arguments.
    """
    pctiles = _check_percentiles(percentiles)
    skip = _check_skip(skip)
    path = stats_file
    if not hasattr(stats_file, 'iter_batches'):
        from ssbench.results.statsreader import open_stats
        stats_file = open_stats(stats_file)
    else:
        path = getattr(stats_file, 'path', '')
    path = '%s' % (path,)
    # Open loop: the document's latencies are response times; the
    # service times (as measured from the actual send) go under
    # "open_loop" (see ssbench.report.compute.openloop).
    response = openloop.open_loop(stats_file.header)
    view = RecordView(stats_file, response=response)
    try:
        doc, scan = _document(view, pctiles, skip, path)
        service = response and _document(stats_file, pctiles, skip, path)[0]
    except StatsFileError as exc:
        if path and not str(exc).startswith(path):
            raise StatsFileError('%s: %s' % (path, exc))
        raise
    if response:
        doc['open_loop'] = openloop.section(stats_file.header, service,
                                            view.controls)
    client = health_section(view.controls)
    if client is not None:
        doc['client'] = client
    clock = clockrecords.section(view.controls)
    if clock is not None:
        doc.setdefault('client', {})['clock'] = clock
    workers = fleet.section(stats_file.header, clock,
                            eventrecords.events(view.controls),
                            scan.workers, scan.worker_errors,
                            doc['run']['start_time'])
    if workers is not None:
        doc['workers'] = workers
    doc['events'] = timeline.section(view.controls, doc)
    return doc


def summary_document(view, scan, pctiles):
    """What the summary line reads of analyze()'s document, from the
    text report's pass (`scan`, finished, over the RecordView `view`):
    ssbench.report.compute.document.summary with the client's health
    and a --rate run's schedule."""
    doc = document.summary(view.header, scan, pctiles)
    client = health_section(view.controls)
    if client is not None:
        doc['client'] = client
    if view.response:
        doc['open_loop'] = {'schedule': openloop.schedule_of(view.controls)}
    return doc


def health_section(controls):
    """The "client" part of the document: per worker, how long it was
    past a health limit (see ssbench.results.healthrecords); None without
    usable records."""
    workers = healthrecords.judge(
        controls_of_kind(controls, healthrecords.HEALTH_RECORD))
    if not workers:
        return None
    return {'limits': {'loop_lag': healthrecords.LOOP_LAG_LIMIT,
                       'cpu': healthrecords.CPU_LIMIT,
                       'share': healthrecords.SHARE_LIMIT},
            'saturated': any(w['saturated'] for w in workers),
            'host_busy': any(w['host_busy'] for w in workers),
            'queue_growing': any(w['queue_growing'] for w in workers),
            'warning': healthrecords.warning(workers),
            'warnings': healthrecords.warnings(workers),
            'workers': workers}


def _document(stats_file, pctiles, skip, path):
    """(The document, the Scan it came from) of `stats_file`."""
    return scanned(
        stats_file, lambda scan: (document.build(
            stats_file.header, scan, pctiles, path, skip), scan), skip,
        count_reads=popularity.skewed(stats_file.header.get(HEADER_KEY)),
        urls=endpoints.urls_of(stats_file.header))

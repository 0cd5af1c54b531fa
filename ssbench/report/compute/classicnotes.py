"""The text report's numbers: ssbench.report.compute.classicstats.compute()
over a RecordView (warm-up and control records left out, response times in an
open-loop run), with the header lines that say how to read them
(RunStats.notes, printed under the "Ran" line).

Without a warm-up, for a closed-loop run over the Swift API, there are no
notes and the report is the one ssbench 0.3.9 prints."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.results import clockrecords, healthrecords
from ssbench.report.compute import classicstats, openloop, protocol
from ssbench.errors import StatsFileError
from ssbench.results.recordview import RecordView, controls_of_kind

log = logging.getLogger(__name__)


def compute(stats_file, pctile=95, skip=0, summary=False, warn=True):
    """RunStats of a stats file (path or open_stats() object), leaving out
    the first `skip` seconds; its `notes` are extra header lines.  With
    `summary`, its `also` is what the summary line reads of the analysis
    document (analyze.summary_document), from the same pass.  `warn`:
    log the client's saturation and clock offsets, as a text report does
    (the line alone says its health itself)."""
    if not hasattr(stats_file, 'iter_batches'):
        from ssbench.results.statsreader import open_stats
        stats_file = open_stats(stats_file)
    view = RecordView(stats_file, skip, response=openloop.open_loop(
        stats_file.header))
    path = '%s' % (getattr(stats_file, 'path', stats_file),)
    try:
        run_stats = classicstats.compute(
            view, pctile=pctile, also=_summary(view) if summary else None)
    except StatsFileError as exc:
        # The scan's word on a bad value (a text completed_at, a list as
        # worker id, a NaN time) does not know the file's name.
        if str(exc).startswith(path):
            raise
        raise StatsFileError('%s: %s' % (path, exc))
    except (TypeError, ValueError, OverflowError, AttributeError) as exc:
        # A hand-made header (a list as the scenario): one line, not
        # "unexpected error".
        raise StatsFileError('%s: not a valid ssbench stats file: a result '
                             'has a bad value (%s)' % (path, exc))
    run_stats.notes = notes(view)
    if warn:
        warn_if_saturated(view.controls)
        warn_of_clock_offsets(view.controls)
    return run_stats


def _summary(view):
    """classicstats.compute()'s `also` for the summary line."""
    # Imported only here: a text report alone does without them.
    from ssbench.report.compute.analyze import summary_document
    from ssbench.report.compute.suitefigures import PERCENTILES
    return lambda scan: summary_document(view, scan, PERCENTILES)


def warn_if_saturated(controls):
    """Log (not print: the report stays as it is) when the workers'
    health records say the client was the bottleneck."""
    line = healthrecords.warning(healthrecords.judge(controls_of_kind(
        controls, healthrecords.HEALTH_RECORD)))
    if line:
        log.warning('%s', line)


def warn_of_clock_offsets(controls):
    """Log (the report stays as it is) when a worker's clock was off
    the master's by more than clockrecords.OFFSET_LIMIT."""
    clock = clockrecords.section(controls)
    if clock is not None and clock['warning']:
        log.warning('%s', clock['warning'])


def notes(view):
    """The extra header lines of a report read through `view`."""
    lines = []
    spoken = protocol.describe(view.header)
    if spoken:
        lines.append(spoken)
    if view.response:
        header = view.header
        lines.append('Open loop at %g jobs/s (%s arrivals): latency is '
                     'response time, from each job\'s intended start' % (
                         header['rate'], header.get('arrival', 'uniform')))
        accounting = openloop.accounting_line(
            openloop.schedule_of(view.controls))
        if accounting:
            lines.append(accounting)
    if view.skip:
        lines.append('Warm-up: the first %g s of the run left out (%d '
                     'results)' % (view.skip, view.skipped))
    return lines

"""The error breakdown as text, for `report-scenario --errors`: failed
requests by operation and cause, the retries by operation and cause
(those that met an expired token said apart), then the run's events
(workers lost, marks, first failures...:
ssbench.report.compute.timeline), printed after the (unchanged) report."""
from __future__ import absolute_import, division, print_function

from ssbench.compat import write_text
from ssbench.report.compute.timeline import describe
from ssbench.report.render.classic import format_time

_ROW = '%%-9s %%-%ds %%7s %%6s  %%-23s  %%-23s  %%s'
_CAUSE_WIDTH = 24
_RETRY_ROW = '%-9s %-24s %7s %6s'


def _clip(text, width):
    text = '%s' % (text,)
    return text if len(text) <= width else text[:width - 3] + '...'


def _cause_cells(cause, total, width):
    """The operation, the cause (clipped to `width`), the count and its
    share of `total`."""
    count = cause.get('count') or 0
    return (cause.get('operation'), _clip(cause.get('cause'), width), count,
            '%.1f%%' % (100.0 * count / total))


def error_lines(doc):
    """The breakdown of an analysis document as a list of lines."""
    errors = doc.get('errors') or {}
    total = errors.get('total') or 0
    lines = ['', 'Errors by cause']
    if not total:
        return lines + ['       No errors.']
    if not errors.get('recorded'):
        lines.append('       (this stats file does not record the HTTP '
                     'status or exception class: causes not recorded)')
    causes = errors.get('causes') or []
    # An S3 code beside its status ("HTTP 403 SignatureDoesNotMatch") is
    # shown whole; a Swift run has none and keeps the columns it had.
    width = max([_CAUSE_WIDTH] + [
        len('%s' % (cause.get('cause'),)) for cause in causes
        if cause.get('status') is not None and cause.get('error_class')])
    row = _ROW % width
    lines.append('       ' + row % ('Operation', 'Cause', 'Count', 'Share',
                                    'First seen', 'Last seen',
                                    'Example TX ID'))
    for cause in causes:
        lines.append('       ' + (row % (_cause_cells(cause, total, width) + (
            format_time(cause.get('first_seen')),
            format_time(cause.get('last_seen')),
            cause.get('example_trans_id') or ''))).rstrip())
    lines.append('       %d failed requests' % (total,))
    return lines


def retry_lines(doc):
    """The retries of an analysis document by operation and cause as a
    list of lines (none when it has no retries)."""
    retries = doc.get('retries') or {}
    total = retries.get('total') or 0
    if not total:
        return []
    lines = ['', 'Retries by cause',
             '       ' + _RETRY_ROW % ('Operation', 'Cause', 'Count',
                                       'Share')]
    for cause in retries.get('causes') or []:
        lines.append('       ' + _RETRY_ROW % _cause_cells(
            cause, total, _CAUSE_WIDTH))
    lines.append('       %d retries' % (total,))
    auth = retries.get('auth')
    if auth:
        lines.append("       %d retries met an expired token (not the "
                     "cluster's errors)" % (auth,))
    return lines


def event_lines(doc):
    """The run's events of an analysis document as a list of lines
    (none when it has none)."""
    events = doc.get('events') or []
    if not events:
        return []
    lines = ['', 'Run events',
             '       %9s  %-23s  %s' % ('Time', 'At', 'Event')]
    for event in events:
        offset = event.get('time')
        lines.append('       %9s  %-23s  %s' % (
            'N/A' if offset is None else '%+.1f s' % offset,
            format_time(event.get('at')), describe(event)))
    return lines


def render_error_table(doc, stream):
    """Write the breakdown, the retries, then the run's events, to a
    text stream."""
    lines = error_lines(doc) + retry_lines(doc) + event_lines(doc)
    write_text(stream, '\n'.join(lines) + '\n')

"""Formatting a RunStats: the text report, --csv and the rps histogram.

Pure formatting: every number comes from ssbench.report.compute.classicstats.
The layouts are byte-identical to ssbench 0.3.9 (see tests/data/golden).
"""
from __future__ import absolute_import, division, print_function

import csv
import decimal
import io
import math
import time

from ssbench.compat import PY2, write_text
from ssbench.errors import printable
from ssbench.measure.finite import is_finite

NA_MIN = ' N/A  '
NA = '  N/A  '

_SIX_PLACES = decimal.Decimal('0.000001')
# Wide enough to quantize any double to six places without an error.
_DECIMAL_CONTEXT = decimal.Context(prec=400)


def round6(value):
    """round(value, 6) with Python 2 semantics, on either Python.

    Python 2.7 rounds the exact binary value, halves away from zero;
    Python 3 rounds halves to even.  Decimal reproduces 2.7 exactly.
    """
    if not isinstance(value, float):
        value = float(value)
    if not is_finite(value):
        return value
    exact = decimal.Decimal(value) if not PY2 else \
        decimal.Decimal.from_float(value)
    return float(exact.quantize(_SIX_PLACES, rounding=decimal.ROUND_HALF_UP,
                                context=_DECIMAL_CONTEXT))


def format_time(epoch):
    """'YYYY-MM-DD HH:MM:SS UTC' (or N/A when there were no results)."""
    if epoch is None:
        return 'N/A'
    return time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(epoch))


def format_bytes(count):
    """'%3.0f' of the size in powers of 1000, then the unit ( B/kB/MB/GB)."""
    units = [' B', 'kB', 'MB', 'GB']
    value = count or 0
    unit = 0
    while value >= 1000 and unit < len(units) - 1:
        value /= 1000
        unit += 1
    return '%3.0f %s' % (value, units[unit])


def _size_range(row):
    if row.size_min == row.size_max:
        return format_bytes(row.size_min).ljust(15)
    return '%s - %s' % (format_bytes(row.size_min), format_bytes(row.size_max))


def _duration_seconds(duration):
    if duration is None:
        return 0
    # Python 2 round(): halves away from zero.
    return int(math.floor(abs(duration) + 0.5)) * (1 if duration >= 0 else -1)


def _series_cells(series):
    """min, max, avg, std_dev, pctile as the text report prints them."""
    if not series.count:
        return NA_MIN, NA, NA, NA, NA
    return ('%6.3f' % series.min, '%7.3f' % series.max, '%7.3f' % series.avg,
            '%7.3f' % series.std_dev, '%7.3f' % series.pctile)


def _worst_text(series):
    # A series whose results all had latency None has no worst at all; one
    # whose largest latency was 0.0 (noop) names that result's trans_id,
    # which may well be None.
    if series.worst_latency is None:
        return ''
    return '%s' % (series.worst_txid,)


def _latency_line(kind, series, where):
    cells = _series_cells(series)
    return '       %s latency: %s - %s  %s  (%s)  %s  (%s)  %s' % (
        kind, cells[0], cells[1], cells[2], cells[3], cells[4], where,
        _worst_text(series))


def _mix_lines(rs):
    """The size table: 0.3.9's CRUD columns, and HEAD and LIST columns
    after them when the scenario weighs either."""
    width = max(4, len(rs.crud_weighted))
    extra = width - 4
    lines = ['% Ops    C   R   U   D' + '   H   L'[:4 * extra] +
             '       Size Range       Size Name']
    for row in rs.size_rows:
        pcts = (list(row.crud_pcts) + [0.0] * width)[:width]
        lines.append('%3.0f%%   %%' % row.share_pct + ''.join(
            ' %2.0f ' % pct for pct in pcts) + '     %s  %s' % (
                _size_range(row), printable(row.name, None)))
    lines.append('-' * (69 + 4 * extra))
    lines.append('       ' + ''.join(' %3.0f' % pct
                                     for pct in rs.crud_weighted) +
                 '      %s weighted average' % ('CRUD' + 'HL'[:extra]))
    return lines


def text_lines(run_stats):
    """The text report as a list of lines (without newlines)."""
    rs = run_stats
    lines = [
        '',
        '%s  (generated with ssbench version %s)' % (
            printable(rs.name, None), rs.version),
        'Worker count: %3d   Concurrency: %3d  Ran %s to %s (%ds)' % (
            rs.worker_count, rs.concurrency, format_time(rs.start_time),
            format_time(rs.stop_time), _duration_seconds(rs.duration)),
    ] + list(getattr(rs, 'notes', ())) + [
        'Object expiration (X-Delete-After): %s (sec)' % (rs.delete_after,),
        '',
    ]
    lines.extend(_mix_lines(rs))
    lines.append('')
    for group in rs.groups:
        lines.append(group.label)
        lines.append(
            '       Count: %5d (%5d error; %5d retries: %5.2f%%)  '
            'Average requests per second: %5.1f' % (
                group.count, group.errors, group.retries, group.retry_rate,
                round6(group.avg_req_per_sec)))
        lines.append('                            min       max      avg  '
                     '    std_dev  %02d%%-ile                   Worst latency '
                     'TX ID' % (rs.pctile,))
        for size_series in group.series:
            if size_series.size_name is None:
                where = 'all obj sizes'
            else:
                where = '%8s objs' % (
                    printable(size_series.size_name, None),)
            lines.append(_latency_line('First-byte', size_series.first,
                                       where))
            lines.append(_latency_line('Last-byte ', size_series.last, where))
        lines.append('')
    jobs = _series_cells(rs.jobs_per_worker)
    lines.append('Distribution of requests per worker-ID: %s - %s (avg: %s; '
                 'stddev: %s)' % (jobs[0], jobs[1], jobs[2], jobs[3]))
    return lines


def render_text(run_stats, stream):
    """Write the text report (as ssbench 0.3.9 prints it) to a stream."""
    write_text(stream, '\n'.join(text_lines(run_stats)) + '\n')


def _csv_series(series):
    if not series.count:
        values = [NA_MIN, NA, NA, NA, NA]
    else:
        values = [round6(series.min), round6(series.max), round6(series.avg),
                  round6(series.std_dev), round6(series.pctile)]
    # The csv module writes None as "", like a series without a worst.
    values.append(series.worst_txid if series.worst_latency is not None
                  else None)
    return values


def csv_rows(run_stats):
    """The --csv header row and data row, as two lists."""
    rs = run_stats
    names = ['scenario_name', 'ssbench_version', 'worker_count',
             'concurrency', 'start_time', 'stop_time', 'duration',
             'delete_after']
    values = [printable(rs.name, None), rs.version, rs.worker_count,
              rs.concurrency,
              format_time(rs.start_time), format_time(rs.stop_time),
              rs.duration, '%s' % (rs.delete_after,)]
    stat_names = ['min', 'max', 'avg', 'std_dev', '%s_pctile' % (rs.pctile,),
                  'worst_txid']
    for group in rs.groups:
        g = group.key
        names.extend(['%s_count' % g, '%s_errors' % g, '%s_retries' % g,
                      '%s_retry_rate' % g, '%s_avg_req_per_s' % g])
        values.extend([group.count, group.errors, group.retries,
                       '%f' % group.retry_rate,
                       round6(group.avg_req_per_sec)])
        for size_series in group.series:
            size = size_series.size_name
            size = 'all' if size is None else size
            for kind, series in (('first', size_series.first),
                                 ('last', size_series.last)):
                names.extend('%s_%s_%s_%s' % (g, kind, size, stat)
                             for stat in stat_names)
                values.extend(_csv_series(series))
    return names, values


# Rows of the -r histogram formatted at once.
RPS_BLOCK = 1 << 16


def _write_csv(rows, stream):
    """Write rows with the original's dialect; native str on each Python."""
    buf = io.BytesIO() if PY2 else io.StringIO()
    writer = csv.writer(buf, quoting=csv.QUOTE_NONNUMERIC, lineterminator='\n')
    for row in rows:
        if PY2:
            row = [v.encode('utf-8') if isinstance(v, unicode) else v  # noqa
                   for v in row]
        writer.writerow(row)
    _write_native(buf.getvalue(), stream)


def _write_native(data, stream):
    """Write a native str (bytes on Python 2) to a text or byte stream."""
    if PY2 and isinstance(stream, io.TextIOBase):
        data = data.decode('utf-8')
    stream.write(data)


def render_csv(run_stats, stream):
    """Write the --csv report: a header row and a data row."""
    _write_csv(csv_rows(run_stats), stream)


def render_rps_histogram(run_stats, stream):
    """Write the -r histogram: requests completed in each second, a block
    of seconds at a time (a run of weeks has millions of rows)."""
    _write_csv([['Seconds Since Start', 'Requests Completed']], stream)
    counts = run_stats.rps_counts
    for start in range(0, len(counts), RPS_BLOCK):
        _write_native(_rps_rows(start + 1, counts[start:start + RPS_BLOCK]),
                      stream)


def _rps_rows(first, counts):
    """The histogram's rows of `counts` (ints) from second `first` on, as
    the csv module's writer makes them (two ints: bare, comma, newline)
    at a fraction of its cost: an idle block, all zeros, is one join over
    its seconds (the widest window a report keeps, results spread over
    centuries, is twenty million such rows)."""
    if not any(counts):
        return ',0\n'.join(map(str, range(first, first + len(counts)))) + \
            ',0\n'
    return ''.join(['%d,%d\n' % row for row in enumerate(counts, first)])

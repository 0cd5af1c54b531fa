"""The HTML report's tables, one per section (run facts, sizes, summary,
percentiles, open loop, client health, errors, retries), and the
escaping and
number formats they share with the page (ssbench.report.render.html).

Every text taken from the document is escaped: a stats file is untrusted
input."""
from __future__ import absolute_import, division, print_function

from ssbench.measure import profile
from ssbench.report.compute.cells import NO_OBJECT_BYTES
from ssbench.measure.rank import percentile_name
from ssbench.compat import text_type
from ssbench.results import workerlist
from ssbench.report.render.classic import format_bytes, format_time

NA = 'N/A'
NOT_RECORDED = 'not recorded'
_HTML_ESCAPES = (('&', '&amp;'), ('<', '&lt;'), ('>', '&gt;'),
                 ('"', '&quot;'), ("'", '&#x27;'))


def esc(value, escapes=_HTML_ESCAPES):
    """HTML-escaped text of value ('' for None), ASCII only (other
    characters as character references)."""
    if value is None:
        return ''
    if isinstance(value, bytes):
        value = value.decode('utf-8', 'replace')
    text = value if isinstance(value, text_type) else text_type(value)
    for char, entity in escapes:
        text = text.replace(char, entity)
    return text.encode('ascii', 'xmlcharrefreplace').decode('ascii')


def chart_esc(value):
    """Text for plotly.js labels: it reads tags in them, and decodes
    numeric references and &amp; &lt; &gt; (not &quot;) back."""
    return esc(value, _HTML_ESCAPES[:3])


def pct_key(percentile):
    """99.9 -> ('99.9', 'p99_9'): the column label and the document key."""
    return percentile_name(percentile)[1:], percentile_name(percentile, '_')


def fmt_int(value):
    return NA if value is None else '{:,}'.format(int(value))


def fmt_float(value, form='%.3f'):
    return NA if value is None else form % value


def _trans_id(trans_id):
    return NA if trans_id is None else '<code>%s</code>' % esc(trans_id)


def table(headers, rows, numeric=()):
    """An HTML table; headers and cells are already-escaped HTML; the
    columns whose index is in `numeric` are right-aligned."""
    return '<table><thead><tr>%s</tr></thead><tbody>%s</tbody></table>' % (
        _cells('th', headers, numeric), ''.join(
            '<tr>%s</tr>' % _cells('td', row, numeric) for row in rows))


def _cells(tag, cells, numeric):
    return ''.join('<%s%s>%s</%s>' % (tag, ' class="num"' if i in numeric
                                      else '', cell, tag)
                   for i, cell in enumerate(cells))


def facts_html(doc):
    """The run's header facts as a two-column table."""
    run = doc.get('run') or {}
    header = doc.get('header') or {}
    length = NA
    if header.get('run_seconds'):
        length = '%s s' % esc(header['run_seconds'])
    elif header.get('operation_count'):
        length = '%s operations' % esc(header['operation_count'])
    records = fmt_int(run.get('records'))
    if run.get('skipped'):
        records += ' (%s skipped)' % fmt_int(run['skipped'])
    expiration = header.get('delete_after')
    rows = [
        ('Scenario', esc(run.get('name'))),
        ('Stats file', '<code>%s</code>' % esc(doc.get('stats_file'))),
        ('Written by', 'ssbench %s' % esc(run.get('version'))),
        ('Workers', fmt_int(run.get('worker_count'))),
        ('Concurrency', fmt_int(run.get('concurrency'))),
        ('Started', esc(format_time(run.get('start_time')))),
        ('Stopped', esc(format_time(run.get('stop_time')))),
        ('Duration', fmt_float(run.get('duration'), '%.0f s')),
        ('Run length', length),
        ('Containers', '%s (%s_*)' % (esc(header.get('container_count')),
                                      esc(header.get('container_base')))),
        ('Object expiration', ('%s s' % esc(expiration)) if expiration
         else 'off'),
        ('Result records', records),
    ]
    return table(['Fact', 'Value'], rows)


def _percentages(weights):
    total = sum(weights)
    return [100.0 * w / total if total else 0.0 for w in weights]


def sizes_html(scenario):
    """The scenario's size classes: range, initial files, share of the
    operations and CRUD mix, with HEAD and LIST when a profile weighs them
    ('' when the scenario has no usable sizes)."""
    sizes = scenario.get('sizes') if isinstance(scenario, dict) else None
    if not isinstance(sizes, list):
        return ''
    initial = scenario.get('initial_files')
    initial = initial if isinstance(initial, dict) else {}
    counts = [initial.get(s.get('name'), 0) if isinstance(s, dict) else 0
              for s in sizes]
    try:
        shares = _percentages([float(c or 0) for c in counts])
    except (TypeError, ValueError):
        return ''
    mixes = [profile.weights(size.get('crud_profile') or
                             scenario.get('crud_profile'))
             for size in sizes if isinstance(size, dict)]
    if None in mixes:
        return ''
    width = len(profile.PROFILE_KEYS) if any(
        any(mix[profile.CRUD_COUNT:]) for mix in mixes) else \
        profile.CRUD_COUNT
    mixes = iter(mixes)
    rows = []
    for size, count, share in zip(sizes, counts, shares):
        if not isinstance(size, dict):
            continue
        try:
            mix = ['%.0f' % p for p in _percentages(
                [float(w) for w in next(mixes)])][:width]
            low, high = int(size['size_min']), int(size['size_max'])
        except (TypeError, ValueError, KeyError):
            return ''
        span = format_bytes(low).strip()
        if high != low:
            span += ' - ' + format_bytes(high).strip()
        rows.append([esc(size.get('name')), esc(span), fmt_int(count),
                     '%.0f%%' % share] + mix)
    return table(['Size', 'Range', 'Initial files', 'Share of ops'] +
                 ['%s %%' % key[0] for key in profile.PROFILE_KEYS[:width]],
                 rows, numeric=range(2, 4 + width))


def _bytes(operation, count):
    if count is not None:
        return esc(format_bytes(count).strip())
    # A DELETE, HEAD or LIST moves no object bytes; others lack sizes in
    # 0.3.x files.
    return NA if operation in NO_OBJECT_BYTES else NOT_RECORDED


def summary_html(operations, bandwidth=None):
    """Per operation: successes, errors, retries, bytes, request rates
    and the bandwidth (see ssbench.report.compute.bandwidth), followed by
    the bandwidth per size class."""
    rows = []
    rates = (bandwidth or {}).get('operations') or {}
    for op in operations:
        reconnects = op.get('reconnects')
        bytes_done = op.get('bytes')
        speed = op.get('throughput') or {}
        rate = rates.get(op.get('operation')) or {}
        rows.append([
            esc(op.get('operation')), fmt_int(op.get('count')),
            fmt_int(op.get('errors')), fmt_int(op.get('retries')),
            NOT_RECORDED if reconnects is None else fmt_int(reconnects),
            _bytes(op.get('operation'), bytes_done),
            fmt_float(op.get('req_per_s'), '%.1f'),
            fmt_float(speed.get('slowest'), '%.0f'),
            fmt_float(speed.get('median'), '%.0f'),
            fmt_float(speed.get('fastest'), '%.0f'),
            fmt_float(rate.get('MB_per_second'), '%.2f'),
            fmt_float(rate.get('MiB_per_second'), '%.2f')])
    html = table(['Operation', 'Successes', 'Errors', 'Retries',
                  'Reconnects', 'Bytes', 'Req/s (average)',
                  'Req/s (slowest second)', 'Req/s (median second)',
                  'Req/s (fastest second)', 'MB/s (10^6 bytes)',
                  'MiB/s (2^20 bytes)'],
                 rows, numeric=range(1, 12))
    return html + bandwidth_html(operations, bandwidth)


def bandwidth_html(operations, bandwidth):
    """The bandwidth of each operation and size class: the bytes of the
    successes over the run's duration (empty without a bandwidth)."""
    rates = (bandwidth or {}).get('operations') or {}
    rows = []
    for op in operations:
        entry = rates.get(op.get('operation'))
        if entry is None:
            continue
        for size, figures in sorted((entry.get('sizes') or {}).items()):
            nbytes = figures.get('bytes')
            rows.append([esc(op.get('operation')), esc(size),
                         NOT_RECORDED if nbytes is None else fmt_int(nbytes),
                         fmt_float(figures.get('bytes_per_second'), '%.0f'),
                         fmt_float(figures.get('MB_per_second'), '%.2f'),
                         fmt_float(figures.get('MiB_per_second'), '%.2f')])
    if not rows:
        return ''
    seconds = bandwidth.get('seconds')
    return ('<p>Bandwidth by size class: the bytes of the successful '
            'operations over the run\'s %s seconds.</p>\n' % (
                fmt_float(seconds),) +
            table(['Operation', 'Size', 'Bytes', 'Bytes/s',
                   'MB/s (10^6 bytes)', 'MiB/s (2^20 bytes)'], rows,
                  numeric=range(2, 6)))


# The rows of the percentile table: (document key, label).  First and last
# byte are successes only, as 0.3.9 reports them; "all requests" adds the
# failures at their time to failure.
LATENCY_KINDS = (('first_byte', 'first byte'), ('last_byte', 'last byte'),
                 ('all_requests', 'all requests'))


def _shown(kind, row):
    """Whether a latency row is worth a line: it has values and, for all
    requests, failures (without them it is the last-byte row again)."""
    if not row.get('count'):
        return False
    return kind != 'all_requests' or bool(
        row.get('failures') or row.get('failures_without_time'))


def percentiles_html(operations, percentiles):
    """The exact latency statistics per operation, kind and size class,
    and a note on the failures the all-requests rows leave out."""
    keys = [pct_key(p) for p in percentiles]
    rows = []
    for op in operations:
        latency = op.get('latency') or {}
        for kind, label in LATENCY_KINDS:
            for row in latency.get(kind) or []:
                if not _shown(kind, row):
                    continue
                size = row.get('size')
                rows.append(
                    [esc(op.get('operation')), label,
                     'all sizes' if size is None else esc(size),
                     fmt_int(row['count']), fmt_float(row.get('min'))] +
                    [fmt_float(row.get(key)) for _, key in keys] +
                    [fmt_float(row.get('max')), fmt_float(row.get('avg')),
                     fmt_float(row.get('std_dev')),
                     _trans_id(row.get('worst_trans_id'))])
    headers = (['Operation', 'Latency', 'Size', 'Count', 'Min'] +
               ['p%s' % label for label, _ in keys] +
               ['Max', 'Average', 'Std dev', 'Worst trans id'])
    return table(headers, rows, numeric=range(3, len(headers) - 1)) + \
        _untimed_note(operations)


def _untimed_note(operations):
    """How many failures the all-requests rows leave out for want of a
    time to failure ('' for none)."""
    untimed = 0
    for op in operations:
        if op.get('operation') != 'total':
            continue
        for row in (op.get('latency') or {}).get('all_requests') or []:
            if row.get('size') is None:
                untimed = row.get('failures_without_time') or 0
    if not untimed:
        return ''
    return ('<p class="note">%s failed requests recorded no time to '
            'failure (ssbench 0.3.x and older runs did not): the all '
            'requests rows leave them out.</p>' % fmt_int(untimed))


def open_loop_html(open_loop, percentiles):
    """The schedule's facts and the service-time percentiles."""
    schedule = open_loop.get('schedule') or {}
    lag = schedule.get('send_lag') or {}
    unsent = schedule.get('unsent_wait') or {}
    facts = [('Rate', '%s jobs/s, %s arrivals' % (
        esc(open_loop.get('rate')), esc(open_loop.get('arrival')))),
        ('Jobs due (intended)', fmt_int(schedule.get('intended'))),
        ('Jobs sent', fmt_int(schedule.get('sent'))),
        ('Jobs due but not sent by the deadline', fmt_int(
            schedule.get('unsent'))),
        ('Intended / achieved rate', ' / '.join(
            fmt_float(schedule.get(key), '%.1f') for key in (
                'intended_rate', 'achieved_rate')) + ' jobs/s'),
        ('Wait of the jobs not sent p50 / p99 / max', ' / '.join(
            fmt_float(unsent.get(key), '%.4f')
            for key in ('p50', 'p99', 'max')) + ' s'),
        ('Jobs that waited for the user count', fmt_int(
            schedule.get('cap_waits'))),
        ('Send lag p50 / p99 / max', ' / '.join(
            fmt_float(lag.get(key), '%.4f') for key in ('p50', 'p99', 'max')
        ) + ' s')]
    service = (open_loop.get('service_time') or {}).get('operations') or []
    return table(['Fact', 'Value'], facts) + percentiles_html(
        service, percentiles)


def client_html(client):
    """The health warnings, if any (a note each), and the per-worker
    table."""
    warnings = client.get('warnings')
    if warnings is None:        # a document of an earlier version
        warnings = [client['warning']] if client.get('warning') else []
    rows = [[esc(w.get('worker_id')), fmt_float(w.get('seconds'), '%.1f'),
             fmt_float(100 * (w.get('share') or 0), '%.1f%%'),
             fmt_float(w.get('loop_lag_max'), '%.4f'),
             fmt_float(100 * (w.get('cpu_max') or 0), '%.0f%%'),
             fmt_int(w.get('waiting_max')), _verdict(w)]
            for w in client.get('workers') or []]
    return ''.join('<p class="note">%s</p>' % esc(line)
                   for line in warnings) + \
        table(['Worker', 'Seconds', 'Past a limit', 'Loop lag max (s)',
               'CPU max', 'Waiting max', 'Verdict'], rows,
              numeric=range(1, 6)) + clock_html(client.get('clock'))


def _verdict(worker):
    """A worker's health in a word or two, the client's own limit
    first."""
    words = [word for key, word in (('saturated', 'saturated'),
                                    ('host_busy', 'host busy'),
                                    ('queue_growing', 'queue growing'))
             if worker.get(key)]
    return ', '.join(words) or 'ok'


def clock_html(clock):
    """Each worker's clock offset to the master's, and the warning."""
    if not clock:
        return ''
    warning = clock.get('warning')
    rows = [[esc(w.get('worker_id')), fmt_float(w.get('offset'), '%+.4f'),
             fmt_float(w.get('rtt'), '%.4f'), fmt_int(w.get('samples')),
             'off' if w.get('over_limit') else 'ok']
            for w in clock.get('workers') or []]
    return ('<h3>Clock offsets</h3><p>Each worker\'s wall clock less the '
            'master\'s, from heartbeat round trips (to within half the '
            'round trip). Latencies do not depend on it; completion times '
            'and per-second figures do.</p>' +
            ('<p class="note">%s</p>' % esc(warning) if warning else '') +
            table(['Worker', 'Offset (s)', 'Round trip (s)', 'Probes',
                   'Verdict'], rows, numeric=range(1, 4)))


def workers_html(workers):
    """The workers that took part: id, host, pid, versions, concurrency
    and clock offset (see ssbench.results.workerlist)."""
    rows = [[esc(w.get('worker_id')), esc(w.get('host')),
             esc(w.get('pid')), esc(w.get('version')),
             fmt_int(w.get('protocol')), fmt_int(w.get('concurrency')),
             fmt_float(w.get('clock_offset'), '%+.4f')]
            for w in workers]
    return ('<p>%d worker(s) on %d host(s).</p>' % (
        len(workers), workerlist.host_count(workers)) +
            table(['Worker', 'Host', 'Pid', 'Version', 'Protocol',
                   'Concurrency', 'Clock offset (s)'], rows,
                  numeric=(2, 4, 5, 6)) + comings_html(workers))


def _times(times):
    if times is None:
        return NOT_RECORDED
    return ', '.join(NA if t is None else '%.1f' % t for t in times)


def _joined(worker):
    if worker.get('at_start'):
        return 'at start'
    if worker.get('joined') is not None:
        return '%.1f' % worker['joined']
    return NOT_RECORDED if worker.get('at_start') is None else NA


def comings_html(workers):
    """When each worker joined, was started again, was lost and came
    back (seconds from the run's start), and its results and errors
    (see ssbench.report.compute.fleet)."""
    rows = [[esc(w.get('worker_id')), _joined(w),
             _times(w.get('rejoined')), _times(w.get('lost')),
             _times(w.get('back')), fmt_int(w.get('results')),
             fmt_int(w.get('errors'))]
            for w in workers]
    return table(['Worker', 'Joined (s)', 'Started again (s)', 'Lost (s)',
                  'Back (s)', 'Results', 'Errors'], rows, numeric=(5, 6))


def errors_html(errors):
    """The error breakdown, 'No errors.' or what the file did not record."""
    errors = errors or {}
    if not errors.get('total'):
        return '<p>No errors.</p>'
    parts = []
    if not errors.get('recorded'):
        parts.append(
            '<p class="note">This stats file does not record the HTTP '
            'status or exception class of failed requests (ssbench 0.3.x '
            'did not), so their causes are %s.</p>' % NOT_RECORDED)
    total = errors['total']
    rows = [_cause_cells(cause, total) + [
        esc(format_time(cause.get('first_seen'))),
        esc(format_time(cause.get('last_seen'))),
        _trans_id(cause.get('example_trans_id')),
        esc(cause.get('example_message'))]
        for cause in errors.get('causes') or []]
    parts.append('<p>%s failed requests.</p>' % fmt_int(total))
    parts.append(table(['Operation', 'Cause', 'Count', 'Share',
                        'First seen', 'Last seen', 'Example trans id',
                        'Example message'], rows, numeric=(2, 3)))
    return ''.join(parts)


def _cause_cells(cause, total):
    """The operation, the cause, the count and its share of `total`."""
    count = cause.get('count') or 0
    return [esc(cause.get('operation')), esc(cause.get('cause')),
            fmt_int(count), '%.1f%%' % (100.0 * count / total)]


def retries_html(retries):
    """The retries by operation and cause, those that met an expired
    token (see ssbench.report.compute.retrycauses) said apart."""
    total = retries.get('total') or 0
    rows = [_cause_cells(cause, total)
            for cause in retries.get('causes') or []]
    parts = ['<p>%s retries.</p>' % fmt_int(total)]
    auth = retries.get('auth')
    if auth:
        parts.append('<p>%s retries met an expired token (not the '
                     'cluster\'s errors): Swift answered 401, the master '
                     'renewed the token and the requests went again with '
                     'the new one.</p>' % fmt_int(auth))
    parts.append(table(['Operation', 'Cause', 'Count', 'Share'], rows,
                       numeric=(2, 3)))
    return ''.join(parts)


def popularity_html(popularity):
    """The share of the successful READs the hottest objects took (see
    ssbench.report.compute.popularity)."""
    rows = [['Hottest %g%%' % (100 * hot.get('fraction', 0)),
             fmt_int(hot.get('objects')),
             NA if hot.get('share') is None else
             '%.1f%%' % (100 * hot['share'])]
            for hot in popularity.get('hottest') or []]
    return ('<p>%s successful reads of %s of the run\'s %s objects.</p>' % (
        fmt_int(popularity.get('reads')),
        fmt_int(popularity.get('objects_read')),
        fmt_int(popularity.get('objects'))) +
            table(['Objects', 'Count', 'Share of the reads'], rows,
                  numeric=(1, 2)))

"""Plotly figure specs (plain dicts) for the HTML report of an analysis
document: throughput and latency over time, latency distributions.
Latencies are drawn in milliseconds on log axes ticked at 1-2-5.

Pure functions of the document; every text taken from it goes through
the caller's `esc` (plotly.js shows HTML entities as the characters)."""
from __future__ import absolute_import, division, print_function

import itertools
import math
import time

from ssbench.report.compute.metricnames import OPERATIONS as CRUD_ORDER

OP_COLORS = {'total': '#333333', 'create': '#1f77b4', 'read': '#2ca02c',
             'update': '#ff7f0e', 'delete': '#9467bd', 'head': '#8c564b',
             'list': '#e377c2'}
SIZE_COLORS = ('#1f77b4', '#ff7f0e', '#2ca02c', '#d62728', '#9467bd',
               '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf')
LATENCY_TRACES = (('last_byte_p50', 'last byte p50', 'solid', '#1f77b4'),
                  ('last_byte_p99', 'last byte p99', 'solid', '#d62728'),
                  ('first_byte_p50', 'first byte p50', 'dot', '#17becf'),
                  ('first_byte_p99', 'first byte p99', 'dot', '#ff7f0e'))
# The line color of each kind of run event (ssbench.report.compute.
# timeline); others are gray.
EVENT_COLORS = {'mark': '#d62728', 'worker_lost': '#8c564b',
                'first_failure': '#9467bd', 'saturation_began': '#ff7f0e',
                'saturation_ended': '#ff7f0e', 'token_renewed': '#2ca02c'}
# Events labelled on a chart at most (all get their line; marks first).
EVENT_LABELS = 40
# Below this many points a line also gets markers, so that a short run
# (even a single bucket) still draws something.
MARKERS_UP_TO = 100
# A log axis with more ticks than this labels only its powers of ten:
# 1-2-5 labels over many decades would run into each other.
LABELLED_TICKS = 10
LATENCY_TITLE = 'Latency (ms, log scale)'


def utc_stamp(epoch):
    """A plotly date string (UTC, milliseconds)."""
    whole = int(epoch // 1)
    millis = int(round((epoch - whole) * 1000))
    if millis == 1000:
        whole, millis = whole + 1, 0
    return '%s.%03d' % (time.strftime('%Y-%m-%d %H:%M:%S',
                                      time.gmtime(whole)), millis)


def milliseconds(values):
    """Seconds (None kept) as milliseconds, for a latency axis."""
    return [None if v is None else v * 1e3 for v in values]


def _layout(title, x_title, y_title):
    """A time (x) by linear value (y) chart."""
    return {
        'title': {'text': title, 'x': 0.01, 'xanchor': 'left',
                  'y': 0.98, 'yanchor': 'top', 'font': {'size': 15}},
        'xaxis': {'title': {'text': x_title}, 'type': 'date',
                  'automargin': True},
        'yaxis': {'title': {'text': y_title}, 'type': 'linear',
                  'automargin': True, 'rangemode': 'tozero'},
        'height': 380, 'autosize': True,
        'margin': {'l': 60, 'r': 20, 't': 50, 'b': 50},
        'legend': {'font': {'size': 11}},
        'hovermode': 'closest',
    }


def _mode(points):
    return 'lines+markers' if points <= MARKERS_UP_TO else 'lines'


def _series_ops(timeseries):
    ops = timeseries.get('operations') or {}
    known = [op for op in CRUD_ORDER if op in ops]
    return known + sorted(op for op in ops if op not in CRUD_ORDER)


def _bucket_times(timeseries):
    """Midpoints of the buckets as UTC date strings."""
    width = timeseries['bucket_seconds']
    start = timeseries['start']
    return [utc_stamp(start + (i + 0.5) * width)
            for i in range(timeseries['count'])]


def throughput_figure(timeseries, esc):
    """Requests completed per second, per operation, over the run (None
    when there is no bucket)."""
    if not timeseries or not timeseries.get('count'):
        return None
    width = timeseries['bucket_seconds']
    times = _bucket_times(timeseries)
    traces = []
    for op in _series_ops(timeseries):
        series = timeseries['operations'][op]
        traces.append({
            'type': 'scatter', 'mode': _mode(len(times)), 'name': esc(op),
            'x': times, 'y': [n / width for n in series['requests']],
            'line': {'color': OP_COLORS.get(op, '#7f7f7f'),
                     'width': 2.5 if op == 'total' else 1.5},
            'marker': {'size': 4}})
    total = timeseries['operations'].get('total')
    if total and any(total.get('errors') or ()):
        traces.append({
            'type': 'scatter', 'mode': _mode(len(times)),
            'name': 'errors (all operations)',
            'x': times, 'y': [n / width for n in total['errors']],
            'line': {'color': '#d62728', 'width': 1.5, 'dash': 'dot'},
            'marker': {'size': 4}})
    title = ('Throughput: requests completed per second '
             '(%d s buckets)' % width)
    layout = _layout(title, 'Time (UTC)', 'Requests per second')
    # Room under the title for the switch, left of the plot: plotly's
    # mode bar takes the top right corner.
    layout['margin']['t'] = 80
    layout['updatemenus'] = [_throughput_switch(timeseries, traces, title)]
    return {'data': traces, 'layout': layout}


def _throughput_switch(timeseries, traces, title):
    """Buttons that show the throughput chart in requests per second or
    in MB/s: the bytes of the successes completed in each bucket, per
    second (the errors' curve hides in MB/s)."""
    width = timeseries['bucket_seconds']
    ops = _series_ops(timeseries)
    by_bytes = [[n / width / 1e6 for n in
                 timeseries['operations'][op].get('bytes') or ()]
                for op in ops]
    errors = len(traces) - len(ops)
    return {
        'type': 'buttons', 'direction': 'right', 'showactive': True,
        'x': 0, 'xanchor': 'left', 'y': 1.02, 'yanchor': 'bottom',
        'pad': {'t': 0, 'b': 0, 'l': 0, 'r': 0},
        'buttons': [
            {'label': 'Requests/s', 'method': 'update', 'args': [
                {'y': [trace['y'] for trace in traces],
                 'visible': [True] * len(traces)},
                {'title.text': title,
                 'yaxis.title.text': 'Requests per second'}]},
            {'label': 'MB/s', 'method': 'update', 'args': [
                {'y': by_bytes + [[]] * errors,
                 'visible': [True] * len(ops) + [False] * errors},
                {'title.text': 'Throughput: MB per second (10^6 bytes, '
                 '%d s buckets)' % width,
                 'yaxis.title.text': 'MB per second (10^6 bytes)'}]}]}


def latency_time_figures(timeseries, esc):
    """[(operation, figure)]: p50 and p99 first- and last-byte latency per
    bucket, one figure per operation (TOTAL left out: it mixes them).
    Lines go across buckets without a request of their kind."""
    if not timeseries or not timeseries.get('count'):
        return []
    width = timeseries['bucket_seconds']
    times = _bucket_times(timeseries)
    error = timeseries.get('percentile_relative_error')
    note = '' if error is None else ' (percentiles within %.1f%%)' % (
        100 * error)
    figures = []
    for op in _series_ops(timeseries):
        if op == 'total':
            continue
        series = timeseries['operations'][op]
        traces, seen = [], []
        for key, name, dash, color in LATENCY_TRACES:
            values = series.get(key) or []
            positive = [v for v in values if v is not None and v > 0]
            if not positive:
                continue
            seen.extend((min(positive) * 1e3, max(positive) * 1e3))
            traces.append({
                'type': 'scatter', 'mode': _mode(len(times)), 'name': name,
                'x': times, 'y': milliseconds(values), 'connectgaps': True,
                'line': {'color': color, 'width': 1.5, 'dash': dash},
                'marker': {'size': 4}})
        if not traces:
            continue
        title = '%s latency per %d s bucket%s' % (esc(op.upper()), width,
                                                  note)
        layout = _layout(title, 'Time (UTC)', LATENCY_TITLE)
        log_axis(layout['yaxis'], seen)
        figures.append((op, {'data': traces, 'layout': layout}))
    return figures


def log_ticks(low, high):
    """(values, labels) of the 1-2-5 sequence from the last value at or
    below low to the first at or above high, at least two (0 < low <=
    high): round labels instead of plotly's bare log-axis digits; past
    LABELLED_TICKS only the powers of ten are labelled ('' the others)."""
    exponent = int(math.floor(math.log10(low)))
    values = []
    while len(values) < 2 or values[-1] < high * 0.9999:
        for step in (1, 2, 5):
            value = float('%.12g' % (step * 10.0 ** exponent))
            if value <= low * 1.0001:
                values = [value]
            elif len(values) < 2 or values[-1] < high * 0.9999:
                values.append(value)
        exponent += 1
    labels = ['%d' % v if v >= 1 else '%g' % v for v in values]
    if len(values) > LABELLED_TICKS:
        labels = [label if label.lstrip('0.').startswith('1') else ''
                  for label in labels]
    return values, labels


def log_axis(axis, values):
    """Make `axis` logarithmic over the (positive) values, with round
    tick labels at its ends, and a little room beyond them for a marker
    on an end tick."""
    ticks, labels = log_ticks(min(values), max(values))
    low, high = math.log10(ticks[0]), math.log10(ticks[-1])
    room = (high - low) * 0.03
    axis.update(type='log', tickvals=ticks, ticktext=labels,
                range=[low - room, high + room])
    axis.pop('rangemode', None)


def cdf_points(histogram):
    """(x, y): the upper edge of each bucket and the percentage of
    requests at or below it, starting at (first lower edge, 0)."""
    total = sum(row[2] for row in histogram)
    if not total:
        return [], []
    xs, ys = [histogram[0][0]], [0.0]
    seen = 0
    for _lo, hi, count in histogram:
        seen += count
        xs.append(hi)
        ys.append(100.0 * seen / total)
    return xs, ys


def _cdf_trace(row, name, color, first_byte):
    xs, ys = cdf_points(row.get('histogram') or [])
    if not xs:
        return None
    xs = milliseconds(xs)
    everything = row.get('size') is None
    trace = {
        'type': 'scatter', 'mode': _mode(len(xs)),
        'name': name + (' (first byte)' if first_byte else ''),
        'x': xs, 'y': ys,
        'line': {'color': color, 'width': 2.5 if everything else 1.5,
                 'dash': 'dot' if first_byte else 'solid'},
        'marker': {'size': 4},
        'hovertemplate': '%{y:.1f}% within %{x:.3g} ms'}
    if first_byte and not everything:
        # Only the all-sizes first-byte curve shows at first; the
        # legend brings back the others.
        trace['visible'] = 'legendonly'
    return trace


def _all_requests_trace(latency):
    """The dashed curve of all requests of all sizes (failures at their
    time to failure), or None when none failed with a time."""
    for row in latency.get('all_requests') or []:
        if row.get('size') is None and row.get('failures'):
            trace = _cdf_trace(row, 'all sizes, all requests', '#d62728',
                               False)
            if trace:
                trace['line']['dash'] = 'dash'
            return trace
    return None


def distribution_figures(operations, esc):
    """[(operation, figure)]: cumulative distribution of the latency of
    each operation, one curve per size class (from the log histograms)."""
    figures = []
    for entry in operations:
        op = entry.get('operation')
        if op == 'total':
            continue
        latency = entry.get('latency') or {}
        traces = []
        for kind in ('last_byte', 'first_byte'):
            colors = itertools.cycle(SIZE_COLORS)
            for row in latency.get(kind) or []:
                if row.get('size') is None:
                    name, color = 'all sizes', '#333333'
                else:
                    name, color = esc(row['size']), next(colors)
                trace = _cdf_trace(row, name, color, kind == 'first_byte')
                if trace:
                    traces.append(trace)
        trace = _all_requests_trace(latency)
        if trace:
            traces.append(trace)
        if not traces:
            continue
        title = '%s latency distribution by object size' % esc(
            op.upper())
        layout = _layout(title, LATENCY_TITLE, 'Requests done within (%)')
        layout['yaxis']['range'] = [0, 101]
        log_axis(layout['xaxis'], [x for t in traces for x in t['x']])
        figures.append((op, {'data': traces, 'layout': layout}))
    return figures


def add_events(figure, events, describe, esc):
    """Draw each run event (the document's "events") on a time `figure`
    as a dashed vertical line with its label (describe(event)) at the
    top; operators' marks get their labels first."""
    if not figure or not events:
        return figure
    layout = figure['layout']
    shapes = layout.setdefault('shapes', [])
    notes = layout.setdefault('annotations', [])
    ranked = sorted(events, key=lambda e: e.get('kind') != 'mark')
    labelled = set(id(e) for e in ranked[:EVENT_LABELS])
    for event in events:
        stamp = utc_stamp(event['at'])
        color = EVENT_COLORS.get(event.get('kind'), '#7f7f7f')
        shapes.append({'type': 'line', 'xref': 'x', 'yref': 'paper',
                       'x0': stamp, 'x1': stamp, 'y0': 0, 'y1': 1,
                       'line': {'color': color, 'width': 1,
                                'dash': 'dash'}})
        if id(event) in labelled:
            notes.append({'x': stamp, 'xref': 'x', 'y': 1, 'yref': 'paper',
                          'text': esc(describe(event)), 'textangle': -90,
                          'xanchor': 'right', 'yanchor': 'top',
                          'showarrow': False,
                          'font': {'size': 10, 'color': color}})
    return figure

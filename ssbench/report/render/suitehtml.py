"""A suite as one page: the headline of its best step, what ran (the
scenario, the settings, the date, the --slo objectives), its curves and
a table of its steps, each step's own page one click away.

The curves: achieved against offered load, latency percentiles against
achieved throughput (where latency turns up is the knee; in an open loop
against the offered rate), and errors against load; the objectives are
drawn on them as horizontal lines.  The steps of an open loop (a sweep
of rates, a capacity search) are joined in the order of their rates,
each point labelled with its step's number (the run order).  Drawn
from the suite document (ssbench.report.compute.suitefigures) with
plotly.js inlined or shared, as the single-run page
(ssbench.report.render.html) is; needs ssbench[html].
"""
from __future__ import absolute_import, division, print_function

import math
import os
import time

from ssbench.measure.rank import percentile_name
from ssbench.report.compute.suitefigures import KEYS, PERCENTILES, best_step
from ssbench.report.render.headline import headline_html
from ssbench.report.render.html import chart_divs, write_page
from ssbench.report.render.htmlcharts import log_axis, milliseconds
from ssbench.report.render.htmltables import chart_esc, esc, table
from ssbench.report.render.suitetable import table_rows

_COLORS = ('#1f77b4', '#d62728', '#9467bd')
_OBJECTIVE_COLOR = '#2ca02c'


def _reported(doc):
    """The steps that have figures of all requests, in the order of their
    offered rates when every one has a rate (else in run order)."""
    steps = [step for step in doc['steps']
             if step.get('figures') and
             'total' in step['figures']['operations']]
    if steps and all(step['figures'].get('offered') for step in steps):
        steps.sort(key=lambda step: step['figures']['offered'])
    return steps


def _load_axis(steps):
    """(x values, axis title, axis type): the offered rate when every
    step had one (open loop), else the steps' labels in order."""
    offered = [step['figures'].get('offered') for step in steps]
    if steps and all(offered):
        return offered, 'Offered load (jobs/s)', 'linear'
    return ([chart_esc('%d %s' % (step['step'], step.get('label') or ''))
             for step in steps], 'Step', 'category')


def _layout(title, x_title, x_type, y_title, y_type='linear'):
    y_axis = {'title': {'text': y_title}, 'type': y_type,
              'automargin': True}
    if y_type == 'linear':
        y_axis['rangemode'] = 'tozero'
    return {
        'title': {'text': title, 'x': 0.01, 'xanchor': 'left',
                  'font': {'size': 15}},
        'xaxis': {'title': {'text': x_title}, 'type': x_type,
                  'automargin': True},
        'yaxis': y_axis,
        'height': 380, 'autosize': True,
        'margin': {'l': 60, 'r': 20, 't': 50, 'b': 60},
        'hovermode': 'closest'}


def _total(step):
    return step['figures']['operations']['total']


def _points(name, x, y, steps, **extra):
    """A trace whose points are labelled with their steps' numbers (the
    run order), the step's values on hover."""
    trace = {'type': 'scatter', 'mode': 'lines+markers+text', 'name': name,
             'x': x, 'y': y, 'textposition': 'top center',
             'text': ['%d' % step['step'] for step in steps],
             'hovertext': [chart_esc('step %d: %s' % (
                 step['step'], step.get('label') or '-')) for step in steps]}
    trace.update(extra)
    return trace


def _drawn(objectives):
    """{chart id: [(objective, limit in the chart's unit)]}: each --slo
    objective on all requests on the chart of its figure (latency of
    the last byte in ms, errors in percent, rps)."""
    charts = {}
    for objective in objectives or ():
        name = objective.name
        if name.operation != 'total':
            continue
        if name.metric == 'rps':
            chart, limit = 'chart-throughput', objective.limit
        elif name.metric == 'errors':
            chart, limit = 'chart-errors', objective.limit
        elif name.kind == 'last_byte':
            chart, limit = 'chart-knee', objective.limit * 1e3
        else:
            continue
        charts.setdefault(chart, []).append((objective, limit))
    return charts


def _objective_lines(layout, lines):
    """Draw each (objective, limit) as a dashed horizontal line with its
    text at the right end (placed, on a log axis, by the limit's
    logarithm, as plotly places annotations there)."""
    log = layout['yaxis']['type'] == 'log'
    for objective, limit in lines:
        layout.setdefault('shapes', []).append({
            'type': 'line', 'xref': 'paper', 'x0': 0, 'x1': 1, 'yref': 'y',
            'y0': limit, 'y1': limit,
            'line': {'color': _OBJECTIVE_COLOR, 'width': 1.5,
                     'dash': 'dash'}})
        layout.setdefault('annotations', []).append({
            'xref': 'paper', 'x': 1, 'xanchor': 'right', 'yref': 'y',
            'y': math.log10(limit) if log else limit, 'yanchor': 'bottom',
            'showarrow': False,
            'text': chart_esc('objective %s' % (objective.text,)),
            'font': {'size': 11, 'color': _OBJECTIVE_COLOR}})


def chart_specs(doc, objectives=None):
    """[(div id, figure)] of the suite's three curves ([] without a
    reported step), with the --slo `objectives` (slo.Objective) each on
    the chart of its figure."""
    steps = _reported(doc)
    if not steps:
        return []
    x, x_title, x_type = _load_axis(steps)
    achieved = [_total(step)['req_per_s'] for step in steps]
    throughput = [_points('achieved', x, achieved, steps)]
    if x_type == 'linear':
        throughput.append({'type': 'scatter', 'mode': 'lines',
                           'name': 'offered', 'x': x, 'y': x,
                           'line': {'dash': 'dot', 'color': '#999'}})
    # Closed loop: latency against the throughput achieved, where the
    # knee shows.  Open loop: against the rate offered, as the other
    # curves; the achieved rates of the steps past the capacity bunch up.
    knee_x = x if x_type == 'linear' else achieved
    latency = []
    for index, key in enumerate(KEYS):
        trace = _points(percentile_name(PERCENTILES[index]), knee_x,
                        milliseconds([_total(step)['latency'].get(key)
                                      for step in steps]), steps,
                        line={'color': _COLORS[index]})
        if index != 1:
            # One curve's points labelled (p99's): three labels a step
            # cover each other.
            trace['mode'] = 'lines+markers'
        latency.append(trace)
    errors = [_points('errors', x,
                      [_total(step)['error_share'] for step in steps],
                      steps, line={'color': '#d62728'})]
    charts = [
        ('chart-throughput', {'data': throughput, 'layout': _layout(
            'Achieved throughput against load', x_title, x_type,
            'Requests per second')}),
        ('chart-knee', {'data': latency, 'layout': _layout(
            'Latency against load' if x_type == 'linear' else
            'Latency against achieved throughput', x_title
            if x_type == 'linear' else 'Requests per second', 'linear',
            'Last-byte latency (ms, log scale)', 'log')}),
        ('chart-errors', {'data': errors, 'layout': _layout(
            'Errors against load', x_title, x_type,
            'Failed requests (% of all)')})]
    drawn = _drawn(objectives)
    for div_id, figure in charts:
        _objective_lines(figure['layout'], drawn.get(div_id, ()))
    knee = charts[1][1]
    seen = [v for trace in knee['data'] for v in trace['y']
            if v is not None and v > 0]
    seen += [limit for _, limit in drawn.get('chart-knee', ())]
    if seen:
        log_axis(knee['layout']['yaxis'], seen)
    return charts


def _details(step, page_dir):
    links = []
    for key, what in (('html', 'report'), ('stats_file', 'stats file')):
        path = step.get(key)
        if path:
            links.append('<a href="%s">%s</a>' % (
                esc(_href(path, page_dir)), what))
    return ' '.join(links)


def _href(path, page_dir=None):
    """A link to a step's file: relative to the page's folder `page_dir`,
    else its name (the page beside it in the suite's folder)."""
    if page_dir is None:
        return path.replace('\\', '/').rsplit('/', 1)[-1]
    return os.path.relpath(os.path.abspath(path), page_dir).replace(
        os.sep, '/')


def steps_html(doc, page_dir=None):
    """The table of the steps, with each step's own page and stats file
    one click away (links relative to `page_dir`, the page's folder)."""
    by_number = dict((step['step'], step) for step in doc['steps'])
    rows = []
    number = None
    for row in table_rows(doc):
        if row[0]:
            number = int(row[0])
        cells = [esc(cell) for cell in row]
        cells.append(_details(by_number[number], page_dir) if row[0]
                     else '')
        rows.append(cells)
    return table(['Step', 'Values', 'Offered', 'Achieved (req/s)', 'p50',
                  'p99', 'p99.9', 'Errors', 'MB/s', 'Client', 'Details'],
                 rows, numeric=range(2, 9))


def _date(steps):
    starts = [step['figures'].get('start_time') for step in steps
              if step['figures'].get('start_time') is not None]
    if not starts:
        return None
    return time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(min(starts)))


def _settings(doc):
    """The options every step ran with, as name=value ('' without)."""
    options = doc.get('options') or {}
    return ', '.join('%s=%s' % (name, options[name])
                     for name in sorted(options)
                     if options[name] not in (None, False))


def about_html(doc, objectives=None):
    """What ran: the scenario, the settings, the date and the --slo
    objectives, as a list of facts."""
    scenarios = []
    for step in doc['steps']:
        if step.get('scenario') not in scenarios:
            scenarios.append(step.get('scenario'))
    facts = [('Scenario', ', '.join(esc(name) for name in scenarios
                                    if name) or '-'),
             ('Settings', esc(_settings(doc)) or 'as in the scenario; '
              'each step\'s values in the table'),
             ('Date', esc(_date(_reported(doc))) or '-')]
    if objectives:
        facts.append(('Objective', esc(', '.join(
            objective.text for objective in objectives))))
    return '<ul class="about">%s</ul>\n' % ''.join(
        '<li><b>%s:</b> <span id="about-%s">%s</span></li>' % (
            what, what.lower(), text) for what, text in facts)


def render_suite_html(doc, stream, objectives=None, js_src=None,
                      page_dir=None):
    """Write the suite's page to a text stream, the --slo `objectives`
    (slo.Objective) shown and drawn, plotly.js inlined or read from
    `js_src` (a relative URL), the steps' files linked relative to
    `page_dir` (the page's folder; None: beside them).  MissingExtraError
    without plotly."""
    divs, figures = chart_divs(chart_specs(doc, objectives))
    body = ['<header><h1>%s</h1><p class="sub">ssbench suite: %d steps'
            '</p></header>\n' % (esc(doc['name']), len(doc['steps']))]
    best, why = best_step(doc)
    if best is not None:
        body.append(headline_html(best['figures'], 'Step %d (%s): %s' % (
            best['step'], best.get('label') or '-', why)))
    body.append(about_html(doc, objectives))
    if figures:
        body.append('<section id="curves"><h2>Curves</h2><p class="intro">'
                    'Each point is a step.  Where latency turns up while '
                    'throughput stops growing is the knee: the load the '
                    'cluster takes before it queues.</p><div class="charts '
                    'grid">%s</div></section>\n' % divs)
    body.append('<section id="steps"><h2>Steps</h2>%s</section>\n'
                % steps_html(doc, page_dir))
    search = doc.get('search')
    if search is not None:
        body.append('<section id="search"><h2>Capacity search</h2><p>%s'
                    '</p></section>\n' % esc(search.get('summary')))
    write_page(stream, esc(doc['name']), ''.join(body), figures, js_src)

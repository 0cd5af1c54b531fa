"""A suite as one self-contained page: its curves and a table of its
steps, each step's own page one click away.

The curves: achieved against offered load, latency percentiles against
achieved throughput (where latency turns up is the knee), and errors
against load.  Drawn from the suite document
(ssbench.report.compute.suitefigures) with plotly.js inlined, as the
single-run page (ssbench.report.render.html) is; needs ssbench[html].
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import text_type, write_text
from ssbench.measure.rank import percentile_name
from ssbench.report.compute.suitefigures import KEYS, PERCENTILES
from ssbench.report.render.html import (DRAW_JS, PAGE, STYLE, plotly_js,
                                        script_json)
from ssbench.report.render.htmltables import chart_esc, esc, table
from ssbench.report.render.suitetable import table_rows

_COLORS = ('#1f77b4', '#d62728', '#9467bd')


def _reported(doc):
    """The steps that have figures of all requests."""
    return [step for step in doc['steps']
            if step.get('figures') and
            'total' in step['figures']['operations']]


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


def chart_specs(doc):
    """[(div id, figure)] of the suite's three curves ([] without a
    reported step)."""
    steps = _reported(doc)
    if not steps:
        return []
    x, x_title, x_type = _load_axis(steps)
    labels = [chart_esc('step %d: %s' % (s['step'], s.get('label') or '-'))
              for s in steps]
    achieved = [_total(step)['req_per_s'] for step in steps]
    throughput = [{'type': 'scatter', 'mode': 'lines+markers',
                   'name': 'achieved', 'x': x, 'y': achieved,
                   'text': labels}]
    if x_type == 'linear':
        throughput.append({'type': 'scatter', 'mode': 'lines',
                           'name': 'offered', 'x': x, 'y': x,
                           'line': {'dash': 'dot', 'color': '#999'}})
    latency = []
    for index, key in enumerate(KEYS):
        latency.append({
            'type': 'scatter', 'mode': 'lines+markers',
            'name': percentile_name(PERCENTILES[index]), 'x': achieved,
            'y': [_total(step)['latency'].get(key) for step in steps],
            'text': labels, 'line': {'color': _COLORS[index]}})
    errors = [{'type': 'scatter', 'mode': 'lines+markers',
               'name': 'errors', 'x': x, 'text': labels,
               'y': [_total(step)['error_share'] for step in steps],
               'line': {'color': '#d62728'}}]
    return [
        ('chart-throughput', {'data': throughput, 'layout': _layout(
            'Achieved throughput against load', x_title, x_type,
            'Requests per second')}),
        ('chart-knee', {'data': latency, 'layout': _layout(
            'Latency against achieved throughput', 'Requests per second',
            'linear', 'Last-byte latency (s)', 'log')}),
        ('chart-errors', {'data': errors, 'layout': _layout(
            'Errors against load', x_title, x_type,
            'Failed requests (% of all)')})]


def _details(step):
    links = []
    for key, what in (('html', 'report'), ('stats_file', 'stats file')):
        path = step.get(key)
        if path:
            links.append('<a href="%s">%s</a>' % (esc(_href(path)), what))
    return ' '.join(links)


def _href(path):
    """A link to a file beside the page: its name, which the suite's
    files share a folder with."""
    return path.replace('\\', '/').rsplit('/', 1)[-1]


def steps_html(doc):
    """The table of the steps, with each step's own page and stats file
    one click away."""
    by_number = dict((step['step'], step) for step in doc['steps'])
    rows = []
    number = None
    for row in table_rows(doc):
        if row[0]:
            number = int(row[0])
        cells = [esc(cell) for cell in row]
        cells.append(_details(by_number[number]) if row[0] else '')
        rows.append(cells)
    return table(['Step', 'Values', 'Offered', 'Achieved (req/s)', 'p50',
                  'p99', 'p99.9', 'Errors', 'MB/s', 'Client', 'Details'],
                 rows, numeric=range(2, 9))


def render_suite_html(doc, stream):
    """Write the suite's page to a text stream.  MissingExtraError
    without plotly."""
    js_source, js_version = plotly_js()
    charts = chart_specs(doc)
    divs = ''.join('<div class="chart" id="%s"></div>' % div_id
                   for div_id, _ in charts)
    body = ['<header><h1>%s</h1><p class="sub">ssbench suite: %d steps'
            '</p></header>\n' % (esc(doc['name']), len(doc['steps']))]
    if charts:
        body.append('<section id="curves"><h2>Curves</h2><p class="intro">'
                    'Each point is a step.  Where latency turns up while '
                    'throughput stops growing is the knee: the load the '
                    'cluster takes before it queues.</p><div class="charts '
                    'grid">%s</div></section>\n' % divs)
    body.append('<section id="steps"><h2>Steps</h2>%s</section>\n'
                % steps_html(doc))
    search = doc.get('search')
    if search is not None:
        body.append('<section id="search"><h2>Capacity search</h2><p>%s'
                    '</p></section>\n' % esc(search.get('summary')))
    body.append('<footer>Charts drawn by plotly.js %s, included in this '
                'file.</footer>\n' % esc(js_version))
    scripts = ''
    if charts:
        figures = [{'id': div_id, 'data': fig['data'],
                    'layout': fig['layout']} for div_id, fig in charts]
        scripts = '<script>%s</script>\n<script>%s</script>\n' % (
            js_source, DRAW_JS % script_json(figures))
    write_text(stream, text_type(PAGE) % {
        'title': esc(doc['name']), 'style': STYLE, 'scripts': scripts,
        'body': ''.join(body)})

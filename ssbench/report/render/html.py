"""The HTML report: one page from an analysis document (see
ssbench.report.analyze), self-contained (plotly.js inlined, nothing
fetched) or, among pages of one folder, reading plotly.js from the one
copy beside them (write_shared_js(), PLOTLY_FILE).

The page is assembled here from its sections: the tables
(ssbench.report.render.htmltables) and the charts (htmlcharts).  Every text
taken from the document is escaped: a stats file is untrusted input.
Needs the optional extra ssbench[html] (plotly)."""
from __future__ import absolute_import, division, print_function

import json

from ssbench.report.compute import timeline
from ssbench.report.compute.suitefigures import step_figures
from ssbench.report.render import htmlcharts
from ssbench.report.render.headline import headline_html
from ssbench.report.render.endpointtable import endpoints_html
from ssbench.report.render.htmltables import (chart_esc, client_html,
                                              errors_html, esc, facts_html,
                                              open_loop_html, percentiles_html,
                                              popularity_html, retries_html,
                                              sizes_html, summary_html,
                                              workers_html)
from ssbench.compat import text_type, write_text
from ssbench.errors import UsageError

EXTRA_HINT = ("--html needs the optional extra: pip install 'ssbench[html]' "
              "(plotly)")
# The shared copy of plotly.js, beside the pages that read it.
PLOTLY_FILE = 'plotly.min.js'
# Inside <script>, JSON must not be able to close the element.
_SCRIPT_ESCAPES = (('<', '\\u003c'), ('>', '\\u003e'), ('&', '\\u0026'))


class MissingExtraError(UsageError):
    """The optional plotting library (ssbench[html]) is not installed."""


def plotly_js():
    """(plotly.js source, its version), or MissingExtraError."""
    try:
        from plotly.offline import get_plotlyjs, get_plotlyjs_version
    except ImportError:
        raise MissingExtraError(EXTRA_HINT)
    return get_plotlyjs(), get_plotlyjs_version()


def write_shared_js(folder):
    """Write plotly.js into `folder` as PLOTLY_FILE for the pages there
    (through a temporary file renamed into place; a copy already the
    same is left as it is).  MissingExtraError without plotly."""
    import io
    import os
    from ssbench.results import safefiles
    source = plotly_js()[0]
    path = os.path.join(folder, PLOTLY_FILE)
    try:
        with io.open(path, encoding='utf-8') as handle:
            if handle.read() == source:
                return path
    except (IOError, OSError, UnicodeError):
        pass
    with safefiles.atomic_output(path, 'plotly.js') as out:
        write_text(out, source)
    return path


def shared_js_src(page, folder):
    """The relative URL, from the page at path `page`, of the shared copy
    of plotly.js in `folder`, written there first (write_shared_js())."""
    import os
    path = write_shared_js(folder)
    return os.path.relpath(os.path.abspath(path), os.path.dirname(
        os.path.abspath(page))).replace(os.sep, '/')


def chart_divs(charts):
    """(the divs' HTML, the figures that plotly.js draws in them) of
    [(div id, figure)]."""
    return (''.join('<div class="chart" id="%s"></div>' % div_id
                    for div_id, _ in charts),
            [{'id': div_id, 'data': fig['data'], 'layout': fig['layout']}
             for div_id, fig in charts])


def write_page(stream, title, body, figures, js_src=None, made_by=''):
    """Write a page to a text stream: its `title` and `body` (HTML), the
    footer (`made_by`, then the words on plotly.js), plotly.js inlined
    or, with `js_src`, read from that relative URL, and the drawing of
    `figures` (chart_divs()).  MissingExtraError without plotly."""
    js_source, js_version = plotly_js()
    scripts = ''
    if figures:
        library = ('<script src="%s"></script>' % esc(js_src) if js_src
                   else '<script>%s</script>' % js_source)
        scripts = '%s\n<script>%s</script>\n' % (
            library, DRAW_JS % script_json(figures))
    footer = '<footer>%sCharts drawn by plotly.js %s, %s.</footer>\n' % (
        made_by, esc(js_version), 'read from <code>%s</code>' % esc(js_src)
        if js_src else 'included in this file')
    write_text(stream, text_type(PAGE) % {
        'title': title, 'style': STYLE, 'scripts': scripts,
        'body': body + footer})


def script_json(value):
    """JSON of value that is safe inside a <script> element."""
    text = json.dumps(value, sort_keys=True, separators=(',', ':'))
    for char, escape in _SCRIPT_ESCAPES:
        text = text.replace(char, escape)
    return text


def chart_specs(doc):
    """[(section, [(div id, figure)])] of every chart the page shows."""
    operations = doc.get('operations') or []
    if not operations:
        return []
    timeseries = doc.get('timeseries') or {}
    throughput = htmlcharts.throughput_figure(timeseries, chart_esc)
    sections = [
        ('throughput', [('chart-throughput', throughput)] if throughput
         else []),
        ('latency-time', [('chart-latency-%d' % i, fig) for i, (_, fig) in
                          enumerate(htmlcharts.latency_time_figures(
                              timeseries, chart_esc))]),
        ('distribution', [('chart-distribution-%d' % i, fig)
                          for i, (_, fig) in enumerate(
                              htmlcharts.distribution_figures(
                                  operations, chart_esc))])]
    for _, charts in sections[:2]:      # the charts over time
        for _, figure in charts:
            htmlcharts.add_events(figure, doc.get('events'),
                                  timeline.describe, chart_esc)
    return [section for section in sections if section[1]]


SECTION_TITLES = {
    'throughput': ('Throughput', 'Requests completed per second in each '
                   'time bucket, by completion time (the first and last '
                   'buckets are partial).'),
    'latency-time': ('Latency over time', 'Median (p50) and p99 latency '
                     'of the requests completed in each time bucket: '
                     'first byte (response headers) and last byte (whole '
                     'request).'),
    'distribution': ('Latency distribution', 'Share of the successful '
                     'requests done within a given latency, per object '
                     'size class; click a legend entry to show or hide '
                     'a curve (first-byte curves are dotted).  Where '
                     'requests failed, the dashed curve counts all of '
                     'them, each failure at its time to failure.'),
}


def _section(anchor, title, body, intro=''):
    return ('<section id="%s"><h2>%s</h2>%s%s</section>\n' % (
        anchor, title, '<p class="intro">%s</p>' % intro if intro else '',
        body))


def charts_html(charts):
    """(chart sections' HTML, [figure with its div id]) of chart_specs."""
    parts, figures = [], []
    for anchor, items in charts:
        title, intro = SECTION_TITLES[anchor]
        grid = ' grid' if anchor != 'throughput' else ''
        divs, drawn = chart_divs(items)
        parts.append(_section(anchor, title, '<div class="charts%s">%s'
                              '</div>' % (grid, divs), intro))
        figures.extend(drawn)
    return ''.join(parts), figures


def page_body(doc, charts):
    """The page's HTML from its title down to the footer (not
    included)."""
    operations = doc.get('operations') or []
    body = ['<header><h1>%s</h1><p class="sub">ssbench benchmark report'
            '</p></header>\n' % page_title(doc),
            headline_html(step_figures(doc))]
    body.append(_section('run', 'Run', '<div class="pair">%s%s</div>' % (
        facts_html(doc), sizes_html(doc.get('scenario')))))
    body.append(_section('summary', 'Summary', summary_html(
        operations, doc.get('bandwidth')) if operations else
                         '<p>This stats file holds no results.</p>'))
    body.append(charts)
    if operations:
        body.append(_section('percentiles', 'Latency percentiles',
                             percentiles_html(operations,
                                              doc.get('percentiles') or []),
                             'Exact values in seconds.  First byte and '
                             'last byte: successful requests only, as '
                             'ssbench 0.3.9 reports them.  All requests '
                             '(where some failed): the successes at their '
                             'last byte and each failed request at its '
                             'time to failure, from its first send to '
                             'giving up, retries included.' + (
                                 ' Open loop: response times, from each '
                                 'job\'s intended start.'
                                 if doc.get('open_loop') else '')))
    if (doc.get('popularity') or {}).get('reads'):
        body.append(_section('popularity', 'Object popularity',
                             popularity_html(doc['popularity']),
                             'How the reads spread over the objects: the '
                             'share of the successful reads that went to '
                             'the most-read 1% and 10% of the objects the '
                             'run could read (its initial population and '
                             'what it created).'))
    if doc.get('endpoints'):
        body.append(_section('endpoints', 'Endpoints', endpoints_html(
            doc['endpoints'], doc.get('percentiles') or []),
            'The run\'s storage URLs (-S), which took the requests in '
            'turn: per URL its requests, errors and last-byte latencies in '
            'seconds (successful requests).'))
    if doc.get('open_loop'):
        body.append(_section('open-loop', 'Open loop: service time',
                             open_loop_html(doc['open_loop'],
                                            doc.get('percentiles') or []),
                             'The schedule, and the latencies from each '
                             'request\'s actual send (service time): they '
                             'leave out the waits the response times '
                             'above count.'))
    if doc.get('client'):
        body.append(_section('client', 'Client health',
                             client_html(doc['client']),
                             'Per worker: how long it was past a limit '
                             '(event-loop lag p99 or CPU of its process), '
                             'and why.  Past it for long for its own CPU '
                             'or a stalled loop, the figures show the '
                             'client\'s limit, not the cluster\'s; a '
                             'host busy with other processes only delays '
                             'it.'))
    if doc.get('workers'):
        body.append(_section('workers', 'Workers',
                             workers_html(doc['workers']),
                             'Every worker that took part: as it said of '
                             'itself, its clock offset to the master, '
                             'when it joined, was started again, was lost '
                             'and came back (seconds from the run\'s '
                             'start), and its results and errors.'))
    body.append(_section('errors', 'Errors', errors_html(doc.get('errors'))))
    if (doc.get('retries') or {}).get('total'):
        body.append(_section('retries', 'Retries',
                             retries_html(doc['retries']),
                             'Requests sent again, by why: an HTTP status, '
                             'an exception class, or "not recorded" for '
                             'results that do not say.'))
    return ''.join(body)


def page_title(doc):
    return esc((doc.get('run') or {}).get('name')) or 'ssbench run'


def render_html(doc, stream, js_src=None):
    """Write the HTML report of an analysis document to a text stream
    (UTF-8 when it is a file), plotly.js inlined or, with `js_src`, read
    from that relative URL (write_shared_js()).  MissingExtraError
    without plotly."""
    charts, figures = charts_html(chart_specs(doc))
    write_page(stream, page_title(doc), page_body(doc, charts), figures,
               js_src, 'Made by %s from <code>%s</code>. ' % (
                   esc(doc.get('generator')), esc(doc.get('stats_file'))))


DRAW_JS = """(function () {
  var config = {responsive: true, displaylogo: false};
  var charts = %s;
  for (var i = 0; i < charts.length; i++) {
    Plotly.newPlot(charts[i].id, charts[i].data, charts[i].layout, config);
  }
})();"""

STYLE = """
body { font-family: -apple-system, "Segoe UI", Roboto, Helvetica, Arial,
       sans-serif; margin: 0 auto; padding: 0 24px 24px; max-width: 1500px;
       color: #222; background: #fff; font-size: 14px; }
header h1 { margin: 20px 0 0; font-size: 24px; }
.sub { margin: 2px 0 0; color: #666; }
h2 { font-size: 18px; border-bottom: 2px solid #ddd; padding-bottom: 4px;
     margin-top: 28px; }
.intro, .note { color: #555; margin: 4px 0 10px; }
.note { background: #fff6dd; border-left: 4px solid #e6b800;
        padding: 6px 10px; }
.pair { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
table { border-collapse: collapse; margin: 4px 0 12px; }
th, td { border: 1px solid #ddd; padding: 3px 8px; text-align: left;
         vertical-align: top; }
th { background: #f2f4f7; }
tbody tr:nth-child(even) { background: #fafbfc; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 12px; word-break: break-all; }
.charts.grid { display: grid; gap: 12px;
               grid-template-columns: repeat(auto-fit, minmax(560px, 1fr)); }
.chart { border: 1px solid #e4e4e4; min-height: 380px; }
footer { margin-top: 28px; color: #777; font-size: 12px; }
#headline { margin: 14px 0 0; padding: 10px 14px; background: #f2f6fb;
            border-left: 4px solid #1f77b4; }
#headline .caption { margin: 0 0 4px; color: #555; }
.headline { margin: 0; font-size: 17px; line-height: 1.7; }
.headline .figure { white-space: nowrap; font-weight: 600; }
.about { list-style: none; padding: 0; margin: 10px 0 0; }
.about li { display: inline-block; margin-right: 24px; }
"""

PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>ssbench: %(title)s</title>
<style>%(style)s</style>
</head>
<body>
%(body)s%(scripts)s</body>
</html>
"""

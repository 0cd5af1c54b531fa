"""The headline: one line of a run's figures (requests, achieved rate,
p50, p99 and p99.9 of last-byte latency, errors, MB/s, the client's
health), from the figures the suite table shows
(ssbench.report.compute.suitefigures.step_figures), so that the line is
the same in the log of run-scenario and run-suite, in report-scenario
--summary and at the top of the HTML pages (see docs/analysis.rst)."""
from __future__ import absolute_import, division, print_function

from ssbench.compat import write_text
from ssbench.measure.rank import percentile_name
from ssbench.report.compute.suitefigures import KEYS, PERCENTILES
from ssbench.report.render.htmltables import esc

MICRO = u'\u00b5'
# Below this many seconds a latency reads in microseconds: 0.9996 ms
# would round to "1000 us".
_MICROSECONDS_BELOW = 0.0009995


def micro_sign(stream):
    """The micro sign when `stream` says it can write it, else ASCII "u"
    (a Python 2 pipe, whose encoding is None, or LANG=C)."""
    encoding = getattr(stream, 'encoding', None)
    try:
        MICRO.encode(encoding)
        return MICRO
    except (TypeError, LookupError, UnicodeError):
        return u'u'


def write_lines(out, lines):
    """Write lines(micro), each with a newline, to `out`: the micro sign
    only where `out` can show it."""
    write_text(out, u''.join(line + u'\n' for line in lines(
        micro_sign(out))))


def _digits(value):
    """Three significant digits without an exponent."""
    if value >= 99.95:
        return '%.0f' % (value,)
    return ('%.1f' if value >= 9.995 else '%.2f') % (value,)


def latency_text(seconds, micro=MICRO):
    """A latency in ms, in us below a millisecond; '-' for None."""
    if seconds is None:
        return '-'
    if seconds < _MICROSECONDS_BELOW:
        return u'%s %ss' % (_digits(seconds * 1e6), micro)
    return '%s ms' % (_digits(seconds * 1e3),)


def _number(value, form):
    return '-' if value is None else form % (value,)


def headline_parts(figures, micro=MICRO):
    """The headline's pieces, in order, of one run's figures
    (step_figures(); None or no results: dashes)."""
    figures = figures or {}
    total = (figures.get('operations') or {}).get('total') or {}
    latency = total.get('latency') or {}
    errors = total.get('errors') or 0
    share = total.get('error_share')
    parts = ['%d requests' % ((total.get('count') or 0) + errors,),
             '%s req/s' % (_number(total.get('req_per_s'), '%.1f'),)]
    parts.extend(u'%s %s' % (percentile_name(pctile),
                             latency_text(latency.get(key), micro))
                 for pctile, key in zip(PERCENTILES, KEYS))
    parts.append('%d errors%s' % (errors, '' if share is None else
                                  ' (%.2f%%)' % (share,)))
    parts.append('%s MB/s' % (_number(total.get('MB_per_second'), '%.2f'),))
    parts.append('client %s' % (figures.get('health') or 'unknown',))
    return parts


def headline(figures, micro=MICRO):
    """The headline of one run's figures: one line."""
    return u', '.join(headline_parts(figures, micro))


def suite_lines(doc, micro=MICRO):
    """A suite document's (ssbench.report.compute.suitefigures) summary:
    a line per step that has figures, 'Step N (label): ' and its
    headline."""
    return [u'Step %d (%s): %s' % (step['step'], step.get('label') or '-',
                                   headline(step['figures'], micro))
            for step in doc['steps'] if step.get('figures')]


def headline_html(figures, caption=''):
    """The block a page opens with: the headline (its text that of
    headline()), each figure in a box, under an (escaped) caption."""
    spans = ', '.join('<span class="figure">%s</span>' % esc(part)
                      for part in headline_parts(figures))
    return ('<section id="headline">%s<p class="headline">%s</p></section>\n'
            % ('<p class="caption">%s</p>' % esc(caption) if caption
               else '', spans))

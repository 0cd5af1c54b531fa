"""The HTML report's table of the endpoints (storage URLs) of a run of
several (the document's "endpoints", ssbench.report.compute.endpoints):
per URL its requests, errors, rate and last-byte latencies, and how its
average compares with the others', so that one slow proxy stands out."""
from __future__ import absolute_import, division, print_function

from ssbench.measure.rank import percentile_of_sorted
from ssbench.report.compute.metricnames import all_sizes, error_rate
from ssbench.report.render.htmltables import (NA, esc, fmt_float, fmt_int,
                                              pct_key, table)

# An endpoint whose average last-byte latency is this many times the
# median of the others' is named in the note above the table.
STANDS_OUT = 2.0


def versus_others(endpoints):
    """Per endpoint (in order) its average last-byte latency over the
    median of the other endpoints' averages, None where either is
    unknown or that median is 0."""
    averages = [all_sizes(e, 'last_byte').get('avg') for e in endpoints]
    out = []
    for index, average in enumerate(averages):
        others = [a for i, a in enumerate(averages)
                  if i != index and a is not None]
        median = percentile_of_sorted(sorted(others), 50) if others \
            else None
        out.append(average / median if average is not None and median
                   else None)
    return out


def endpoints_html(section, percentiles):
    """The note on the slow endpoints and the table of all of them."""
    endpoints = section.get('endpoints') or []
    keys = [pct_key(p) for p in percentiles]
    ratios = versus_others(endpoints)
    rows = []
    for endpoint, ratio in zip(endpoints, ratios):
        last = all_sizes(endpoint, 'last_byte')
        rate = error_rate(endpoint)
        rows.append(
            [esc(endpoint.get('operation')), esc(endpoint.get('url')),
             fmt_int(endpoint.get('count')), fmt_int(endpoint.get('errors')),
             NA if rate is None else '%.2f%%' % rate,
             fmt_int(endpoint.get('retries')),
             fmt_float(endpoint.get('req_per_s'), '%.1f')] +
            [fmt_float(last.get(key)) for _, key in keys] +
            [fmt_float(last.get('max')), fmt_float(last.get('avg')),
             NA if ratio is None else '%.2f' % ratio])
    slow = [esc(e.get('operation')) for e, ratio in zip(endpoints, ratios)
            if ratio is not None and ratio >= STANDS_OUT]
    note = ('<p class="note">Slower than the others (average last-byte '
            'latency %g times their median or more): %s.</p>' % (
                STANDS_OUT, ', '.join(slow)) if slow else '')
    if section.get('unattributed'):
        note += ('<p>%s results name no endpoint of the run (their '
                 'request never went out).</p>' % fmt_int(
                     section['unattributed']))
    headers = (['Endpoint', 'Storage URL', 'Successes', 'Errors',
                'Error rate', 'Retries', 'Req/s (average)'] +
               ['p%s' % label for label, _ in keys] +
               ['Max', 'Average', 'Average / others\' median'])
    return note + table(headers, rows, numeric=range(2, len(headers)))

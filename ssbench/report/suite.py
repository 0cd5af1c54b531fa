"""A suite's steps side by side: the figures of each step's analysis
document, the suite document (--json of run-suite) and its text table.

step_figures() reads one step's analysis document (format_version 1,
ssbench.report.compute.analyze) into the figures a curve needs: offered
and achieved rate, p50/p99/p99.9 of last-byte latency, errors and their
share, MB/s and the client's health, for all requests and per operation.
"""
from __future__ import absolute_import, division, print_function

import collections

from ssbench.compat import write_text
from ssbench.report import metricnames

FORMAT = 'ssbench-suite'
FORMAT_VERSION = 1
PERCENTILES = (50, 99, 99.9)
_KEYS = tuple(metricnames.percentile_key(p) for p in PERCENTILES)


def health_word(doc):
    """The client's health of a run in a word or two: the client's own
    limit first ('saturated'), then 'host busy', 'queue growing', else
    'ok'; 'unknown' without health records (a 0.3.x file)."""
    client = doc.get('client')
    if not client:
        return 'unknown'
    for key, word in (('saturated', 'saturated'), ('host_busy', 'host busy'),
                      ('queue_growing', 'queue growing')):
        if client.get(key):
            return word
    return 'ok'


def _operation_figures(op, bandwidth):
    latency = metricnames.all_sizes(op, 'last_byte')
    count, errors = op.get('count') or 0, op.get('errors') or 0
    return collections.OrderedDict([
        ('count', count), ('errors', errors),
        ('error_share', metricnames.error_rate(op)),
        ('req_per_s', op.get('req_per_s')),
        ('latency', collections.OrderedDict(
            (key, latency.get(key)) for key in _KEYS)),
        ('MB_per_second', (bandwidth or {}).get('MB_per_second')),
    ])


def step_figures(doc):
    """{'offered': jobs/s of a --rate run or None, 'health': health_word,
    'operations': {operation: figures}} of one step's document."""
    header = doc.get('header') or {}
    bandwidth = (doc.get('bandwidth') or {}).get('operations') or {}
    operations = collections.OrderedDict()
    for op in doc.get('operations') or []:
        name = op['operation']
        operations[name] = _operation_figures(op, bandwidth.get(name))
    return collections.OrderedDict([
        ('offered', header.get('rate')),
        ('health', health_word(doc)),
        ('operations', operations)])


def suite_document(name, steps, search=None):
    """The suite document: its name, each step (a map the runner makes:
    step, label, scenario, settings, stats_file, complete, and once
    reported, figures, steady, slo) and, for --find-max-rate, the
    search's outcome."""
    doc = collections.OrderedDict([
        ('format', FORMAT), ('format_version', FORMAT_VERSION),
        ('name', name), ('steps', list(steps))])
    if search is not None:
        doc['search'] = search
    return doc


def _ms(value):
    if value is None:
        return '-'
    if value < 0.1:
        return '%.2f ms' % (value * 1e3,)
    if value < 1:
        return '%.1f ms' % (value * 1e3,)
    return '%.2f s' % (value,)


def _number(value, form='%.1f'):
    return '-' if value is None else form % (value,)


_HEADER = ('Step', 'Values', 'Offered', 'Achieved', 'p50', 'p99', 'p99.9',
           'Errors', 'MB/s', 'Client')


def table_rows(doc, operations=('total',)):
    """The rows (lists of cells) of the suite table: one per step and
    operation asked for that the step has."""
    rows = []
    for step in doc['steps']:
        figures = step.get('figures')
        values = step.get('label') or '-'
        if figures is None:
            rows.append(['%d' % step['step'], values, '', '', '', '', '', '',
                         '', 'not run' if not step.get('complete')
                         else 'no results'])
            continue
        offered = figures.get('offered')
        for index, name in enumerate(operations):
            op = figures['operations'].get(name)
            if op is None:
                continue
            first = index == 0
            latency = op['latency']
            rows.append([
                '%d' % step['step'] if first else '',
                values if first else '  %s' % (name,),
                ('%s/s' % _number(offered, '%g') if offered else 'closed')
                if first else '',
                _number(op['req_per_s']),
                _ms(latency.get(_KEYS[0])), _ms(latency.get(_KEYS[1])),
                _ms(latency.get(_KEYS[2])),
                '%d (%s)' % (op['errors'], _number(op['error_share'],
                                                   '%.2f%%')),
                _number(op['MB_per_second'], '%.2f'),
                _client(step, figures) if first else ''])
    return rows


def _client(step, figures):
    words = [figures.get('health') or 'unknown']
    if step.get('steady') is not None:
        words.append('steady' if step['steady'].get('steady')
                     else 'not steady')
    if step.get('slo') is not None:
        words.append('SLO met' if not step['slo'] else 'SLO missed')
    if not step.get('complete'):
        words.append('partial')
    return ', '.join(words)


def render_table(doc, out, operations=('total',)):
    """Write the suite table: a title, then one line per step (and per
    operation asked for under it), columns aligned."""
    rows = [list(_HEADER)] + table_rows(doc, operations)
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    lines = ['Suite "%s": %d step%s' % (
        doc['name'], len(doc['steps']), '' if len(doc['steps']) == 1
        else 's')]
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            # Values and the client's words read left to right.
            cells.append(cell.ljust(widths[i]) if i in (1, 9)
                         else cell.rjust(widths[i]))
        lines.append('  '.join(cells).rstrip())
    search = doc.get('search')
    if search is not None:
        lines.append('')
        lines.append('Capacity search: %s' % (search['summary'],))
    write_text(out, '\n'.join(lines) + '\n')

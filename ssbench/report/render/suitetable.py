"""A suite's steps side by side as text: one line per step (and per
operation asked for under it), from the suite document
(ssbench.report.compute.suitefigures)."""
from __future__ import absolute_import, division, print_function

from ssbench.compat import write_text
from ssbench.errors import printable
from ssbench.report.compute.suitefigures import KEYS


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
        values = printable(step.get('label')) or '-'
        if figures is None:
            rows.append(['%d' % step['step'], values, '', '', '', '', '', '',
                         '', _not_reported(step)])
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
                _ms(latency.get(KEYS[0])), _ms(latency.get(KEYS[1])),
                _ms(latency.get(KEYS[2])),
                '%d (%s)' % (op['errors'], _number(op['error_share'],
                                                   '%.2f%%')),
                _number(op['MB_per_second'], '%.2f'),
                _client(step, figures) if first else ''])
    return rows


def _not_reported(step):
    """Why a step has no figures: it failed (its stats file could not
    be written), it did not run, or it holds no results."""
    if step.get('error'):
        return 'failed'
    return 'not run' if not step.get('complete') else 'no results'


def _client(step, figures):
    words = [figures.get('health') or 'unknown']
    steady = step.get('steady')
    if steady is not None:
        after = steady.get('after')
        words.append('not steady' if not steady.get('steady') else
                     'steady after %.0f s' % (after,) if after is not None
                     else 'steady')
    if step.get('slo') is not None:
        words.append('SLO missed' if step['slo'] else
                     'SLO: too few results' if step.get('slo_too_few')
                     else 'SLO met')
    if not step.get('complete'):
        words.append('partial')
    return ', '.join(words)


def render_table(doc, out, operations=('total',)):
    """Write the suite table: a title, then one line per step (and per
    operation asked for under it), columns aligned."""
    lines = ['Suite "%s": %d step%s' % (
        printable(doc['name']), len(doc['steps']),
        '' if len(doc['steps']) == 1 else 's')]
    # Values and the client's words read left to right.
    lines += _aligned([list(_HEADER)] + table_rows(doc, operations), (1, 9))
    search = doc.get('search')
    if search is not None:
        lines.append('')
        lines.append('Capacity search: %s' % (search['summary'],))
    write_text(out, '\n'.join(lines) + '\n')


def _change(base, this):
    if base is None or this is None or not base:
        return '-'
    return '%+.1f%%' % ((this - base) / base * 100.0,)


def comparison_rows(rows):
    """The cells of compare_suites() rows: achieved rate, p99 and error
    share of each side, and the relative changes."""
    out = []
    for row in rows:
        base, this = row['base'] or {}, row['this'] or {}
        rates = (base.get('req_per_s'), this.get('req_per_s'))
        p99s = ((base.get('latency') or {}).get(KEYS[1]),
                (this.get('latency') or {}).get(KEYS[1]))
        shares = (base.get('error_share'), this.get('error_share'))
        out.append(['%d' % row['step'], row['label'] or '-',
                    _number(rates[0]), _number(rates[1]), _change(*rates),
                    _ms(p99s[0]), _ms(p99s[1]), _change(*p99s),
                    _number(shares[0], '%.2f%%'),
                    _number(shares[1], '%.2f%%')])
    return out


_COMPARE_HEADER = ('Step', 'Values', 'Base req/s', 'This req/s', 'Change',
                   'Base p99', 'This p99', 'Change', 'Base errors',
                   'This errors')


def render_comparison(base_name, name, rows, out):
    """Write two suites side by side, step by step (compare_suites())."""
    lines = ['Suite "%s" against the base suite "%s"' % (name, base_name)]
    lines += _aligned([list(_COMPARE_HEADER)] + comparison_rows(rows), (1,))
    write_text(out, '\n'.join(lines) + '\n')


def _aligned(rows, left):
    """The lines of a table of text cells in columns two spaces apart,
    the columns whose index is in `left` aligned left, the others
    right."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ['  '.join(cell.ljust(widths[i]) if i in left else
                      cell.rjust(widths[i])
                      for i, cell in enumerate(row)).rstrip()
            for row in rows]

"""Comparing two runs side by side.

Works only on two analysis documents (format_version 1, see
ssbench.report.analyze): the base run first, then the run under test.

Every change is in percent: the relative change (this - base) / base for
throughput, counts and latencies, and the difference in percentage points
for the error rate.

The --fail-if gate on top of it is ssbench.report.gate.
"""
from __future__ import absolute_import, division, print_function

import collections

from ssbench.compat import write_text
from ssbench.errors import StatsFileError, printable
from ssbench.measure.rank import percentile_name
from ssbench.report.compute.metricnames import (
    DEFAULT_PERCENTILES, ENDPOINT, KIND_LABELS, KINDS, OPERATIONS, all_sizes,
    endpoints_of, error_rate, operations_of)
from ssbench.report.render.classic import format_time

# The fewest seconds (first and last left out) a spread is estimated from.
MIN_SPREAD_SECONDS = 5


# --- comparing -------------------------------------------------------------

def relative_change(base, this):
    """(this - base) / base in percent; None if either is None or base 0."""
    if base is None or this is None or base == 0:
        return None
    return (this - base) / base * 100.0


def throughput_spread(block):
    """How noisy a run's per-second throughput was, in percent.

    The half-width of the band around the median that holds the middle
    half of the seconds: max(p75 - median, median - p25) / median.  None
    (unknown) when the document has no throughput block, its median is
    0, or it has fewer than MIN_SPREAD_SECONDS whole seconds.
    """
    if not block or not block.get('median'):
        return None
    # Quartiles of fewer seconds say nothing of the noise: one second
    # would give +/-0.0%.
    if (block.get('seconds') or 0) < MIN_SPREAD_SECONDS:
        return None
    median = block['median']
    if block.get('p25') is None or block.get('p75') is None:
        return None
    return max(block['p75'] - median, median - block['p25']) / median * 100.0


def compare(base_doc, doc):
    """Side-by-side figures of two analysis documents, the base first.

    Returns a dict:
      'base', 'this': name, version, start_time, stop_time, duration,
        skip_seconds (the warm-up left out) and stats_file of each run;
      'scenario_differences': lines saying how the workloads differ (empty
        when they match);
      'operations': one dict per operation found in either run, in report
        order: 'operation', 'in_base', 'in_this', 'throughput' and 'spread'
        (each {'base': ..., 'this': ...}; the per-second throughput block
        and throughput_spread() of it) and 'rows', a list of
        {'metric', 'label', 'unit', 'base', 'this', 'change',
        'change_unit'}; then one per endpoint of a run of several storage
        URLs ('operation' endpoint[N], matched by index, and its 'url').
    metric is 'rps', 'count', 'errors', 'error_rate' or KIND.STAT (e.g.
    'last_byte.p99_9', 'first_byte.max'), latencies for all sizes.  unit
    is 'req/s', 'count', 'percent' or 'seconds'.  change is in percent
    (change_unit 'relative') or percentage points ('points', error_rate);
    None when either side is missing or a relative change has a base of 0.
    """
    for d in (base_doc, doc):
        _check_version(d)
    keys = _percentile_keys(base_doc, doc)
    base_ops = operations_of(base_doc)
    this_ops = operations_of(doc)
    operations = []
    for name in OPERATIONS + _endpoint_names(base_doc, doc):
        if name in base_ops or name in this_ops:
            operations.append(_compare_operation(
                name, base_ops.get(name), this_ops.get(name), keys))
            url = (this_ops.get(name) or base_ops[name]).get('url')
            if url:
                operations[-1]['url'] = url
    return {'base': _describe_run(base_doc), 'this': _describe_run(doc),
            'scenario_differences': scenario_differences(base_doc, doc),
            'operations': operations}


def _endpoint_names(*docs):
    """endpoint[N] of every endpoint of either run, by index: a run of
    several storage URLs compares them one by one, in -S order."""
    count = max(len(endpoints_of(doc)) for doc in docs)
    return tuple(ENDPOINT % index for index in range(count))


def _check_version(doc):
    version = doc.get('format_version')
    if version != 1:
        raise StatsFileError(
            'cannot compare %s: analysis format_version %r, expected 1'
            % (doc.get('stats_file') or 'a document', version))


def _percentile_keys(*docs):
    numbers = set()
    for doc in docs:
        numbers.update(doc.get('percentiles') or DEFAULT_PERCENTILES)
    return [percentile_name(n, '_') for n in sorted(numbers)]


def _describe_run(doc):
    run = doc.get('run') or {}
    described = dict((key, run.get(key)) for key in (
        'name', 'version', 'start_time', 'stop_time', 'duration',
        'skip_seconds'))
    described['stats_file'] = doc.get('stats_file')
    return described


def _latency_getter(kind, stat):
    return lambda op: all_sizes(op, kind).get(stat)


def _metric_specs(percentile_keys):
    """(metric, label, unit, getter) of every row, in display order."""
    specs = [
        ('rps', 'requests/s', 'req/s', lambda op: op.get('req_per_s')),
        ('count', 'successes', 'count', lambda op: op.get('count')),
        ('errors', 'errors', 'count', lambda op: op.get('errors')),
        ('error_rate', 'error rate', 'percent', error_rate),
    ]
    for kind in KINDS:
        for stat in percentile_keys + ['max', 'avg']:
            specs.append(('%s.%s' % (kind, stat), '%s %s' % (
                KIND_LABELS[kind], stat.replace('_', '.')), 'seconds',
                _latency_getter(kind, stat)))
    return specs


def _compare_operation(name, base_op, this_op, percentile_keys):
    rows = []
    for metric, label, unit, getter in _metric_specs(percentile_keys):
        base = getter(base_op) if base_op else None
        this = getter(this_op) if this_op else None
        if metric == 'error_rate':
            change_unit = 'points'
            change = None if base is None or this is None else this - base
        else:
            change_unit = 'relative'
            change = relative_change(base, this)
        rows.append({'metric': metric, 'label': label, 'unit': unit,
                     'base': base, 'this': this, 'change': change,
                     'change_unit': change_unit})
    blocks = {'base': base_op and base_op.get('throughput'),
              'this': this_op and this_op.get('throughput')}
    return {'operation': name, 'in_base': base_op is not None,
            'in_this': this_op is not None, 'throughput': blocks,
            'spread': dict((side, throughput_spread(block))
                           for side, block in blocks.items()),
            'rows': rows}


def _effective(doc):
    """The scenario values that shape a workload (after CLI overrides)."""
    scenario = doc.get('scenario') or {}
    header = doc.get('header') or {}
    user_count = header.get('user_count')
    return [
        ('user_count', scenario.get('user_count')
         if user_count is None else user_count),
        ('crud_profile', scenario.get('crud_profile')),
        ('initial_files', scenario.get('initial_files')),
        ('policy', scenario.get('policy')),
    ], scenario.get('sizes') or []


def scenario_differences(base_doc, doc):
    """Lines naming each workload setting that differs between two runs."""
    base_values, base_sizes = _effective(base_doc)
    this_values, this_sizes = _effective(doc)
    lines = ['%s: %s -> %s' % (key, _show(base), _show(this))
             for (key, base), (_, this) in zip(base_values, this_values)
             if base != this]
    return lines + _size_differences(base_sizes, this_sizes)


def _size_differences(base_sizes, this_sizes):
    base = collections.OrderedDict((s.get('name'), s) for s in base_sizes)
    this = collections.OrderedDict((s.get('name'), s) for s in this_sizes)
    lines = []
    for name in list(base) + [n for n in this if n not in base]:
        if name not in this:
            lines.append('size class %s: only in the base run' % _show(name))
        elif name not in base:
            lines.append('size class %s: only in this run' % _show(name))
        else:
            for key in ('size_min', 'size_max', 'crud_profile'):
                if base[name].get(key) != this[name].get(key):
                    lines.append('size class %s: %s %s -> %s' % (
                        _show(name), key, _show(base[name].get(key)),
                        _show(this[name].get(key))))
    return lines


def _show(value):
    """A scenario value as its JSON text would show it."""
    if value is None:
        return 'null'
    if isinstance(value, dict):
        return '{%s}' % ', '.join('%s: %s' % (_show(k), _show(value[k]))
                                  for k in sorted(value))
    if isinstance(value, (list, tuple)):
        return '[%s]' % ', '.join(_show(v) for v in value)
    if isinstance(value, bool):
        return 'true' if value else 'false'
    if isinstance(value, (int, float)):
        return '%s' % (value,)
    return '"%s"' % (value,)


# --- rendering -------------------------------------------------------------

_COLUMNS = '  %-22s %14s %14s  %s'


def format_value(value, unit):
    if value is None:
        return '-'
    if unit == 'seconds':
        return '%.2f ms' % (value * 1000.0)
    if unit == 'percent':
        return '%.2f%%' % value
    if unit == 'count':
        return '%d' % value
    return '%.1f' % value


def format_change(row, points='pp'):
    """A row's change: '+12.5%', in percentage points '+0.50 pp' (the
    word `points` after them), or 'n/a' and why."""
    if row['change'] is not None:
        if row['change_unit'] == 'points':
            return '%+.2f %s' % (row['change'], points)
        return '%+.1f%%' % row['change']
    if row['base'] == 0 and row['this'] is not None:
        return 'n/a (base 0)'
    return 'n/a'


def spread_text(spread):
    """'(per-second spread: base +/-4.0%, this run +/-3.1%)' or unknown."""
    base, this = spread['base'], spread['this']
    if base is None and this is None:
        return '(per-second spread unknown)'
    return '(per-second spread: base %s, this run %s)' % (
        _format_spread(base), _format_spread(this))


def _format_spread(value):
    return 'unknown' if value is None else '+/-%.1f%%' % value


def _run_lines(title, run):
    lines = ['%-10s%s  (started %s)' % (
        title, printable(run['name']), format_time(run['start_time'])),
             '%-10sstats file: %s' % ('', run['stats_file'])]
    if run.get('skip_seconds'):
        # The two sides may leave out different warm-ups (each file's own).
        lines.append('%-10swarm-up: the first %g s left out' % (
            '', run['skip_seconds']))
    return lines


def _operation_lines(op):
    title = op['operation'].upper()
    if op.get('url'):
        title += '  ' + op['url']
    if not op['in_base']:
        title += ' (no results in the base run)'
    elif not op['in_this']:
        title += ' (no results in this run)'
    lines = [title, _COLUMNS % ('metric', 'base', 'this run', 'change')]
    for row in op['rows']:
        if row['base'] is None and row['this'] is None:
            continue
        change = format_change(row)
        if row['metric'] == 'rps' and row['change'] is not None:
            change += ' ' + spread_text(op['spread'])
        lines.append((_COLUMNS % (
            row['label'], format_value(row['base'], row['unit']),
            format_value(row['this'], row['unit']), change)).rstrip())
    return lines


def compare_lines(result):
    """The text of render_compare() as a list of lines."""
    lines = ['Comparison of two ssbench runs']
    lines += _run_lines('Base:', result['base'])
    lines += _run_lines('This run:', result['this'])
    if result['scenario_differences']:
        lines += ['', 'NOTE: the scenarios differ, so these figures compare '
                  'different workloads:']
        lines += ['  ' + line for line in result['scenario_differences']]
    lines += ['', 'Changes are relative to the base run (error rate: in '
              'percentage points, pp).']
    for op in result['operations']:
        lines.append('')
        lines += _operation_lines(op)
    return lines


def render_compare(result, stream):
    """Write compare()'s result as a fixed-width text table to a stream."""
    write_text(stream, '\n'.join(compare_lines(result)) + '\n')

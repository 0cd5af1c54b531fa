"""Comparing two runs, and a regression gate for CI pipelines.

Works only on two analysis documents (format_version 1, see
ssbench.analysis.analyze): the base run first, then the run under test.

Every change is in percent: the relative change (this - base) / base for
throughput, counts and latencies, and the difference in percentage points
for the error rate.

--fail-if rules, comma-separated::

    RULE   = [OP "."] [KIND "."] METRIC CMP CHANGE
    OP     = total (default) | create | read | update | delete
    KIND   = last_byte (default) | first_byte     (latency metrics only)
    METRIC = rps | pN (a percentile: p50, p90, p95, p99, p99.9 or p99_9)
             | max | avg | errors
    CMP    = ">" | "<"
    CHANGE = a sign, a number and "%": +10%, -5%, +0.5%

A rule fails when the change is beyond CHANGE in the direction of CMP:
"p99>+10%" fails when the 99th percentile grew by more than 10%, and
"rps<-5%" fails when throughput dropped by more than 5%.  A change equal
to CHANGE passes.  The sign is required so that "rps<5%" cannot be taken
for a drop.  "errors" compares the error rate (failed / all requests) in
percentage points, so it works when the base had no errors: "errors>+1%"
fails when the rate rose by more than one point ("+1pp" means the same).
Spaces and letter case do not matter.  A rule that cannot be evaluated (the
operation or the metric is missing in either run, or the base value is 0)
fails: a gate must not pass silently.
"""
from __future__ import absolute_import, division, print_function

import collections
import re

from ssbench.compat import write_text
from ssbench.errors import StatsFileError, UsageError
from ssbench.report import format_time

# The CLI's exit status when a --fail-if rule failed.
THRESHOLD_EXIT = 3

OPERATIONS = ('total', 'create', 'read', 'update', 'delete')
KINDS = ('last_byte', 'first_byte')
_KIND_LABELS = {'last_byte': 'last-byte', 'first_byte': 'first-byte'}
_DEFAULT_PERCENTILES = (50, 90, 95, 99, 99.9)
# A change equal to a threshold must pass even after float rounding.
_TOLERANCE = 1e-9


class FailIfError(UsageError):
    """A --fail-if rule that cannot be parsed."""


class Rule(collections.namedtuple(
        'Rule', 'text operation kind metric comparison threshold')):
    """One parsed --fail-if rule.

    kind is None unless metric is a latency (pN, max, avg); threshold is
    in percent (percentage points for metric 'errors').
    """
    __slots__ = ()


# --- comparing -------------------------------------------------------------

def percentile_key(number):
    """The document's key of a percentile: 99.9 -> 'p99_9', 50 -> 'p50'."""
    return 'p' + ('%g' % number).replace('.', '_')


def relative_change(base, this):
    """(this - base) / base in percent; None if either is None or base 0."""
    if base is None or this is None or base == 0:
        return None
    return (this - base) / base * 100.0


def throughput_spread(block):
    """How noisy a run's per-second throughput was, in percent.

    The half-width of the band around the median that holds the middle
    half of the seconds: max(p75 - median, median - p25) / median.  None
    when the document has no throughput block (or its median is 0).
    """
    if not block or not block.get('median'):
        return None
    median = block['median']
    if block.get('p25') is None or block.get('p75') is None:
        return None
    return max(block['p75'] - median, median - block['p25']) / median * 100.0


def compare(base_doc, doc):
    """Side-by-side figures of two analysis documents, the base first.

    Returns a dict:
      'base', 'this': name, version, start_time, stop_time, duration and
        stats_file of each run;
      'scenario_differences': lines saying how the workloads differ (empty
        when they match);
      'operations': one dict per operation found in either run, in report
        order: 'operation', 'in_base', 'in_this', 'throughput' and 'spread'
        (each {'base': ..., 'this': ...}; the per-second throughput block
        and throughput_spread() of it) and 'rows', a list of
        {'metric', 'label', 'unit', 'base', 'this', 'change',
        'change_unit'}.
    metric is 'rps', 'count', 'errors', 'error_rate' or KIND.STAT (e.g.
    'last_byte.p99_9', 'first_byte.max'), latencies for all sizes.  unit
    is 'req/s', 'count', 'percent' or 'seconds'.  change is in percent
    (change_unit 'relative') or percentage points ('points', error_rate);
    None when either side is missing or a relative change has a base of 0.
    """
    for d in (base_doc, doc):
        _check_version(d)
    keys = _percentile_keys(base_doc, doc)
    base_ops = _by_operation(base_doc)
    this_ops = _by_operation(doc)
    operations = []
    for name in OPERATIONS:
        if name in base_ops or name in this_ops:
            operations.append(_compare_operation(
                name, base_ops.get(name), this_ops.get(name), keys))
    return {'base': _describe_run(base_doc), 'this': _describe_run(doc),
            'scenario_differences': scenario_differences(base_doc, doc),
            'operations': operations}


def _check_version(doc):
    version = doc.get('format_version')
    if version != 1:
        raise StatsFileError(
            'cannot compare %s: analysis format_version %r, expected 1'
            % (doc.get('stats_file') or 'a document', version))


def _percentile_keys(*docs):
    numbers = set()
    for doc in docs:
        numbers.update(doc.get('percentiles') or _DEFAULT_PERCENTILES)
    return [percentile_key(n) for n in sorted(numbers)]


def _by_operation(doc):
    return dict((op['operation'], op) for op in doc.get('operations') or [])


def _describe_run(doc):
    run = doc.get('run') or {}
    described = dict((key, run.get(key)) for key in (
        'name', 'version', 'start_time', 'stop_time', 'duration'))
    described['stats_file'] = doc.get('stats_file')
    return described


def _error_rate(op):
    requests = (op.get('count') or 0) + (op.get('errors') or 0)
    if not requests:
        return None
    return (op.get('errors') or 0) / requests * 100.0


def _all_sizes(op, kind):
    for entry in (op.get('latency') or {}).get(kind) or []:
        if entry.get('size') is None:
            return entry
    return {}


def _latency_getter(kind, stat):
    return lambda op: _all_sizes(op, kind).get(stat)


def _metric_specs(percentile_keys):
    """(metric, label, unit, getter) of every row, in display order."""
    specs = [
        ('rps', 'requests/s', 'req/s', lambda op: op.get('req_per_s')),
        ('count', 'successes', 'count', lambda op: op.get('count')),
        ('errors', 'errors', 'count', lambda op: op.get('errors')),
        ('error_rate', 'error rate', 'percent', _error_rate),
    ]
    for kind in KINDS:
        for stat in percentile_keys + ['max', 'avg']:
            specs.append(('%s.%s' % (kind, stat), '%s %s' % (
                _KIND_LABELS[kind], stat.replace('_', '.')), 'seconds',
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


def _format_value(value, unit):
    if value is None:
        return '-'
    if unit == 'seconds':
        return '%.2f ms' % (value * 1000.0)
    if unit == 'percent':
        return '%.2f%%' % value
    if unit == 'count':
        return '%d' % value
    return '%.1f' % value


def _format_change(row):
    if row['change'] is not None:
        if row['change_unit'] == 'points':
            return '%+.2f pp' % row['change']
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
    start = run['start_time']
    started = 'N/A' if start is None else format_time(start)
    return ['%-10s%s  (started %s)' % (title, run['name'], started),
            '%-10sstats file: %s' % ('', run['stats_file'])]


def _operation_lines(op):
    title = op['operation'].upper()
    if not op['in_base']:
        title += ' (no results in the base run)'
    elif not op['in_this']:
        title += ' (no results in this run)'
    lines = [title, _COLUMNS % ('metric', 'base', 'this run', 'change')]
    for row in op['rows']:
        if row['base'] is None and row['this'] is None:
            continue
        change = _format_change(row)
        if row['metric'] == 'rps' and row['change'] is not None:
            change += ' ' + spread_text(op['spread'])
        lines.append((_COLUMNS % (
            row['label'], _format_value(row['base'], row['unit']),
            _format_value(row['this'], row['unit']), change)).rstrip())
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


# --- the regression gate ---------------------------------------------------

_OPERATION_RE = re.compile(r'(total|create|read|update|delete)\.')
_KIND_RE = re.compile(r'(first_byte|last_byte)\.')
_METRIC_RE = re.compile(r'(rps|max|avg|errors|p(\d+(?:[._]\d+)?))$')
_CHANGE_RE = re.compile(r'([+-]?)(\d+(?:\.\d*)?|\.\d+)\s*(%|pp)?$')


def _bad(rule, why):
    return FailIfError("bad --fail-if rule '%s': %s" % (rule, why))


def parse_fail_if(text):
    """Parse --fail-if text into a list of Rule; FailIfError if malformed."""
    if not text or not text.strip():
        raise FailIfError('--fail-if needs at least one rule, '
                          'e.g. --fail-if "p99>+10%,rps<-5%"')
    return [_parse_rule(part.strip()) for part in text.split(',')]


def _parse_rule(rule):
    if not rule:
        raise _bad(rule, 'empty rule (a stray comma?)')
    found = [c for c in rule if c in '<>=']
    if found != ['>'] and found != ['<']:
        raise _bad(rule, 'needs exactly one comparison, > or <, '
                   'e.g. p99>+10% or rps<-5%')
    comparison = found[0]
    left, right = [s.strip() for s in rule.split(comparison)]
    operation, kind, metric = _parse_metric(rule, left.lower())
    threshold = _parse_change(rule, right.lower(), metric)
    return Rule(rule, operation, kind, metric, comparison, threshold)


def _parse_metric(rule, left):
    operation = 'total'
    match = _OPERATION_RE.match(left)
    if match:
        operation = match.group(1)
        left = left[match.end():]
    kind = None
    match = _KIND_RE.match(left)
    if match:
        kind = match.group(1)
        left = left[match.end():]
    match = _METRIC_RE.match(left)
    if not match:
        raise _bad(rule, "unknown metric '%s'; write [OP.][first_byte.]"
                   "METRIC, OP one of %s, METRIC one of rps/pN/max/avg/"
                   "errors (pN: p50, p99.9, ...)"
                   % (left, '/'.join(OPERATIONS)))
    metric = match.group(1)
    if match.group(2) is not None:
        number = float(match.group(2).replace('_', '.'))
        if not 0 < number <= 100:
            raise _bad(rule, 'percentile %s is not above 0 and at most 100'
                       % match.group(2))
        metric = percentile_key(number)
    if metric in ('rps', 'errors'):
        if kind is not None:
            raise _bad(rule, '%s. applies only to latency metrics '
                       '(pN, max, avg)' % kind)
    elif kind is None:
        kind = 'last_byte'
    return operation, kind, metric


def _parse_change(rule, right, metric):
    match = _CHANGE_RE.match(right)
    if not match:
        raise _bad(rule, 'the change must look like +10% or -5%')
    sign, number, unit = match.groups()
    if not sign:
        raise _bad(rule, 'the change needs a sign, +%s%% or -%s%%'
                   % (number, number))
    if unit is None:
        raise _bad(rule, 'the change needs a unit: %s%s%%' % (sign, number))
    if unit == 'pp' and metric != 'errors':
        raise _bad(rule, 'pp (percentage points) applies only to errors; '
                   'use %')
    value = float(number)
    return -value if sign == '-' else value


def _rule_row(op, rule):
    if rule.metric == 'errors':
        wanted = 'error_rate'
    elif rule.kind is None:
        wanted = rule.metric
    else:
        wanted = '%s.%s' % (rule.kind, rule.metric)
    for row in op['rows']:
        if row['metric'] == wanted:
            return row
    return None


def _change_text(row):
    if row['change_unit'] == 'points':
        return '%+.2f points' % row['change']
    return '%+.1f%%' % row['change']


def check_rule(result, rule):
    """The one-line violation of a rule, or None when the rule passes."""
    ops = dict((op['operation'], op) for op in result['operations'])
    op = ops.get(rule.operation)
    if op is None or not op['in_base'] or not op['in_this']:
        where = 'either run' if op is None else (
            'the base run' if not op['in_base'] else 'this run')
        return '%s: %s has no results in %s' % (
            rule.text, rule.operation, where)
    row = _rule_row(op, rule)
    what = '%s %s' % (rule.operation, row['label'] if row else '%s %s' % (
        _KIND_LABELS[rule.kind], rule.metric.replace('_', '.')))
    if row is None or row['base'] is None or row['this'] is None:
        if row is None or (row['base'] is None and row['this'] is None):
            side = 'both runs'
        else:
            side = 'the base run' if row['base'] is None else 'this run'
        return '%s: %s is missing in %s' % (rule.text, what, side)
    if row['change'] is None:
        return ('%s: %s is 0 in the base run, so it has no relative change'
                % (rule.text, what))
    change = row['change']
    if rule.comparison == '>':
        passed = change <= rule.threshold + _TOLERANCE
    else:
        passed = change >= rule.threshold - _TOLERANCE
    if passed:
        return None
    line = '%s: %s changed %s (%s -> %s)' % (
        rule.text, what, _change_text(row),
        _format_value(row['base'], row['unit']),
        _format_value(row['this'], row['unit']))
    if row['metric'] == 'rps':
        line += ' ' + spread_text(op['spread'])
    return line


def failed_checks(result, rules):
    """One line per rule that failed on compare()'s result; [] is a pass."""
    return [line for line in (check_rule(result, rule) for rule in rules)
            if line is not None]

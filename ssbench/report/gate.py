"""The --fail-if regression gate on a comparison of two runs (see
ssbench.report.compare), for CI pipelines.

--fail-if rules, comma-separated::

    RULE   = [OP "."] [KIND "."] METRIC CMP CHANGE
    OP     = total (default) | create | read | update | delete | head |
             list | endpoint[N] (the N-th storage URL, from 0, of runs of
             several; matched by index)
    KIND   = last_byte (default) | first_byte     (latency metrics only)
    METRIC = rps | pN (a percentile above 0 and at most 100: p50, p99.9 or
             p99_9, p99.99...; those beyond the analysis's own are
             computed on request) | max | avg | errors
    CMP    = ">" | "<"
    CHANGE = a sign, a number and "%": +10%, -5%, +0.5%

A rule fails when the change is beyond CHANGE in the direction of CMP:
"p99>+10%" fails when the 99th percentile grew by more than 10%, and
"rps<-5%" fails when throughput dropped by more than 5%.  A change equal
to CHANGE passes.  The sign is required so that "rps<5%" cannot be taken
for a drop.  "errors" compares the error rate (failed / all requests) in
percentage points, so it works when the base had no errors: "errors>+1%"
fails when the rate rose by more than one point ("+1pp" means the same).
Spaces and letter case do not matter; digits are ASCII digits (0-9), and a
rule is quoted in messages cut to metricnames.SHOWN characters.  A rule
that cannot be evaluated (the operation or the metric is missing in
either run, or the base value is 0) fails: a gate must not pass
silently.  A percentile rule on a run with too few successes for that
percentile (ssbench.report.compute.tailsize: p99 needs 100) is "too few
results", neither passed nor failed: one line of its own
(too_few_checks()), no exit status.
"""
from __future__ import absolute_import, division, print_function

import collections
import re

from ssbench.report.compute import metricnames, tailsize
from ssbench.report.compute.metricnames import cut
from ssbench.report.compare import (format_change, format_value,
                                    spread_text)
from ssbench.report.slo import describe, parse_list, split_comparison
from ssbench.errors import UsageError

# The CLI's exit status when a --fail-if rule failed.
THRESHOLD_EXIT = 3
# A change equal to a threshold must pass even after float rounding.
_TOLERANCE = 1e-9


class FailIfError(UsageError):
    """A --fail-if rule that cannot be parsed."""


class Rule(collections.namedtuple(
        'Rule', 'text name comparison threshold')):
    """One parsed --fail-if rule: name a metricnames.MetricName,
    threshold in percent (percentage points for metric 'errors')."""
    __slots__ = ()


_CHANGE_RE = re.compile(
    r'([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t]*(%|pp)?$')


def _bad(rule, why):
    return FailIfError("bad --fail-if rule '%s': %s" % (cut(rule), why))


def parse_fail_if(text):
    """Parse --fail-if text into a list of Rule; FailIfError if malformed."""
    return parse_list(text, _parse_rule, FailIfError(
        '--fail-if needs at least one rule, '
        'e.g. --fail-if "p99>+10%,rps<-5%"'))


def _parse_rule(rule):
    name, comparison, right = split_comparison(
        rule, _bad, 'rule', '> or <, e.g. p99>+10% or rps<-5%')
    return Rule(cut(rule), name, comparison,
                _parse_change(rule, right, name.metric))


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


def percentiles_of(rules):
    """The percentiles (numbers) the rules read, for the analysis to
    compute besides its own."""
    return metricnames.percentiles_of(rule.name for rule in rules)


def _row(op, wanted):
    """The comparison's row of metric `wanted` of an operation, or None."""
    for row in op['rows']:
        if row['metric'] == wanted:
            return row
    return None


def _row_metric(name):
    """The comparison's metric that a rule on figure `name` reads."""
    if name.metric == 'errors':
        return 'error_rate'
    if name.kind is None:
        return name.metric
    return '%s.%s' % (name.kind, name.metric)


def _too_few(op, rule):
    """The line saying a percentile rule has too few results in either
    run (their successes), or None."""
    percentile = rule.name.percentile()
    counts = _row(op, 'count')
    if percentile is None or counts is None:
        return None
    short = [(side, counts[side] or 0) for side in ('base', 'this')
             if tailsize.too_few(counts[side], percentile)]
    if not short:
        return None
    return '%s: too few results: %s; %s needs at least %d (neither passed ' \
        'nor failed)' % (rule.text, ', '.join(
            '%s %s has %d' % ('the base run\'s' if side == 'base' else
                              'this run\'s', rule.name.operation, count)
            for side, count in short), rule.name.metric.replace('_', '.'),
            tailsize.needed(percentile))


def _judge(result, rule):
    """(whether too few results leave the rule neither passed nor failed,
    None when the rule passes, else the one line saying why not) of a
    rule on compare()'s result."""
    name = rule.name
    ops = dict((op['operation'], op) for op in result['operations'])
    op = ops.get(name.operation)
    if op is None or not op['in_base'] or not op['in_this']:
        where = 'either run' if op is None else (
            'the base run' if not op['in_base'] else 'this run')
        return False, '%s: %s has no results in %s' % (
            rule.text, name.operation, where)
    few = _too_few(op, rule)
    if few is not None:
        return True, few
    row = _row(op, _row_metric(name))
    what = '%s %s' % (name.operation, row['label']) if row else describe(name)
    if row is None or row['base'] is None or row['this'] is None:
        if row is None or (row['base'] is None and row['this'] is None):
            side = 'both runs'
        else:
            side = 'the base run' if row['base'] is None else 'this run'
        return False, '%s: %s is missing in %s' % (rule.text, what, side)
    if row['change'] is None:
        return False, ('%s: %s is 0 in the base run, so it has no relative '
                       'change' % (rule.text, what))
    change = row['change']
    if rule.comparison == '>':
        passed = change <= rule.threshold + _TOLERANCE
    else:
        passed = change >= rule.threshold - _TOLERANCE
    if passed:
        return False, None
    line = '%s: %s changed %s (%s -> %s)' % (
        rule.text, what, format_change(row, 'points'),
        format_value(row['base'], row['unit']),
        format_value(row['this'], row['unit']))
    if row['metric'] == 'rps':
        line += ' ' + spread_text(op['spread'])
    return False, line


def failed_checks(result, rules):
    """One line per rule that failed on compare()'s result; [] is a pass
    (or too few results for some: too_few_checks())."""
    return [line for few, line in (_judge(result, rule) for rule in rules)
            if not few and line is not None]


def too_few_checks(result, rules):
    """One line per percentile rule that too few results in either run
    leave neither passed nor failed."""
    return [line for few, line in (_judge(result, rule) for rule in rules)
            if few]

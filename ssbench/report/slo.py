"""--slo: absolute objectives a run (or every step of a suite) must meet.

Objectives, comma-separated::

    OBJECTIVE = NAME CMP LIMIT
    NAME      = a figure as ssbench.report.compute.metricnames names it: p99,
                read.p99.9, create.first_byte.max, rps, errors, ...
    CMP       = "<" | ">"
    LIMIT     = for a latency (pN, max, avg): a number and its unit, one
                of us, ms, s (200ms, 1.5s); for errors: a number and "%"
                (0.1%: failed requests in percent of all requests); for
                rps: a number of requests per second, "/s" or "req/s"
                after it optional

"p99<200ms" holds when the 99th percentile of last-byte latency of all
requests is below 200 ms; "rps>500" when more than 500 requests a second
completed.  A figure equal to its limit passes.  In a --rate run the
document's latencies are response times (from each job's intended
start), so the objectives judge those.  An objective that cannot be
judged (the operation has no results, or the figure is missing) fails:
an objective must not pass for want of evidence.  A percentile objective
is judged only on enough results (ssbench.report.compute.tailsize: p99
needs 100): on fewer its verdict is TOO_FEW, neither met nor missed,
said in one line of its own (too_few()) and no exit status.
"""
from __future__ import absolute_import, division, print_function

import collections
import re

from ssbench.errors import UsageError
from ssbench.report.compute import metricnames, tailsize
from ssbench.report.compute.metricnames import cut

# The CLI's exit status when an objective was missed (as --fail-if's).
MISSED_EXIT = 3
# The verdicts of an objective on a document.
MET, MISSED, TOO_FEW = 'met', 'missed', 'too few results'
_TIME_UNITS = {'us': 1e-6, 'ms': 1e-3, 's': 1.0}
_LIMIT_RE = re.compile(r'([0-9]+(?:\.[0-9]*)?|\.[0-9]+)[ \t]*([a-z/%]*)$')
_RATE_UNITS = ('', '/s', 'req/s')
# The smallest time limit: figures are shown to the microsecond.
MIN_TIME_LIMIT = 1e-6
_ENDPOINT_INDEX = re.compile(r'endpoint\[([0-9]+)\]$')


class SloError(UsageError):
    """An --slo objective that cannot be parsed."""


class Objective(collections.namedtuple(
        'Objective', 'text name comparison limit')):
    """One parsed objective: name a metricnames.MetricName, limit in
    seconds, percent (errors) or requests per second (rps)."""
    __slots__ = ()


def _bad(text, why):
    return SloError("bad --slo objective '%s': %s" % (cut(text), why))


def parse_slo(text):
    """The Objectives of --slo text; SloError, one line, if malformed."""
    return parse_list(text, _parse_objective, SloError(
        "--slo needs at least one objective, e.g. "
        "--slo 'p99<200ms,errors<0.1%'"))


def parse_list(text, parse_one, empty):
    """parse_one() of each comma-separated part of `text` (stripped);
    raises `empty`, a UsageError, when the text holds no part at all."""
    if not text or not text.strip():
        raise empty
    return [parse_one(part.strip()) for part in text.split(',')]


def split_comparison(text, bad, what, comparisons):
    """(MetricName of the left side, the comparison, the right side in
    lower case) of one --slo objective or --fail-if rule `text`; raises
    bad(text, why) when it is empty (`what` it is), has not exactly one
    comparison (`comparisons` says which, with examples) or names no
    figure."""
    if not text:
        raise bad(text, 'empty %s (a stray comma?)' % what)
    found = [c for c in text if c in '<>=']
    if found not in (['<'], ['>']):
        raise bad(text, 'needs exactly one comparison, ' + comparisons)
    comparison = found[0]
    left, right = [part.strip() for part in text.split(comparison)]
    try:
        name = metricnames.parse_metric(left)
    except ValueError as exc:
        raise bad(text, exc.args[0])
    return name, comparison, right.lower()


def _parse_objective(text):
    name, comparison, right = split_comparison(
        text, _bad, 'objective', '< or >, e.g. p99<200ms or rps>500')
    return Objective(cut(text), name, comparison,
                     _parse_limit(text, right, name))


def _parse_limit(text, right, name):
    match = _LIMIT_RE.match(right)
    if not match:
        raise _bad(text, 'the limit must be a number and its unit, e.g. '
                   '200ms, 0.1% or 500')
    number, unit = float(match.group(1)), match.group(2)
    if name.metric == 'errors':
        if unit != '%':
            raise _bad(text, 'an error limit is a percentage: %s%%'
                       % (cut(match.group(1)),))
        return number
    if name.metric == 'rps':
        if unit not in _RATE_UNITS:
            raise _bad(text, 'a rate limit is requests per second: %s'
                       % (cut(match.group(1)),))
        return number
    if unit not in _TIME_UNITS:
        raise _bad(text, 'a time needs its unit, one of us, ms, s: %sms'
                   % (cut(match.group(1)),))
    limit = number * _TIME_UNITS[unit]
    if limit < MIN_TIME_LIMIT:
        # Shown in whole microseconds, a smaller limit would read "0 us".
        raise _bad(text, 'a time limit must be at least 1us')
    return limit


def check_endpoints(objectives, count):
    """SloError (a usage error) for an objective naming an endpoint the
    run has not: endpoint[N] is the N-th of `count` storage URLs, and a
    run of one URL has none."""
    for objective in objectives:
        match = _ENDPOINT_INDEX.match(objective.name.operation)
        if match is None or (count > 1 and int(match.group(1)) < count):
            continue
        raise _bad(objective.text, 'the run has %s' % (
            'one storage URL: endpoint[N] names one of several (-S)'
            if count < 2 else 'endpoint[0] to endpoint[%d] only' % (
                count - 1)))


def check_document(doc, objectives):
    """check_endpoints() on the storage URLs of an analysis document."""
    check_endpoints(objectives, len(metricnames.endpoints_of(doc)))


def check_flags(objectives, storage_urls):
    """check_endpoints() before a run, when -S gave its storage URLs
    (auth may give several otherwise: the report checks those)."""
    if objectives and storage_urls:
        check_endpoints(objectives, len(storage_urls))


def percentiles_of(objectives):
    """The percentiles the objectives read, for the analysis to compute
    besides its own."""
    return metricnames.percentiles_of(obj.name for obj in objectives)


def describe(name):
    """A figure's name in words: 'read last-byte p99.9', 'total rps'."""
    words = [name.operation]
    if name.kind is not None:
        words.append(metricnames.KIND_LABELS[name.kind])
    words.append(name.metric.replace('_', '.'))
    return ' '.join(words)


def format_figure(value, name):
    """A figure as a person reads it, in the unit of its limit."""
    if name.metric == 'errors':
        return '%.3g%%' % (value,)
    if name.metric == 'rps':
        return '%.1f req/s' % (value,)
    if value < 1e-3:
        return '%.0f us' % (value * 1e6,)
    if value < 1:
        return '%.1f ms' % (value * 1e3,)
    return '%.3f s' % (value,)


def verdict(doc, objective):
    """(MET, MISSED or TOO_FEW, the figure or None, None when met, else
    the one line saying why not) of one objective on an analysis
    document."""
    op = metricnames.operations_of(doc).get(objective.name.operation)
    what = describe(objective.name)
    if op is None:
        return MISSED, None, '%s: %s has no results' % (
            objective.text, objective.name.operation)
    value = metricnames.value_of(op, objective.name)
    percentile = objective.name.percentile()
    count = metricnames.all_sizes(op, objective.name.kind).get('count') \
        if percentile is not None else None
    if tailsize.too_few(count, percentile):
        return TOO_FEW, value, (
            '%s: too few results: %s has %d %s latencies, %s needs at '
            'least %d (neither met nor missed; a longer run has more)' % (
                objective.text, objective.name.operation, count or 0,
                metricnames.KIND_LABELS[objective.name.kind],
                objective.name.metric.replace('_', '.'),
                tailsize.needed(percentile)))
    if value is None:
        return MISSED, None, '%s: %s is missing (no successful requests?)' \
            % (objective.text, what)
    limit = objective.limit
    held = value <= limit if objective.comparison == '<' else \
        value >= limit
    if held:
        return MET, value, None
    return MISSED, value, '%s: %s is %s, the objective %s %s' % (
        objective.text, what, format_figure(value, objective.name),
        objective.comparison, format_figure(limit, objective.name))


def _lines(doc, objectives, state):
    lines = []
    for objective in objectives:
        found, _, line = verdict(doc, objective)
        if found == state:
            lines.append(line)
    return lines


def missed(doc, objectives):
    """One line per objective the document does not meet; [] when it
    meets them all (or has too few results for some: too_few())."""
    return _lines(doc, objectives, MISSED)


def too_few(doc, objectives):
    """One line per percentile objective the document has too few
    results to judge (ssbench.report.compute.tailsize)."""
    return _lines(doc, objectives, TOO_FEW)

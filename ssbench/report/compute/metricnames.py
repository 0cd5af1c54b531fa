"""The names of a run's figures, as --fail-if and --slo rules write them.

    NAME   = [OP "."] [KIND "."] METRIC
    OP     = total (default) | create | read | update | delete | head | list
             | endpoint[N] (all requests to the N-th storage URL, from 0,
             of a run of several: the JSON's "endpoints")
    KIND   = last_byte (default) | first_byte     (latency metrics only)
    METRIC = rps | pN (a percentile above 0 and at most 100: p50, p99.9
             or p99_9) | max | avg | errors

Letter case and spaces do not matter; digits are ASCII digits.  value_of()
reads a named figure from an analysis document (format_version 1).
"""
from __future__ import absolute_import, division, print_function

import collections
import re

from ssbench.measure.rank import percentile_name
from ssbench.report.compute.cells import GROUPS

OPERATIONS = tuple(key for _, key, _ in GROUPS)
# The analysis's percentiles when no one asks for others.
DEFAULT_PERCENTILES = (50, 90, 95, 99, 99.9)
KINDS = ('last_byte', 'first_byte')
# A kind as messages and tables write it.
KIND_LABELS = {'last_byte': 'last-byte', 'first_byte': 'first-byte'}
LATENCY_METRICS = ('max', 'avg')

_OPERATION_RE = re.compile(r'(%s)\.' % '|'.join(OPERATIONS))
_ENDPOINT_RE = re.compile(r'endpoint\[([0-9]+)\]\.')
# An endpoint's name, from its index (ssbench.report.compute.endpoints).
ENDPOINT = 'endpoint[%d]'
_KIND_RE = re.compile(r'(first_byte|last_byte)\.')
# [0-9], not \d: Python 3's \d takes any Unicode digit, so a full-width
# "p\uff19\uff19" would pass for p99.
_METRIC_RE = re.compile(r'(rps|max|avg|errors|p([0-9]+(?:[._][0-9]+)?))$')
# A name, a --fail-if rule or an --slo objective is quoted in messages up
# to this many characters.
SHOWN = 60


class MetricName(collections.namedtuple('MetricName',
                                        'operation kind metric')):
    """A parsed figure name: kind is None unless metric is a latency
    (a percentile key such as 'p99_9', 'max' or 'avg')."""
    __slots__ = ()

    def percentile(self):
        """The percentile (a number) a pN metric reads, else None."""
        if not self.metric.startswith('p'):
            return None
        number = float(self.metric[1:].replace('_', '.'))
        return int(number) if number == int(number) else number


def cut(text):
    """`text` as a message quotes it: cut to SHOWN characters."""
    return text if len(text) <= SHOWN else text[:SHOWN - 3] + '...'


def parse_metric(text):
    """A MetricName from `text` (already stripped); ValueError saying what
    is wrong when it names no figure."""
    left = text.lower()
    operation = 'total'
    match = _OPERATION_RE.match(left)
    if match:
        operation = match.group(1)
        left = left[match.end():]
    else:
        match = _ENDPOINT_RE.match(left)
        if match:
            operation = ENDPOINT % int(match.group(1))
            left = left[match.end():]
    kind = None
    match = _KIND_RE.match(left)
    if match:
        kind = match.group(1)
        left = left[match.end():]
    match = _METRIC_RE.match(left)
    if not match:
        raise ValueError(
            "unknown metric '%s'; write [OP.][first_byte.]METRIC, OP one "
            "of %s/endpoint[N], METRIC one of rps/pN/max/avg/errors (pN: "
            "p50, p99.9, ...)" % (cut(left), '/'.join(OPERATIONS)))
    metric = match.group(1)
    if match.group(2) is not None:
        number = float(match.group(2).replace('_', '.'))
        if not 0 < number <= 100:
            raise ValueError('percentile %s is not above 0 and at most 100'
                             % match.group(2))
        metric = percentile_name(number, '_')
    if metric in ('rps', 'errors'):
        if kind is not None:
            raise ValueError('%s. applies only to latency metrics '
                             '(pN, max, avg)' % kind)
    elif kind is None:
        kind = 'last_byte'
    return MetricName(operation, kind, metric)


def percentiles_of(names):
    """The percentiles (numbers) that MetricNames read, each once, for
    the analysis to compute besides its own."""
    out = []
    for name in names:
        number = name.percentile()
        if number is not None and number not in out:
            out.append(number)
    return out


def operations_of(doc):
    """{operation: its map} of an analysis document, its endpoints'
    maps (as endpoint[N]) among them."""
    return dict((op['operation'], op) for op in (
        doc.get('operations') or []) + endpoints_of(doc))


def endpoints_of(doc):
    """The endpoints' maps of an analysis document ([] without them)."""
    return list((doc.get('endpoints') or {}).get('endpoints') or [])


def error_rate(op):
    """Failed requests of an operation's map in percent of all its
    requests, or None without any."""
    requests = (op.get('count') or 0) + (op.get('errors') or 0)
    if not requests:
        return None
    return (op.get('errors') or 0) / requests * 100.0


def all_sizes(op, kind):
    """The all-sizes latency entry of `kind` of an operation's map."""
    for entry in (op.get('latency') or {}).get(kind) or []:
        if entry.get('size') is None:
            return entry
    return {}


def value_of(op, name):
    """The figure `name` (a MetricName) of an operation's map: req/s,
    the error rate in percent, or seconds; None where the run has none."""
    if name.metric == 'rps':
        return op.get('req_per_s')
    if name.metric == 'errors':
        return error_rate(op)
    return all_sizes(op, name.kind).get(name.metric)

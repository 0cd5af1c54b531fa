"""The figures of a suite's steps and the suite document (--json of
run-suite).

step_figures() reads one step's analysis document (format_version 1,
ssbench.report.compute.analyze) into the figures a curve needs: offered
and achieved rate, p50/p99/p99.9 of last-byte latency, errors and their
share, MB/s and the client's health, for all requests and per operation,
and for a --rate run the master's schedule: the jobs due and sent per
second and those due but never sent (ssbench.report.compute.openloop).
ssbench.report.render.suitetable and suitehtml show them.
"""
from __future__ import absolute_import, division, print_function

import collections

from ssbench.measure.rank import percentile_name
from ssbench.report.compute import metricnames

FORMAT = 'ssbench-suite'
FORMAT_VERSION = 1
PERCENTILES = (50, 99, 99.9)
KEYS = tuple(percentile_name(p, '_') for p in PERCENTILES)


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


def offered_seconds(doc):
    """The seconds a --rate run offered its load over, or None (a
    closed loop, an older file): the longest of the schedule's span and
    its jobs due at its rate (n jobs of a uniform schedule at r per
    second start at 0 and are n / r seconds of load, a little more than
    the span they are due in).  Its successes per second over at least
    these seconds never exceed the rate offered; over their own span
    (from the first start to the last completion: the fence-post of n
    results over n - 1 gaps and one latency) 3 results at 1.09/s read
    1.34/s."""
    schedule = (doc.get('open_loop') or {}).get('schedule') or {}
    seconds, intended = schedule.get('seconds'), schedule.get('intended')
    rate = schedule.get('rate') or (doc.get('header') or {}).get('rate')
    spans = [value for value in (
        seconds, intended / rate if intended and rate else None)
        if isinstance(value, (int, float)) and value > 0]
    return max(spans) if spans else None


def _achieved(op, offered):
    """Successes per second: the document's own, or in a --rate run
    over at least the `offered` seconds."""
    rate = op.get('req_per_s')
    if offered is None or not op.get('count'):
        return rate
    span = (op.get('stop') or 0) - (op.get('start') or 0)
    return op['count'] / max(span, offered)


def _operation_figures(op, bandwidth, offered=None):
    latency = metricnames.all_sizes(op, 'last_byte')
    count, errors = op.get('count') or 0, op.get('errors') or 0
    return collections.OrderedDict([
        ('count', count), ('errors', errors),
        ('error_share', metricnames.error_rate(op)),
        ('req_per_s', _achieved(op, offered)),
        ('latency', collections.OrderedDict(
            (key, latency.get(key)) for key in KEYS)),
        ('MB_per_second', (bandwidth or {}).get('MB_per_second')),
    ])


def schedule_figures(doc):
    """{'intended_rate', 'achieved_rate', 'unsent'} of a --rate run's
    schedule record (jobs due and sent per second, jobs due by the end
    of -r and never sent), or None when the document has none (a closed
    loop, an older file)."""
    schedule = (doc.get('open_loop') or {}).get('schedule') or {}
    if schedule.get('achieved_rate') is None:
        return None
    return collections.OrderedDict(
        (key, schedule.get(key))
        for key in ('intended_rate', 'achieved_rate', 'unsent'))


def step_figures(doc):
    """{'offered': jobs/s of a --rate run or None, 'schedule':
    schedule_figures, 'health': health_word, 'start_time': the run's
    first request start (epoch seconds, None without results),
    'operations': {operation: figures}} of one step's document."""
    header = doc.get('header') or {}
    bandwidth = (doc.get('bandwidth') or {}).get('operations') or {}
    operations = collections.OrderedDict()
    offered = offered_seconds(doc)
    for op in doc.get('operations') or []:
        name = op['operation']
        operations[name] = _operation_figures(op, bandwidth.get(name),
                                              offered)
    return collections.OrderedDict([
        ('offered', header.get('rate')),
        ('schedule', schedule_figures(doc)),
        ('health', health_word(doc)),
        ('start_time', (doc.get('run') or {}).get('start_time')),
        ('operations', operations)])


def _total_rate(step):
    return (_total(step) or {}).get('req_per_s') or 0


def best_step(doc):
    """(The step a suite's page opens with, why it): the capacity
    search's highest rate met; else the highest throughput among the
    steps that met the --slo objectives, or of all the steps; (None,
    None) without a step with results."""
    steps = [step for step in doc['steps'] if _total(step)]
    if not steps:
        return None, None
    search = doc.get('search')
    met = [step for step in steps if not step.get('slo') and
           not step.get('slo_too_few')]
    if search is not None:
        rate = search.get('highest_met')
        found = [step for step in steps if rate is not None and
                 step['figures'].get('offered') == rate]
        if found:
            return found[-1], 'the highest rate that met the objectives'
        return (max(steps, key=_total_rate), 'no rate met the objectives; '
                'the highest throughput')
    if any('slo' in step for step in steps):
        if met:
            return (max(met, key=_total_rate),
                    'the highest throughput that met the objectives')
        return (max(steps, key=_total_rate), 'no step met the objectives; '
                'the highest throughput')
    return max(steps, key=_total_rate), 'the highest throughput'


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


def compare_suites(base, this):
    """Two suite documents curve against curve: one row per step of this
    suite, paired with the base's step of the same values (else of the
    same number): {'step', 'label', 'base', 'this'} with each side's
    total figures (None where that suite lacks the step)."""
    by_label = dict((step.get('label'), step) for step in base['steps'])
    by_number = dict((step.get('step'), step) for step in base['steps'])
    rows = []
    for step in this['steps']:
        other = by_label.get(step.get('label')) if step.get('label') \
            else None
        if other is None:
            other = by_number.get(step.get('step'))
        rows.append({'step': step['step'], 'label': step.get('label'),
                     'base': _total(other), 'this': _total(step)})
    return rows


def _total(step):
    figures = (step or {}).get('figures') or {}
    return (figures.get('operations') or {}).get('total')

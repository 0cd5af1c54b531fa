"""The "open_loop" part of the analysis document of a --rate run.

The document's own latencies are then response times (from each job's
intended start); this part says so and adds what the master's schedule
recorded and the service times (from the actual send), per operation and
size class in the shape of the document's "latency" entries:

    rate, arrival        the schedule (jobs/s in all; uniform | poisson)
    latency              "response_time": what the document's latencies are
    schedule             the master's record: sent, cap_waits (jobs that
                         found user_count in flight and waited), send_lag
                         (count, mean, max, p50, p90, p99, p99.9 seconds)
                         or None when the run stored none; from ssbench
                         1.x also intended (sent + unsent), seconds (the
                         schedule's span), intended_rate and
                         achieved_rate (jobs/s), and for a timed (-r)
                         run unsent (jobs due by its deadline and never
                         sent) and unsent_wait (how long they had waited
                         by then: count, mean, max, p50 .. p99.9)
    service_time         {"operations": [{"operation", "count", "latency"}]}
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import text_type
from ssbench.measure.finite import is_finite
from ssbench.results.recordview import controls_of_kind
from ssbench.load.schedule import SCHEDULE_RECORD


def open_loop(header):
    """True for the stats file of a --rate run."""
    rate = header.get('rate')
    return isinstance(rate, (int, float)) and rate > 0


def schedule_of(controls):
    """The schedule record among `controls` (without its kind), or
    None."""
    schedules = controls_of_kind(controls, SCHEDULE_RECORD)
    if not schedules:
        return None
    return dict((k, v) for k, v in schedules[-1].items() if k != 'kind')


def accounting_line(schedule):
    """The text report's line on how many jobs were due and sent, at
    what rates; None when the record does not say (an older file)."""
    schedule = schedule or {}
    keys = ('intended', 'intended_rate', 'sent', 'achieved_rate')
    if not all(is_finite(schedule.get(key)) for key in keys):
        return None
    line = ('Open loop: %d jobs due (%.1f/s intended), %d sent (%.1f/s '
            'achieved)' % tuple(schedule[key] for key in keys))
    wait = schedule.get('unsent_wait')
    if is_finite(schedule.get('unsent')) and isinstance(wait, dict):
        line += ', %d due but not sent by the deadline' % (
            schedule['unsent'],)
        if schedule['unsent'] and is_finite(wait.get('max')) and \
                is_finite(wait.get('p50')):
            line += ' (waited p50 %.3f s, max %.3f s)' % (
                wait['p50'], wait['max'])
    return line


def section(header, service_doc, controls):
    """The "open_loop" map (see the module docstring)."""
    schedule = schedule_of(controls)
    arrival = header.get('arrival')
    return {
        'rate': header.get('rate'),
        'arrival': arrival if isinstance(arrival, text_type) else None,
        'latency': 'response_time',
        'schedule': schedule,
        'service_time': {'operations': [
            {'operation': op['operation'], 'count': op['count'],
             'latency': op['latency']}
            for op in service_doc['operations']]},
    }

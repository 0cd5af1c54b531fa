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
                         or None when the run stored none
    service_time         {"operations": [{"operation", "count", "latency"}]}
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import text_type
from ssbench.results.recordview import controls_of_kind
from ssbench.load.schedule import SCHEDULE_RECORD


def section(header, service_doc, controls):
    """The "open_loop" map (see the module docstring)."""
    schedules = controls_of_kind(controls, SCHEDULE_RECORD)
    schedule = None
    if schedules:
        schedule = dict((k, v) for k, v in schedules[-1].items()
                        if k != 'kind')
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

"""The document's "events" (ssbench.report.compute.timeline): stored
events, client saturation from health records, first failures."""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute import timeline
from ssbench.results import eventrecords, healthrecords


def health(worker_id, at, lag=0.001, cpu=0.1):
    return {'kind': healthrecords.HEALTH_RECORD, 'worker_id': worker_id,
            'at': at, 'window': 1.0, 'cpu': cpu, 'loop_lag': lag,
            'waiting': 0, 'in_flight': 0}


def test_saturation_is_a_stretch_of_own_cause_windows():
    slow = dict(lag=0.05, cpu=0.6)      # lagging on its own CPU
    records = ([health(1, t) for t in (1, 2)] +
               [health(1, t, **slow) for t in (3, 4, 5)] +
               [health(1, 6)] + [health(1, 7, **slow)] +
               [health(1, t) for t in (8, 9, 10, 11)] +
               # one slow window is noise, not an event
               [health(2, 3, **slow)] + [health(2, t) for t in (4, 5, 6)] +
               # still saturated at the end: no end
               [health('master', t, cpu=0.95) for t in (20, 21)])
    assert sorted(timeline.saturation(records), key=str) == sorted([
        (2.0, 'saturation_began', 1), (7.0, 'saturation_ended', 1),
        (19.0, 'saturation_began', 'master')], key=str)


def test_a_busy_host_is_no_saturation():
    records = [dict(health(1, t, lag=0.05, cpu=0.1), run_delay=0.04)
               for t in (1, 2, 3)]
    assert timeline.saturation(records) == []


def test_first_failure_of_each_cause_over_every_operation():
    causes = [
        {'operation': 'read', 'cause': 'HTTP 503', 'first_seen': 30.0},
        {'operation': 'create', 'cause': 'HTTP 503', 'first_seen': 20.0},
        {'operation': 'read', 'cause': 'timeout', 'first_seen': 25.0},
        {'operation': 'read', 'cause': 'not recorded', 'first_seen': None}]
    assert sorted(timeline.first_failures(causes)) == [
        (20.0, 'HTTP 503', 'create'), (25.0, 'timeout', 'read')]


def test_section_merges_in_time_order_relative_to_the_start():
    controls = [eventrecords.record('mark', None, 'pulled disk 3', 112.5),
                eventrecords.record('worker_lost', 2, None, 105.0)]
    doc = {'run': {'start_time': 100.0}, 'errors': {'causes': [
        {'operation': 'read', 'cause': 'HTTP 503', 'first_seen': 110.0}]}}
    assert timeline.section(controls, doc) == [
        {'time': 5.0, 'at': 105.0, 'kind': 'worker_lost', 'worker': 2,
         'text': None},
        {'time': 10.0, 'at': 110.0, 'kind': 'first_failure',
         'worker': None, 'text': 'HTTP 503 (read)'},
        {'time': 12.5, 'at': 112.5, 'kind': 'mark', 'worker': None,
         'text': 'pulled disk 3'}]
    doc['run']['start_time'] = None
    assert [e['time'] for e in timeline.section(controls, doc)] == [
        None] * 3
    assert timeline.section([], {}) == []


def test_section_keeps_the_earliest_max_events(monkeypatch):
    monkeypatch.setattr(timeline, 'MAX_EVENTS', 2)
    controls = [eventrecords.record('mark', None, 'm%d' % n, 100.0 - n)
                for n in range(5)]
    assert [e['text'] for e in timeline.section(controls, {})] == [
        'm4', 'm3']


def test_describe():
    def event(kind, worker=None, text=None):
        return {'kind': kind, 'worker': worker, 'text': text}
    assert [timeline.describe(e) for e in (
        event('mark', text='pulled disk 3'), event('worker_lost', 2),
        event('worker_joined', 3, 'pid 9 on h'),
        event('saturation_began', 'master'),
        event('saturation_ended', 1),
        event('first_failure', text='HTTP 503 (read)'),
        event('token_renewed', text='generation 2, near its expiry'))] == [
        'mark: pulled disk 3', 'worker 2 lost',
        'worker 3 joined: pid 9 on h', 'master saturated',
        'worker 1 no longer saturated', 'first failure: HTTP 503 (read)',
        'token renewed: generation 2, near its expiry']

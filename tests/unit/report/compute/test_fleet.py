"""The document's workers list: who was there at the start, who joined,
was lost and came back, and what each one did."""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute import fleet
from ssbench.results import eventrecords

START = 1000.0
HEADER = {'workers': [{'worker_id': 1, 'host': 'a', 'pid': 10,
                       'version': '0.4.0', 'protocol': 2,
                       'concurrency': 4}]}


def events(*entries):
    """eventrecords.events() of (event, worker_id, at, text) records."""
    return eventrecords.events([
        eventrecords.record(event, worker_id, text, START + at)
        for event, worker_id, at, text in entries])


def by_id(workers):
    return dict((w['worker_id'], w) for w in workers)


def test_a_worker_there_at_the_start_restarted_lost_and_back():
    found = events(
        (eventrecords.WORKER_LOST, 1, 30.0, None),
        (eventrecords.WORKER_BACK, 1, 41.5, None),
        (eventrecords.WORKER_JOINED, 1, 60.0, 'pid 11 on a'),
        (eventrecords.MARK, None, 5.0, 'pulled disk 3'),
        (eventrecords.TOKEN_RENEWED, None, 7.0, 'generation 2'))
    clock = {'workers': [{'worker_id': 1, 'offset': 0.01}]}
    (worker,) = fleet.section(HEADER, clock, found, {1: 90}, {1: 3}, START)
    assert worker == {
        'worker_id': 1, 'host': 'a', 'pid': 10, 'version': '0.4.0',
        'protocol': 2, 'concurrency': 4, 'clock_offset': 0.01,
        'at_start': True, 'joined': None, 'rejoined': [60.0],
        'lost': [30.0], 'back': [41.5], 'results': 90, 'errors': 3}


def test_a_worker_that_joined_late_and_was_restarted():
    found = events(
        (eventrecords.WORKER_JOINED, 2, 0.25, 'pid 20 on b'),
        (eventrecords.WORKER_JOINED, 2, 12.0, 'pid 21 on b'))
    clock = {'workers': [{'worker_id': 2, 'offset': -0.5}]}
    workers = fleet.section(HEADER, clock, found, {1: 5, 2: 7}, {}, START)
    assert [w['worker_id'] for w in workers] == [1, 2]
    late = by_id(workers)[2]
    # Its first process as the join event named it; no header entry.
    assert (late['host'], late['pid'], late['version']) == ('b', 20, None)
    assert late['clock_offset'] == -0.5
    assert (late['at_start'], late['joined'], late['rejoined']) == (
        False, 0.25, [12.0])
    assert (late['results'], late['errors']) == (7, 0)
    assert by_id(workers)[1]['rejoined'] == []


def test_a_worker_known_only_by_its_results_or_failures():
    workers = fleet.section(HEADER, None, [], {1: 1, 3: 0}, {3: 2}, START)
    third = by_id(workers)[3]
    assert third['at_start'] is False and third['joined'] is None
    assert (third['results'], third['errors']) == (0, 2)
    assert third['lost'] == third['back'] == third['rejoined'] == []


def test_a_03x_file_lists_workers_by_results_and_says_no_more():
    # No header list, no event: when workers came and went is unknown.
    workers = fleet.section({}, None, [], {b'w2': 4, 0: 6}, {0: 1}, START)
    assert [w['worker_id'] for w in workers] == [0, u'w2']
    for worker in workers:
        assert worker['at_start'] is None and worker['joined'] is None
        assert worker['rejoined'] is worker['lost'] is worker['back'] \
            is None
        assert worker['host'] is None
    assert [(w['results'], w['errors']) for w in workers] == [(6, 1), (4, 0)]


def test_no_worker_known_no_list():
    assert fleet.section({}, None, [], {}, {}, START) is None
    assert fleet.section({}, None, events(
        (eventrecords.MARK, None, 1.0, 'x')), {}, {}, None) is None


def test_without_a_start_time_the_times_are_unknown():
    found = events((eventrecords.WORKER_LOST, 1, 3.0, None))
    (worker,) = fleet.section(HEADER, None, found, {}, {}, None)
    assert worker['lost'] == [None] and worker['results'] == 0


def test_each_list_keeps_the_earliest_times():
    found = events(*[(eventrecords.WORKER_LOST, 1, float(i), None)
                     for i in range(fleet.MAX_TIMES + 5)])
    (worker,) = fleet.section(HEADER, None, found, {}, {}, START)
    assert worker['lost'] == [float(i) for i in range(fleet.MAX_TIMES)]


def test_a_join_text_of_another_shape_leaves_host_and_pid_unknown():
    found = events((eventrecords.WORKER_JOINED, 5, 1.0, 'hello'))
    worker = by_id(fleet.section(HEADER, None, found, {}, {}, START))[5]
    assert worker['host'] is None and worker['pid'] is None
    assert worker['joined'] == 1.0

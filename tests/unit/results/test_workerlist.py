"""The stats header's list of workers, and the report's view of it."""
from __future__ import absolute_import, division, print_function

from ssbench.results import workerlist


def test_entries_list_each_worker_with_what_it_said():
    identities = {3: {'protocol': 1, 'host': 'a', 'pid': 10,
                      'version': '0.4.0', 'concurrency': 8,
                      'configured': True},
                  4: {'protocol': 1}}
    assert workerlist.entries(identities, [3, 4, 5]) == [
        {'worker_id': 3, 'protocol': 1, 'host': 'a', 'pid': 10,
         'version': '0.4.0', 'concurrency': 8},
        {'worker_id': 4, 'protocol': 1},
        {'worker_id': 5}]


def test_section_joins_clock_offsets():
    header = {'workers': [{'worker_id': 3, 'host': 'a', 'pid': 10,
                           'version': '0.4.0', 'protocol': 1,
                           'concurrency': 8},
                          {'worker_id': 4, 'host': 'b'}]}
    clock = {'workers': [{'worker_id': 3, 'offset': 0.25}]}
    workers = workerlist.section(header, clock)
    assert workers == [
        {'worker_id': 3, 'host': 'a', 'pid': 10, 'version': '0.4.0',
         'protocol': 1, 'concurrency': 8, 'clock_offset': 0.25},
        {'worker_id': 4, 'host': 'b', 'pid': None, 'version': None,
         'protocol': None, 'concurrency': None, 'clock_offset': None}]
    assert workerlist.host_count(workers) == 2


def test_section_of_a_header_without_workers_or_with_junk():
    assert workerlist.section({}) is None
    assert workerlist.section({'workers': 'x'}) is None
    assert workerlist.section('not a map') is None
    junk = {'workers': [1, None, {'worker_id': True}, {'host': 'h'},
                        {'worker_id': 'w', 'pid': -1, 'host': 'h' * 300,
                         'concurrency': 1.5, 'version': 7}]}
    assert workerlist.section(junk) == [
        {'worker_id': 'w', 'host': None, 'pid': None, 'version': None,
         'protocol': None, 'concurrency': None, 'clock_offset': None}]

"""Segmented size classes: the scenario keys, --segment-size and the keys
their jobs carry."""
from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench import CREATE_OBJECT, DELETE_OBJECT
from ssbench.errors import ScenarioError
from ssbench.load import jobgen
from ssbench.load.objectring import ObjectRing
from ssbench.load.scenario import MAX_OBJECT_SIZE, Scenario
from ssbench.wire import protocol
from ssbench.wire.messagecheck import check_from_master

GiB = 1024 ** 3


def wire(job):
    """`job` as a worker decodes it."""
    return protocol.unpack(protocol.pack(job))


def data(*sizes):
    return {'name': 'large', 'sizes': list(sizes),
            'initial_files': dict((s['name'], 2) for s in sizes),
            'crud_profile': [1, 1, 1, 1], 'operation_count': 50,
            'user_count': 2, 'container_count': 3}


def size(name, low, high, **extra):
    entry = {'name': name, 'size_min': low, 'size_max': high}
    entry.update(extra)
    return entry


def test_a_class_segment_size_and_kind():
    scenario = Scenario(data(size('big', 6 * GiB, 8 * GiB,
                                  segment_size=GiB, large_object='dlo'),
                             size('small', 1, 10)))
    big, small = scenario.sizes
    assert (big.segment_size, big.large_object) == (GiB, 'dlo')
    assert small.segment_size is None and small.large_object == 'slo'
    assert scenario.segmented


def test_the_command_line_segments_the_classes_above_it():
    scenario = Scenario(data(size('big', 1, 300), size('edge', 1, 100),
                             size('own', 1, 1000, segment_size=500),
                             size('huge', 1, 6 * GiB)),
                        {'segment_size': 100})
    assert [s.segment_size for s in scenario.sizes] == [100, None, 500, 100]
    assert not Scenario(data(size('small', 1, 10))).segmented


@pytest.mark.parametrize('entry, overrides, words', [
    (size('huge', 1, MAX_OBJECT_SIZE + 1), None,
     'sizes[0] ("huge"): "size_max" must be at most %d, not %d' % (
         MAX_OBJECT_SIZE, MAX_OBJECT_SIZE + 1)),
    (size('bad', 1, 10, segment_size=0), None,
     '"segment_size" must be an integer >= 1, not 0'),
    (size('bad', 1, 10, segment_size=6 * GiB), None,
     '"segment_size" must be at most %d' % MAX_OBJECT_SIZE),
    (size('bad', 1, 10, segment_size=4, large_object='mlo'), None,
     '"large_object" must be "slo" or "dlo", not "mlo"'),
    (size('zero', 0, 10, segment_size=4), None,
     '"size_min" must be at least 1 for a segmented class, not 0'),
    (size('a', 1, 10), {'segment_size': -1},
     'segment_size from the command line must be an integer >= 1'),
])
def test_bad_segment_settings_are_one_line(entry, overrides, words):
    with pytest.raises(ScenarioError) as info:
        Scenario(data(entry), overrides, source='s.json')
    assert words in str(info.value)
    assert '\n' not in str(info.value)


def test_jobs_of_segmented_classes_carry_the_keys_workers_accept():
    scenario = Scenario(data(size('big', 10, 30, segment_size=8),
                             size('small', 1, 5)))
    initial = list(jobgen.initial_jobs(scenario, random.Random(1)))
    ring = ObjectRing()
    ring.load(jobgen.initial_objects(scenario))
    bench = list(jobgen.bench_jobs(scenario, random.Random(2), ring))
    for job in initial + bench:
        if job['size_str'] == 'big':
            assert (job['segment_size'], job['large_object']) == (8, 'slo')
        else:
            assert 'segment_size' not in job and 'large_object' not in job
        job['job_id'] = 1
        assert check_from_master(wire(job)) is None
    creates = [j for j in bench if j['type'] == CREATE_OBJECT and
               j['size_str'] == 'big']
    assert creates
    for job in creates:
        ring.on_results([dict(job, completed_at=1.0, last_byte_latency=0.1)])
    cleanup = list(jobgen.cleanup_jobs(ring.pop_created(), scenario=scenario))
    assert cleanup and all(j['type'] == DELETE_OBJECT for j in cleanup)
    assert all(j.get('segment_size') == 8 for j in cleanup
               if j['size_str'] == 'big')


@pytest.mark.parametrize('extra, fault', [
    ({'segment_size': 0, 'large_object': 'slo'}, 'bad large object'),
    ({'segment_size': 5, 'large_object': 'xlo'}, 'bad large object'),
    ({'segment_size': 5}, 'bad large object'),
    ({'segment_size': '5', 'large_object': 'slo'}, 'bad segment_size'),
])
def test_workers_refuse_bad_large_object_keys(extra, fault):
    job = {'type': CREATE_OBJECT, 'size_str': 'a', 'container': 'c',
           'name': 'a_000001', 'size': 10, 'job_id': 1}
    job.update(extra)
    assert check_from_master(wire(job))[0] == fault

"""ssbench.load.jobgen: initial population, the job mix, the object ring,
cleanup."""
from __future__ import absolute_import, division, print_function

import collections
import logging
import math
import os
import random

import pytest

from ssbench.load import seeds
from ssbench import (CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT,
                     DELETE_OBJECT, CRUD_TYPES, HEAD_OBJECT, LIST_CONTAINER)
from ssbench.load.jobgen import (FORCE, WAIT, WAIT_AFTER_BUSY, bench_jobs,
                                 cleanup_jobs, initial_jobs, initial_objects,
                                 object_name)
from ssbench.load.objectring import ObjectRing
from ssbench.load.scenario import Scenario, load_scenario
from tests import paths
from tests.clocks import FakeClock

ROOT = paths.ROOT
VERY_SMALL = os.path.join(ROOT, 'scenarios', 'very_small.scenario')

C, R, U, D = CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT
JOB_KEYS = set(['type', 'size_str', 'container', 'name', 'size',
                'block_size', 'delete_after', 'head_first', 'noop'])


def make(sizes=None, initial=None, crud=(1, 1, 1, 1), **extra):
    """A scenario from a compact description; sizes: name -> (min, max[,
    own crud profile])."""
    sizes = sizes or collections.OrderedDict([('a', (1, 1))])
    if not isinstance(crud, dict):
        crud = list(crud)
    data = {'name': 'Jobs test', 'sizes': [], 'crud_profile': crud,
            'initial_files': initial or dict((n, 1) for n in sizes),
            'operation_count': 100, 'user_count': 4, 'container_count': 5}
    for name, spec in sizes.items():
        entry = {'name': name, 'size_min': spec[0], 'size_max': spec[1]}
        if len(spec) > 2:
            entry['crud_profile'] = list(spec[2])
        data['sizes'].append(entry)
    overrides = {}
    for key in ('operation_count', 'run_seconds', 'delete_after',
                'block_size', 'container_count', 'policy'):
        if key in extra:
            overrides[key] = extra.pop(key)
    data.update(extra)
    return Scenario(data, overrides)


def populated(scenario):
    """A ring holding the scenario's initial population."""
    ring = ObjectRing()
    ring.load(initial_objects(scenario))
    return ring


def names(ring, size_str='a'):
    """The object names of a class in the ring, head first."""
    return [ring._decode(size_str, code)[1]
            for code in ring._rings[size_str]]


def succeed(job):
    """The result record a worker would send back for `job`."""
    result = dict(job)
    result.update(worker_id=0, completed_at=1.0, first_byte_latency=None,
                  last_byte_latency=0.01, trans_id='tx', retries=0)
    return result


def fail(job):
    result = dict(job)
    result.update(worker_id=0, completed_at=1.0, exception='boom',
                  traceback='...', retries=10)
    return result


# -- initial population --------------------------------------------------

def test_object_name():
    assert object_name('tiny', 7) == 'tiny_000007'
    assert object_name('tiny', 1234567) == 'tiny_1234567'


def test_initial_objects_interleave_classes_round_robin():
    scenario = load_scenario(VERY_SMALL)
    objects = list(initial_objects(scenario))
    assert len(objects) == 410
    c = scenario.containers
    assert objects[:6] == [
        ('zero', c[0], 'zero_000001'), ('tiny', c[1], 'tiny_000001'),
        ('small', c[2], 'small_000001'), ('zero', c[3], 'zero_000002'),
        ('tiny', c[4], 'tiny_000002'), ('small', c[5], 'small_000002')]
    # After small's 10 objects, zero and tiny alternate; then zero alone.
    assert [o[0] for o in objects[30:34]] == ['zero', 'tiny', 'zero', 'tiny']
    assert objects[30][2] == 'zero_000011'
    assert all(o[0] == 'zero' for o in objects[210:])
    assert objects[-1] == ('zero', c[409 % 100], 'zero_000300')
    # One container cursor across the whole sequence.
    assert [o[1] for o in objects] == [c[i % 100] for i in range(410)]
    counts = collections.Counter(o[0] for o in objects)
    assert counts == {'zero': 300, 'tiny': 100, 'small': 10}
    assert len(set(o[2] for o in objects)) == 410


def test_initial_objects_skip_unused_classes_and_keep_file_order():
    scenario = make(collections.OrderedDict([
        ('b', (1, 2)), ('a', (1, 2)), ('c', (1, 2))]),
        initial={'a': 2, 'b': 1, 'c': 0}, container_count=2)
    assert list(initial_objects(scenario)) == [
        ('b', 'ssbench_000000_default_policy', 'b_000001'),
        ('a', 'ssbench_000001_default_policy', 'a_000001'),
        ('a', 'ssbench_000000_default_policy', 'a_000002')]


def test_initial_jobs():
    scenario = load_scenario(VERY_SMALL, {'block_size': 1024,
                                          'delete_after': 60})
    jobs = list(initial_jobs(scenario, random.Random(1)))
    assert [(j['size_str'], j['container'], j['name']) for j in jobs] == \
        list(initial_objects(scenario))
    for job in jobs:
        assert set(job) == set(['type', 'size_str', 'container', 'name',
                                'size', 'block_size', 'head_first'])
        assert job['type'] == C
        assert job['head_first'] is True
        assert job['block_size'] == 1024
        size = scenario.size(job['size_str'])
        assert size.size_min <= job['size'] <= size.size_max
    # Only the sizes are random.
    again = list(initial_jobs(scenario, random.Random(2)))
    assert [dict(j, size=0) for j in jobs] == [dict(j, size=0) for j in again]
    assert jobs != again
    assert list(initial_jobs(scenario, random.Random(1))) == jobs
    assert len(list(initial_jobs(scenario))) == 410


def test_cleanup_jobs():
    ring = ObjectRing()
    ring.load([('a', 'c0', 'a_000001')])
    ring.add('a', 'c1', 'a_000002')
    assert list(cleanup_jobs(ring.pop_created())) == [
        {'type': D, 'size_str': 'a', 'container': 'c1', 'name': 'a_000002'}]
    assert list(cleanup_jobs(ring.pop_created())) == []
    ring.add('a', 'c1', 'a_000003')
    assert list(cleanup_jobs(ring.pop_created(), noop=True)) == [
        {'type': D, 'size_str': 'a', 'container': 'c1', 'name': 'a_000003',
         'noop': True}]


# -- benchmark jobs ------------------------------------------------------

def test_job_mix_matches_expected_shares():
    scenario = load_scenario(VERY_SMALL, {'operation_count': 100000})
    jobs = list(bench_jobs(scenario, random.Random(1), ObjectRing(),
                           noop=True))
    total = len(jobs)
    assert total == 100000
    seen = collections.Counter((j['size_str'], j['type']) for j in jobs)
    total_initial = sum(size.initial_count for size in scenario.sizes)
    weights = dict((size.name, size.initial_count / total_initial)
                   for size in scenario.sizes)
    for size_name, share in weights.items():
        profile = scenario.size(size_name).crud_profile
        for crud_type, weight in zip(CRUD_TYPES, profile):
            p = share * weight / sum(profile)
            expected = total * p
            sigma = math.sqrt(total * p * (1 - p))
            # 5 sigma: a fixed seed, but robust to the exact draw order.
            assert abs(seen[size_name, crud_type] - expected) <= \
                5 * sigma + 1e-9, (size_name, crud_type)
            if weight == 0:
                assert seen[size_name, crud_type] == 0
    sizes = collections.Counter(j['size_str'] for j in jobs)
    for size_name, share in weights.items():
        sigma = math.sqrt(total * share * (1 - share))
        assert abs(sizes[size_name] - total * share) <= 5 * sigma


def test_unused_classes_are_never_drawn():
    sizes = collections.OrderedDict([
        ('used', (1, 5)), ('zeroed', (1, 5)), ('absent', (1, 5)),
        ('rare', (1, 5))])
    scenario = make(sizes, initial={'used': 100, 'zeroed': 0, 'rare': 1},
                    operation_count=50000)
    jobs = list(bench_jobs(scenario, random.Random(3), ObjectRing(),
                           noop=True))
    sizes_seen = collections.Counter(j['size_str'] for j in jobs)
    assert set(sizes_seen) == set(['used', 'rare'])
    assert 300 <= sizes_seen['rare'] <= 700   # expected 495, sigma 22


def test_zero_weight_crud_types_are_never_drawn():
    scenario = make(crud=(0, 3, 0, 1), operation_count=5000)
    jobs = list(bench_jobs(scenario, random.Random(4), ObjectRing(),
                           noop=True))
    types = collections.Counter(j['type'] for j in jobs)
    assert set(types) == set([R, D])
    assert 3500 <= types[R] <= 4000


def test_job_keys_and_sizes():
    sizes = collections.OrderedDict([('a', (10, 12)), ('z', (0, 0))])
    scenario = make(sizes, initial={'a': 3, 'z': 3}, operation_count=3000,
                    block_size=512)
    jobs = list(bench_jobs(scenario, random.Random(5), ObjectRing(),
                           noop=True))
    seen_sizes = set()
    for job in jobs:
        assert set(job) <= JOB_KEYS
        assert job['block_size'] == 512
        assert job['noop'] is True
        assert 'delete_after' not in job
        assert 'head_first' not in job
        if job['type'] in (C, U):
            low, high = sizes[job['size_str']]
            assert low <= job['size'] <= high
            seen_sizes.add((job['size_str'], job['size']))
        else:
            assert 'size' not in job
    assert seen_sizes == set([('a', 10), ('a', 11), ('a', 12), ('z', 0)])


def test_delete_after_only_on_uploads():
    scenario = make(operation_count=400, delete_after=60)
    jobs = list(bench_jobs(scenario, random.Random(6), populated(scenario),
                           noop=True))
    for job in jobs:
        if job['type'] in (C, U):
            assert job['delete_after'] == 60
        else:
            assert 'delete_after' not in job
    assert 'noop' in jobs[0]


def test_not_noop_jobs_have_no_noop_key():
    scenario = make(crud=(1, 0, 0, 0), operation_count=10)
    jobs = list(bench_jobs(scenario, random.Random(1), ObjectRing()))
    assert all('noop' not in job for job in jobs)


def test_creates_are_numbered_after_the_largest_initial_count():
    sizes = collections.OrderedDict([('a', (1, 1)), ('b', (1, 1))])
    scenario = make(sizes, initial={'a': 7, 'b': 300}, crud=(1, 0, 0, 0),
                    operation_count=20, container_count=3)
    jobs = list(bench_jobs(scenario, random.Random(7), ObjectRing()))
    assert [int(j['name'].rsplit('_', 1)[1]) for j in jobs] == \
        list(range(301, 321))
    assert all(j['name'] == object_name(j['size_str'], 301 + i)
               for i, j in enumerate(jobs))
    assert set(j['container'] for j in jobs) <= set(scenario.containers)


def test_job_numbers_count_every_produced_job():
    scenario = load_scenario(VERY_SMALL, {'operation_count': 2000})
    jobs = list(bench_jobs(scenario, random.Random(8), populated(scenario),
                           noop=True))
    for number, job in enumerate(jobs, 301):
        if job['type'] == C:
            assert job['name'] == object_name(job['size_str'], number)


def test_create_containers_are_random_over_all_containers():
    scenario = make(crud=(1, 0, 0, 0), operation_count=5000,
                    container_count=10)
    jobs = list(bench_jobs(scenario, random.Random(9), ObjectRing()))
    per = collections.Counter(j['container'] for j in jobs)
    assert set(per) == set(scenario.containers)
    assert all(400 <= n <= 600 for n in per.values())


def test_same_seed_same_jobs():
    scenario = load_scenario(VERY_SMALL)
    first = list(bench_jobs(scenario, random.Random(11),
                            populated(scenario)))
    second = list(bench_jobs(scenario, random.Random(11),
                             populated(scenario)))
    assert first == second
    assert len(first) == 500


def test_reads_updates_deletes_take_ring_objects_when_generated():
    scenario = make(crud=(0, 1, 1, 1), initial={'a': 3},
                    operation_count=3)
    ring = populated(scenario)
    before = names(ring)
    gen = bench_jobs(scenario, random.Random(12), ring)
    job = next(gen)
    # The ring changed already, before any result came back.
    after = names(ring)
    if job['type'] == D:
        assert after == before[1:]
    else:
        assert after == before[1:] + before[:1]
    assert job['name'] == before[0]


def test_created_object_joins_ring_only_on_success():
    scenario = make(crud=(1, 1, 0, 0), initial={'a': 1},
                    operation_count=200)
    ring = ObjectRing()       # no population confirmed
    created = set()
    gen = bench_jobs(scenario, random.Random(13), ring)
    jobs = []
    for job in gen:
        jobs.append(job)
        if job['type'] == C:
            assert job['name'] not in created
            # The first three creates fail, so READs drawn meanwhile are
            # skipped; after that every other create fails.  A failed
            # create must never be read.
            if len(created) >= 3 and len(created) % 2 == 0:
                ring.on_results([succeed(job)])
                created.add(job['name'])
            else:
                ring.on_results([fail(job)])
                created.add(job['name'] + '!failed')
        else:
            assert job['name'] in created
    assert len(jobs) == 200
    assert any(j['type'] == R for j in jobs)
    assert ring.skipped > 0


def test_operation_count_exact_despite_skips():
    # Deletes outpace creates, so the ring keeps running dry.
    scenario = make(crud=(1, 2, 2, 5), initial={'a': 2},
                    operation_count=500)
    ring = populated(scenario)
    jobs = []
    for job in bench_jobs(scenario, random.Random(14), ring):
        jobs.append(job)
        ring.on_results([succeed(job)])
    assert len(jobs) == 500
    assert ring.skipped > 100


def test_delete_removes_object_for_later_jobs():
    scenario = make(crud=(0, 0, 0, 1), initial={'a': 1}, operation_count=1)
    ring = populated(scenario)
    assert [j['name'] for j in bench_jobs(scenario, random.Random(1),
                                          ring)] == ['a_000001']
    assert ring.take('a', R) is None


def test_stalled_generation_stops_with_a_warning(caplog):
    # Delete-only: three objects to delete, nothing ever creates more.
    scenario = make(crud=(0, 0, 0, 1), initial={'a': 3},
                    operation_count=100)
    ring = populated(scenario)
    with caplog.at_level(logging.WARNING, logger='ssbench.load.jobgen'):
        jobs = list(bench_jobs(scenario, random.Random(15), ring))
    assert [j['name'] for j in jobs] == ['a_000001', 'a_000002', 'a_000003']
    assert 'stopping after 3 jobs' in caplog.text
    # Read-only with an empty ring (population failed): no job at all.
    scenario = make(crud=(0, 1, 0, 0), operation_count=10)
    assert list(bench_jobs(scenario, random.Random(15), ObjectRing())) == []


def test_noop_placeholders_when_the_ring_is_empty():
    scenario = make(crud=(0, 1, 1, 1), initial={'a': 5},
                    operation_count=300)
    ring = ObjectRing()
    jobs = list(bench_jobs(scenario, random.Random(16), ring, noop=True))
    assert len(jobs) == 300
    assert ring.skipped == 0
    for job in jobs:
        assert job['noop'] is True
        assert job['name'] == 'a_000000'
        assert job['container'] == scenario.containers[0]


def test_noop_still_uses_ring_objects():
    scenario = make(crud=(1, 1, 0, 0), initial={'a': 1}, operation_count=50)
    ring = ObjectRing()
    names = []
    for job in bench_jobs(scenario, random.Random(17), ring, noop=True):
        names.append((job['type'], job['name']))
        ring.on_results([succeed(job)])
    first_create = [kind for kind, _ in names].index(C)
    # Placeholders only until the first create came back; after that every
    # read names a created object.
    assert all(name == 'a_000000' for _, name in names[:first_create])
    creates = set()
    for kind, name in names[first_create:]:
        if kind == C:
            creates.add(name)
        else:
            assert name in creates
    assert len(creates) < len(names) - first_create


def test_run_seconds_stops_on_the_clock():
    scenario = make(crud=(1, 0, 0, 0), run_seconds=10)
    clock = FakeClock(start=1000.0, step=0.5)
    jobs = list(bench_jobs(scenario, random.Random(18), ObjectRing(),
                           clock=clock))
    # Jobs at t = 0, 0.5, ... 9.5; the check at t = 10 stops.
    assert len(jobs) == 20
    assert clock.calls == 21


def test_run_seconds_ignores_operation_count_and_clock_starts_at_first_job():
    scenario = make(crud=(1, 0, 0, 0), run_seconds=3, operation_count=None)
    assert scenario.operation_count is None
    clock = FakeClock(start=50.0, step=1.0)
    gen = bench_jobs(scenario, random.Random(19), ObjectRing(), clock=clock)
    assert clock.calls == 0       # nothing happens before the first job
    assert len(list(gen)) == 3


def test_operation_count_mode_never_reads_the_clock():
    clock = FakeClock()
    scenario = make(crud=(1, 0, 0, 0), operation_count=5)
    assert len(list(bench_jobs(scenario, random.Random(1), ObjectRing(),
                               clock=clock))) == 5
    assert clock.calls == 0


def test_simulated_run_never_touches_a_deleted_or_unconfirmed_object():
    """The master's loop in miniature: up to user_count jobs outstanding,
    results in a shuffled order, population first, cleanup last."""
    scenario = load_scenario(VERY_SMALL, {'operation_count': 5000,
                                          'user_count': 16})
    rng = random.Random(20)
    ring = ObjectRing()
    for job in initial_jobs(scenario, rng):
        ring.on_results([succeed(job)])
    initial = set(name for _, _, name in initial_objects(scenario))
    live = set(initial)
    outstanding = []
    produced = 0

    def deliver(count):
        rng.shuffle(outstanding)
        for _ in range(min(count, len(outstanding))):
            job = outstanding.pop()
            if job['type'] == C:
                live.add(job['name'])
            ring.on_results([succeed(job)])

    for job in bench_jobs(scenario, random.Random(21), ring):
        produced += 1
        if job['type'] != C:
            assert job['name'] in live, job
        if job['type'] == D:
            live.discard(job['name'])
        outstanding.append(job)
        if len(outstanding) >= scenario.user_count:
            deliver(rng.randint(1, scenario.user_count))
    deliver(len(outstanding))
    assert produced == 5000
    cleanup = list(cleanup_jobs(ring.pop_created()))
    names = set(job['name'] for job in cleanup)
    assert names == live - initial
    assert all(job['type'] == D for job in cleanup)
    assert sum(ring.count(size.name) for size in scenario.sizes) == \
        len(live & initial)


class CountingRandom(random.Random):
    """A Random that counts its random() draws."""
    draws = 0

    def random(self):
        self.draws += 1
        return super(CountingRandom, self).random()


@pytest.mark.parametrize('noop, most', [(False, 3.0), (True, 2.0)])
def test_generation_draws_a_bounded_number_per_job(noop, most):
    # A job takes one draw for its type, one for a CREATE's container and
    # one for a size; a READ/UPDATE/DELETE that finds its class empty costs
    # one more draw, not a scan.  Here READs and UPDATEs are answered at
    # once but no CREATE joins the ring, so it runs dry and about 30,000 of
    # 50,000 draws are skipped (none in noop).
    scenario = load_scenario(VERY_SMALL, {'operation_count': 50000})
    ring = populated(scenario)
    rng = CountingRandom(1)
    count = 0
    for job in bench_jobs(scenario, rng, ring, noop=noop):
        count += 1
        if job['type'] in (READ_OBJECT, UPDATE_OBJECT):
            ring.on_results([job])
    assert count == 50000
    assert rng.draws / count <= most
    assert (ring.skipped > 20000) == (not noop)


def _kinds(jobs):
    return [(job['type'], job['size_str'], job.get('size')) for job in jobs]


def test_noop_job_stream_depends_on_the_seed_alone():
    # Whatever the ring holds and whenever results come back, a --noop
    # stream of (type, size class, size) is the seed's.
    scenario = make(collections.OrderedDict([('a', (1, 100)),
                                             ('b', (500, 900))]),
                    initial={'a': 3, 'b': 2}, operation_count=400)
    quiet = _kinds(bench_jobs(scenario, seeds.stream(7, seeds.BENCH),
                              ObjectRing(), noop=True))
    ring = populated(scenario)
    busy = []
    held = []
    for job in bench_jobs(scenario, seeds.stream(7, seeds.BENCH), ring,
                          noop=True):
        busy.append(job)
        held.append(job)
        if len(held) == 5:       # results back in a scrambled order
            for result in reversed(held):
                ring.on_results([succeed(result)])
            del held[:]
    assert _kinds(busy) == quiet
    other = _kinds(bench_jobs(scenario, seeds.stream(8, seeds.BENCH),
                              ObjectRing(), noop=True))
    assert other != quiet and len(other) == len(quiet) == 400


def test_seed_streams_are_separate_and_reproducible():
    draws = dict((purpose, seeds.stream(5, purpose).random())
                 for purpose in (seeds.BENCH, seeds.POPULATION,
                                 seeds.ARRIVALS))
    assert len(set(draws.values())) == 3
    assert seeds.stream(5, seeds.BENCH).random() == draws[seeds.BENCH]
    # Neighbouring seeds do not share a stream either.
    assert seeds.stream(6, seeds.BENCH).random() not in draws.values()
    assert 0 <= seeds.draw_seed() < seeds.DRAWN_SEED_LIMIT


def test_population_sizes_follow_their_own_stream():
    scenario = make(collections.OrderedDict([('a', (1, 10 ** 6))]),
                    initial={'a': 20})
    sizes = [[job['size'] for job in initial_jobs(
        scenario, seeds.stream(seed, seeds.POPULATION))] for seed in (3, 3, 4)]
    assert sizes[0] == sizes[1] != sizes[2]


def test_generation_waits_while_every_object_is_in_use_then_can_force():
    # UPDATEs only, of a guarded (segmented) class of two objects: two jobs
    # can be made, then every draw finds its objects in use.
    scenario = make(initial={'a': 2}, crud=(0, 0, 1, 0))
    ring = populated(scenario)
    ring.guard_updates(['a'])
    gen = bench_jobs(scenario, random.Random(1), ring)
    first, second = next(gen), next(gen)
    assert sorted([first['name'], second['name']]) == ['a_000001',
                                                       'a_000002']
    skipped = ring.skipped
    assert next(gen) is WAIT
    assert ring.skipped - skipped == WAIT_AFTER_BUSY
    assert next(gen) is WAIT           # resumed: still nothing free
    ring.on_results([succeed(second)])
    assert next(gen)['name'] == second['name']
    # Told to, it takes an object in use rather than wait again.
    assert next(gen) is WAIT
    forced = gen.send(FORCE)
    assert forced['type'] == UPDATE_OBJECT and forced['name'] in (
        'a_000001', 'a_000002')
    assert next(gen) is WAIT           # the next job waits again


# -- HEAD and LIST ---------------------------------------------------------

def test_head_and_list_follow_the_object_profile():
    scenario = make(crud={'READ': 2, 'HEAD': 1, 'LIST': 1},
                    operation_count=8000, listing={'limit': 5})
    jobs = list(bench_jobs(scenario, random.Random(11), populated(scenario),
                           noop=True))
    types = collections.Counter(j['type'] for j in jobs)
    assert set(types) == set([R, HEAD_OBJECT, LIST_CONTAINER])
    # Expected 2000 each of HEAD and LIST; sigma about 39.
    assert 1800 <= types[HEAD_OBJECT] <= 2200
    assert 1800 <= types[LIST_CONTAINER] <= 2200
    containers = set()
    for job in jobs:
        if job['type'] == LIST_CONTAINER:
            assert job['name'] == '' and job['limit'] == 5
            assert 'prefix' not in job and 'size' not in job
            containers.add(job['container'])
        else:
            assert 'limit' not in job
    assert containers == set(scenario.containers)


def test_a_list_carries_the_scenario_prefix():
    scenario = make(crud={'LIST': 1}, operation_count=3,
                    listing={'prefix': 'a_00'})
    jobs = list(bench_jobs(scenario, random.Random(1), ObjectRing()))
    assert [(j['limit'], j['prefix']) for j in jobs] == [(100, 'a_00')] * 3


def test_a_head_takes_its_object_as_a_read_does():
    scenario = make(crud={'HEAD': 1}, operation_count=2, initial={'a': 2})
    ring = populated(scenario)
    heads = list(bench_jobs(scenario, random.Random(2), ring))
    # Rotated through the class as READs are, and in use until answered:
    # no DELETE may take either object meanwhile.
    assert [j['name'] for j in heads] == ['a_000001', 'a_000002']
    assert ring.take('a', D) is False
    ring.on_results([succeed(heads[1])])
    assert ring.take('a', D) == (heads[1]['container'], 'a_000002')
    ring.on_results([fail(heads[0])])
    assert ring._in_use == {}


def test_head_and_list_of_a_segmented_class_are_single_requests():
    data = {'name': 'seg', 'user_count': 1, 'operation_count': 40,
            'sizes': [{'name': 'big', 'size_min': 10, 'size_max': 20,
                       'segment_size': 4}],
            'initial_files': {'big': 3},
            'crud_profile': {'READ': 1, 'HEAD': 1, 'LIST': 1}}
    scenario = Scenario(data)
    jobs = list(bench_jobs(scenario, random.Random(3), populated(scenario),
                           noop=True))
    kinds = set()
    for job in jobs:
        kinds.add(job['type'])
        assert ('segment_size' in job) == (job['type'] == R)
    assert kinds == set([R, HEAD_OBJECT, LIST_CONTAINER])

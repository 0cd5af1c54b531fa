"""run-scenario against the real local Swift, with real worker processes."""
from __future__ import absolute_import, division, print_function

import collections
import os
import re
import time

import pytest

from ssbench.wire import resultbytes
from tests.e2e import support

pytestmark = pytest.mark.e2e


@pytest.fixture(scope='module')
def swift():
    support.require_swift()
    return support.SwiftView()


@pytest.fixture
def scenario(tmpdir, swift):
    made = []

    def make(**changes):
        path, data = support.write_scenario(tmpdir, **changes)
        made.append(data['container_base'])
        return path, data
    yield make
    for base in made:
        swift.delete_everything(base + '_')


def run_scenario(tmpdir, path, *extra, **kwargs):
    stats = os.path.join(str(tmpdir), 'run.stat')
    ran = support.master(
        'run-scenario', '-f', path, '-s', stats, '--workers', '2',
        *(support.zmq_args() + support.auth_args() + list(extra)), **kwargs)
    assert ran.status == 0, ran
    return ran, support.read_results(stats + '.gz')


def test_two_workers_complete_with_the_expected_mix(tmpdir, scenario, swift):
    path, data = scenario()
    ran, results = run_scenario(tmpdir, path)
    assert len(results) == 120
    assert [r for r in results if 'exception' in r] == []
    assert set(r['worker_id'] for r in results) == set([0, 1])
    counts = collections.Counter(r['type'] for r in results)
    # Every CRUD type runs.  The shares themselves are checked on seeded
    # generation in tests/unit/load/test_jobgen.py: on 120 unseeded jobs, with
    # the master generating ahead of results (deletes shrink the 12-object
    # population at once, creates join only when answered), an ordering such as
    # reads > creates > deletes fails about one run in 16.
    assert sorted(counts) == sorted(
        ['upload_object', 'get_object', 'update_object', 'delete_object'])
    for r in results:
        assert r['trans_id'].startswith('tx')
        assert r['last_byte_latency'] > 0
        if r['type'] == 'get_object':
            assert 0 < r['first_byte_latency'] <= r['last_byte_latency']
        else:
            assert r['first_byte_latency'] is None
        assert 'auth' not in repr(r).lower() or 'AUTH_test' in repr(r)
    # The report reads the real stats file, with latencies and tx ids.
    assert 'TOTAL\n       Count:   120 (    0 error;' in ran.out
    assert 'Worker count:   2   Concurrency:   4' in ran.out
    assert ' tx' in ran.out
    assert 'INFO:Scenario run results saved to' in ran.err
    # Default: run-created objects are deleted, the population stays.
    left = [n for c in swift.containers(data['container_base'] + '_')
            for n in swift.objects(c)]
    assert sorted(left) == sorted(
        ['tiny_%06d' % i for i in range(1, 9)
         if not deleted(results, 'tiny_%06d' % i)] +
        ['small_%06d' % i for i in range(1, 5)
         if not deleted(results, 'small_%06d' % i)])


def deleted(results, name):
    return any(r['type'] == 'delete_object' and r['name'] == name
               for r in results)


def test_deletes_never_overtake_reads_of_their_object(tmpdir, scenario):
    # Four objects and sixteen users: every object is read by several jobs
    # at once.  A DELETE handed the object a READ still uses would make that
    # READ fail with a 404 the cluster is not to blame for.
    profile = [30, 50, 0, 20]
    path, data = scenario(
        user_count=16, operation_count=400, crud_profile=profile,
        sizes=[{'name': 'tiny', 'size_min': 10, 'size_max': 100,
                'crud_profile': profile}],
        initial_files={'tiny': 4})
    ran, results = run_scenario(tmpdir, path)
    assert len(results) == 400
    assert [r for r in results if 'exception' in r] == []
    counts = collections.Counter(r['type'] for r in results)
    assert counts['delete_object'] > 20 and counts['get_object'] > 100


def test_keep_objects_and_population_is_not_uploaded_twice(tmpdir, scenario,
                                                           swift):
    path, data = scenario(crud_profile=[100, 0, 0, 0],
                          sizes=[{'name': 'tiny', 'size_min': 10,
                                  'size_max': 10}],
                          initial_files={'tiny': 5})
    _, first = run_scenario(tmpdir, path, '-o', '20', '-k')
    containers = swift.containers(data['container_base'] + '_')
    assert len(containers) == 3

    def listing():
        return set((c, n) for c in containers for n in swift.objects(c))
    initial = set((c, n) for c, n in listing() if n <= 'tiny_000005')
    kept = set((r['container'], r['name']) for r in first)
    assert len(initial) == 5 and len(kept) == 20
    assert listing() == initial | kept
    stamps = dict((o, swift.head_object(*o)['x-timestamp'])
                  for o in initial)
    _, second = run_scenario(tmpdir, path, '-o', '20')
    # HEAD found the population: nothing re-uploaded.
    assert dict((o, swift.head_object(*o)['x-timestamp'])
                for o in initial) == stamps
    # The second run deleted exactly the objects it created (job numbers,
    # hence names, repeat across runs; containers are drawn at random).
    created = set((r['container'], r['name']) for r in second)
    assert listing() == (initial | kept) - created


def test_run_seconds_stops_on_time(tmpdir, scenario):
    path, _ = scenario()
    started = time.time()
    _, results = run_scenario(tmpdir, path, '-r', '4')
    span = max(r['completed_at'] for r in results) - \
        min(r['completed_at'] for r in results)
    assert 2 <= span <= 4 + 3
    assert time.time() - started < 120


def test_policy_and_delete_after_reach_swift(tmpdir, scenario, swift):
    path, data = scenario(crud_profile=[1, 0, 0, 0], sizes=[
        {'name': 'tiny', 'size_min': 100, 'size_max': 2000},
        {'name': 'small', 'size_min': 20000, 'size_max': 40000}])
    run_scenario(tmpdir, path, '-o', '10', '-k', '--policy', 'silver',
                 '--delete-after', '3600')
    containers = swift.containers(data['container_base'] + '_')
    assert containers == ['%s_%06d_silver' % (data['container_base'], i)
                          for i in range(3)]
    for container in containers:
        assert swift.head_container(container)['x-storage-policy'] == \
            'silver'
    created = [(c, n) for c in containers for n in swift.objects(c)
               if int(n.split('_')[1]) > 8]
    assert len(created) == 10
    for container, name in created:
        delete_at = int(swift.head_object(container, name)['x-delete-at'])
        assert 3500 < delete_at - time.time() <= 3600


def test_storage_urls_spread_requests(tmpdir, scenario, swift):
    path, data = scenario()
    account = swift.url.split('/v1/')[1]
    run_scenario(tmpdir, path, '-o', '60',
                 '-S', 'http://127.0.0.1:8080/v1/' + account,
                 '-S', 'http://127.0.0.1:8090/v1/' + account)
    # This run's requests: other tests (the other interpreter's suite
    # too) use both proxies meanwhile.
    seen = [len([line for line in support.access_lines(port)
                 if data['container_base'] in line]) for port in (8080, 8090)]
    assert seen[0] > 15 and seen[1] > 15, seen


def test_results_are_checked_on_their_bytes(tmpdir, scenario):
    """Real workers write results the master can take on their bytes
    (ssbench.wire.resultbytes): all but the first few messages, where
    the master keeps maps in wire order."""
    path, data = scenario()
    stats = os.path.join(str(tmpdir), 'bytes.stat')
    ran = support.master('-v', 'run-scenario', '-f', path, '--noop', '-s',
                         stats, '--workers', '2', '-o', '3000', '-R',
                         *support.zmq_args(), timeout=120)
    assert ran.status == 0, ran
    said = re.search(r'(\d+) of (\d+) messages of results taken on their '
                     r'bytes', ran.err)
    assert said, ran.err[-2000:]
    scanned, messages = int(said.group(1)), int(said.group(2))
    assert messages > 0
    if resultbytes.KEYS_IN_WIRE_ORDER:
        assert scanned >= messages * 0.9, (scanned, messages)
    else:
        assert scanned == 0
    # Either way the stats file holds every result, readable.
    assert len(support.read_results(stats + '.gz')) == 3000


def test_noop_talks_to_no_swift(tmpdir, scenario):
    path, data = scenario()
    stats = os.path.join(str(tmpdir), 'noop.stat')
    # Credentials pointing nowhere are ignored by --noop.
    ran = support.master('run-scenario', '-f', path, '--noop', '-s', stats,
                         '--workers', '2', '-o', '500',
                         '-A', 'http://127.0.0.1:9/auth/v1.0', '-U', 'x:y',
                         '-K', 'never-used', *support.zmq_args(),
                         timeout=120)
    assert ran.status == 0, ran
    assert len(support.read_results(stats + '.gz')) == 500
    # Other tests may use Swift meanwhile: look for this run's containers.
    for port in (8080, 8090):
        assert [line for line in support.access_lines(port)
                if data['container_base'] in line] == []

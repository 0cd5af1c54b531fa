"""ssbench.master.scenariorun: every phase stops at a stop request, container
creation is bounded, and an interrupted cleanup makes an interrupted run."""
from __future__ import absolute_import, division, print_function

import errno
import logging
import os

import gevent
import pytest

from ssbench import DELETE_OBJECT
from ssbench.errors import Interrupted, SwiftError
from ssbench.master.scenariorun import (RunOptions, ScenarioRun,
                                        ensure_containers)
from ssbench.results.safefiles import StatsPaths
from ssbench.swift.client import SwiftClient
from ssbench.load.scenario import Scenario
from tests.unit.master.test_dispatch import FakeTransport


def scenario(**changes):
    data = {'name': 'runner', 'user_count': 2, 'operation_count': 20,
            'sizes': [{'name': 'zero', 'size_min': 0, 'size_max': 0}],
            'initial_files': {'zero': 5}, 'crud_profile': [1, 1, 1, 0],
            'container_count': 3}
    data.update(changes)
    return Scenario(data)


class Status(object):
    def __init__(self, status):
        self.status = status


class FakeSwift(object):
    """HEAD says 404 for every container; PUT records it.  `on_head` runs
    on each HEAD (it may raise).  `urls`: its storage URLs."""

    def __init__(self, on_head=None, urls=(u'http://s/v1/AUTH_a',)):
        self.urls = list(urls)
        self.heads = []
        self.puts = []
        self.running = 0
        self.most_running = 0
        self.on_head = on_head

    explain = staticmethod(SwiftClient.explain)

    def head_container(self, name, missing_ok=False):
        self.running += 1
        self.most_running = max(self.most_running, self.running)
        try:
            self.heads.append(name)
            gevent.sleep(0)
            if self.on_head is not None:
                self.on_head(name)
            return Status(404)
        finally:
            self.running -= 1

    def put_container(self, name, policy=None):
        self.puts.append(name)

    def storage_urls(self):
        return self.urls


def test_containers_are_created_a_pool_at_a_time():
    swift = FakeSwift()
    ensure_containers(swift, scenario(container_count=50), 4)
    assert len(swift.puts) == 50 and swift.most_running <= 4


def test_segments_containers_are_swifts_only():
    large = [{'name': 'big', 'size_min': 10, 'size_max': 20,
              'segment_size': 8}]
    swift = FakeSwift()
    ensure_containers(swift, scenario(sizes=large, initial_files={'big': 1},
                                      container_count=2), 4)
    assert sorted(swift.puts) == [
        'ssbench_000000_default_policy',
        'ssbench_000000_default_policy_segments',
        'ssbench_000001_default_policy',
        'ssbench_000001_default_policy_segments']
    # Buckets: a multipart upload keeps its parts in the object's own.
    s3 = FakeSwift()
    buckets = scenario(sizes=large, initial_files={'big': 1},
                       container_count=2)
    buckets.name_containers(lambda base, index, label: 'b-%d' % index)
    ensure_containers(s3, buckets, 4)
    assert sorted(s3.puts) == ['b-0', 'b-1']


def test_a_stop_request_ends_container_creation():
    asked = []
    swift = FakeSwift(on_head=asked.append)
    with pytest.raises(Interrupted) as info:
        ensure_containers(swift, scenario(container_count=1000000), 10,
                          stop_requested=lambda: len(asked) >= 25)
    assert 'interrupted while creating containers' in str(info.value)
    assert len(swift.heads) < 40


def test_the_first_container_failure_is_raised_once(capsys):
    def fail(name):
        raise ValueError('no way')
    swift = FakeSwift(on_head=fail)
    with pytest.raises(SwiftError) as info:
        ensure_containers(swift, scenario(container_count=1000), 5)
    assert str(info.value) == 'cannot create containers: ValueError: no way'
    assert len(swift.heads) <= 10
    assert 'Traceback' not in capsys.readouterr().err


def respond_ok(job):
    return [dict(job, worker_id=1, completed_at=0.0, first_byte_latency=0.0,
                 last_byte_latency=0.0, trans_id=None, retries=0)]


def make_run(tmpdir, scenario_, respond=respond_ok, swift=None,
             **options):
    paths = StatsPaths(str(tmpdir.join('run.stat'))).check()
    run = ScenarioRun(scenario_, FakeTransport(respond, beating=[1]), paths,
                      RunOptions(**options), swift=swift or FakeSwift())
    return run


def test_a_noop_load_stops_at_a_stop_request(tmpdir):
    run = make_run(tmpdir, scenario(initial_files={'zero': 10000000}),
                   noop=True)
    loaded = []
    load = run.ring.load

    def load_and_stop(chunk):
        loaded.append(len(chunk))
        load(chunk)
        run.request_stop()
    run.ring.load = load_and_stop
    with pytest.raises(Interrupted) as info:
        run.load_initial_objects()
    assert 'interrupted while loading the initial objects' in str(info.value)
    assert len(loaded) == 1


def test_a_whole_run_cleans_up(tmpdir):
    run = make_run(tmpdir, scenario(crud_profile=[1, 0, 0, 0]))
    outcome = run.run()
    assert not outcome.interrupted and outcome.error is None
    assert run.ring.pop_created() == []


def test_an_interrupted_cleanup_interrupts_the_run(tmpdir):
    holder = []

    def respond(job):
        # Cleanup jobs are the only DELETEs without a block size.
        if job['type'] == DELETE_OBJECT and 'block_size' not in job:
            holder[0].request_stop()
        return respond_ok(job)
    run = make_run(tmpdir, scenario(crud_profile=[1, 0, 0, 0]), respond)
    holder.append(run)
    outcome = run.run()
    assert outcome.interrupted and outcome.error is None
    assert outcome.stats_path == str(tmpdir.join('run.stat.gz'))


def test_results_of_the_run_are_kept(tmpdir):
    run = make_run(tmpdir, scenario())
    outcome = run.run()
    from ssbench.results.statsreader import open_stats
    results = list(open_stats(outcome.stats_path).iter_results())
    assert len(results) == 20
    assert all(r['worker_id'] == 1 for r in results)


def test_the_header_lists_the_storage_urls_only_when_several(tmpdir):
    from ssbench.results.statsreader import open_stats
    urls = [u'http://a:8080/v1/AUTH_t', u'http://b:8090/v1/AUTH_t']
    for given, listed in ((urls, urls), (urls[:1], None)):
        run = make_run(tmpdir, scenario(), swift=FakeSwift(urls=given))
        header = open_stats(run.run().stats_path).header
        assert header.get(u'endpoints') == listed


def test_jobs_held_back_for_objects_in_use_are_said(caplog):
    from ssbench.master.phase import PhaseStats
    from ssbench.master.scenariorun import held_back
    stats = PhaseStats()
    with caplog.at_level(logging.WARNING):
        held_back(stats, 8)
    assert caplog.records == []
    stats.held_back, stats.forced = 12, 2
    with caplog.at_level(logging.WARNING):
        held_back(stats, 8)
    lines = [record.getMessage() for record in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith('Fewer than 8 requests were in flight at '
                               'times: 12 times,')
    assert lines[1].startswith('2 jobs used an object another job')


def test_skewed_picks_replay_under_the_seed(tmpdir):
    def read_names(seed, where):
        run = make_run(tmpdir.mkdir(where), scenario(
            initial_files={'zero': 50}, crud_profile=[0, 1, 0, 0],
            operation_count=200,
            popularity={'kind': 'zipf', 'exponent': 1.2}), seed=seed)
        outcome = run.run()
        from ssbench.results.statsreader import open_stats
        # Sorted: the replay is of the picks, not of the results' order.
        return sorted(r['name'] for r in
                      open_stats(outcome.stats_path).iter_results())
    first = read_names(3, 'a')
    assert first == read_names(3, 'b')
    assert first != read_names(4, 'c')
    # Zipf 1.2 over 50 objects: the first one takes 28% of the reads.
    assert max(set(first), key=first.count) == 'zero_000001'


class FullDisk(object):
    """A stats file's stream on a disk with `room` bytes left: the write
    that needs more (or, with `at` 'flush', any flush) fails with ENOSPC,
    what fitted is kept."""

    def __init__(self, real, room, at='write'):
        self.real = real
        self.room = room
        self.at = at

    def _full(self):
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def write(self, data):
        if self.at == 'write' and len(data) > self.room:
            self.real.write(data[:self.room])
            self.room = 0
            raise self._full()
        self.real.write(data)
        self.room -= len(data)

    def flush(self):
        if self.at == 'flush':
            raise self._full()
        self.real.flush()

    @property
    def closed(self):
        return self.real.closed

    def close(self):
        self.real.close()
        if self.at == 'flush':
            raise self._full()


@pytest.mark.parametrize('at', ['write', 'flush'])
def test_a_full_disk_ends_the_run_saying_where_results_and_objects_are(
        tmpdir, monkeypatch, caplog, at):
    from ssbench.errors import StatsFileError
    from ssbench.master import scenariorun
    from ssbench.results.statsreader import open_stats
    from ssbench.results.statswriter import StatsWriter

    class FillingWriter(StatsWriter):
        def __init__(self, *args, **kwargs):
            StatsWriter.__init__(self, *args, **kwargs)
            self.flush()
            self._fp = FullDisk(self._fp, 400, at)
    monkeypatch.setattr(scenariorun, 'StatsWriter', FillingWriter)
    caplog.set_level(logging.INFO)
    run = make_run(tmpdir, scenario(operation_count=200))
    outcome = run.run()
    assert isinstance(outcome.error, StatsFileError)
    assert 'cannot write: %s' % (os.strerror(errno.ENOSPC),) in \
        str(outcome.error)
    assert not outcome.finalized
    plain = str(tmpdir.join('run.stat'))
    assert outcome.stats_path == plain
    assert not tmpdir.join('run.stat.gz').exists()
    # What was written stays readable: the header, and the results that
    # fitted.
    kept = open_stats(plain)
    assert kept.header['name'] == 'runner'
    if at == 'write':
        assert 0 < len(list(kept.iter_results())) < 200
    said = caplog.text
    assert 'ssbench-master cleanup-containers" removes them' in said
    assert 'are in %s (not compressed)' % (plain,) in said

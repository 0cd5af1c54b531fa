from __future__ import absolute_import, division, print_function

import pytest

from ssbench.master import livestats
from ssbench.master.livestats import (
    BASE_LATENCY, RATE_WINDOW, TOP_BUCKET, WINDOW, LiveStats, Slot,
    bucket_edge, bucket_of, outcome_of, percentile)


class Clock(object):
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


def at(stats, when):
    """The clock reads `when` and the run loop turned (LiveView.tick)."""
    stats.clock.now = when
    stats.turn(when)


def ok(latency=0.02, kind='get_object', size_str='tiny', status=200,
       first=0.01, size=100, **extra):
    record = {'type': kind, 'size_str': size_str, 'status': status,
              'first_byte_latency': first, 'last_byte_latency': latency,
              'size': size, 'retries': 0}
    record.update(extra)
    return record


def failed(status=None, error_class=None, kind='get_object', **extra):
    record = {'type': kind, 'size_str': 'tiny', 'exception': 'boom',
              'status': status, 'error_class': error_class, 'retries': 0}
    record.update(extra)
    return record


@pytest.mark.parametrize('latency', [
    0.0011, 0.0013, 0.0099, 0.01, 0.1234, 0.5, 1.0, 1.5, 7.3, 20.0, 32.0])
def test_a_bucket_holds_latencies_from_the_edge_below_to_its_own(latency):
    index = bucket_of(latency)
    assert bucket_edge(index - 1) <= latency * (1 + 1e-12)
    assert latency < bucket_edge(index) * (1 + 1e-12)
    # Each bucket is 2 ** (1/8) wide: percentiles within 9%.
    assert bucket_edge(index) / bucket_edge(index - 1) == pytest.approx(
        2 ** (1 / 8.0))


def test_fast_and_huge_latencies_share_the_end_buckets():
    assert bucket_of(0) == bucket_of(BASE_LATENCY / 2) == 0
    assert bucket_of(33.0) == bucket_of(1e6) == TOP_BUCKET
    assert bucket_edge(TOP_BUCKET) == float('inf')


def test_the_inline_bucketing_of_slot_add_is_bucket_of():
    slot = Slot(0)
    latencies = [0.0001, 0.001, 0.0017, 0.02, 0.3, 4.0, 40.0]
    slot.add([ok(latency=value, first=None) for value in latencies])
    normal = slot.normalised()
    assert sorted(index for _, index in normal.last_byte) == sorted(
        bucket_of(value) for value in latencies)
    assert normal.first_byte == {}
    assert normal.last_byte_sum == {'get_object': pytest.approx(
        sum(latencies))}


def test_percentile_is_the_upper_edge_of_the_bucket_of_its_rank():
    histogram = {1: 50, 9: 49, 20: 1}
    assert percentile(histogram, 50) == bucket_edge(1)
    assert percentile(histogram, 51) == bucket_edge(9)
    assert percentile(histogram, 99) == bucket_edge(9)
    assert percentile(histogram, 100) == bucket_edge(20)
    assert percentile({}, 99) is None


@pytest.mark.parametrize('record, outcome', [
    (ok(status=201), '201'),
    (ok(status=None), 'ok'),
    (failed(status=503), '503'),
    (failed(error_class='timeout'), 'timeout'),
    (failed(), 'error'),
])
def test_outcome_is_the_status_else_the_error_class(record, outcome):
    assert outcome_of(record) == outcome


def test_a_slot_counts_by_operation_size_and_outcome():
    slot = Slot(0)
    slot.add([ok(), ok(size=50), ok(kind='upload_object', status=201),
              failed(status=503, retries=2),
              failed(error_class='timeout', reconnects=1),
              ok(status=None, retries=1, reconnects=3)])
    normal = slot.normalised()
    assert normal.requests == {
        ('get_object', 'tiny', '200', False): [2, 150],
        ('upload_object', 'tiny', '201', False): [1, 100],
        ('get_object', 'tiny', '503', True): [1, 0],
        ('get_object', 'tiny', 'timeout', True): [1, 0],
        ('get_object', 'tiny', 'ok', False): [1, 100],
    }
    assert normal.errors == {'503': 1, 'timeout': 1}
    assert normal.retries == {'get_object': 3}
    assert normal.reconnects == {'get_object': 4}
    assert slot.count() == normal.count() == 6


def test_rate_percentiles_and_errors_come_from_recent_seconds():
    clock = Clock()
    stats = LiveStats(clock)
    stats.start_phase('benchmark', total=1000)
    for second in range(12):
        # 10 results a second: the slow one (2 s) only in the first two.
        at(stats, 1000.0 + second)
        batch = [ok(latency=0.01) for _ in range(9)]
        batch.append(ok(latency=2.0) if second < 2 else
                     failed(status=503))
        stats.add(batch)
    at(stats, 1012.5)
    figures = stats.window()
    assert figures['done'] == 120
    assert figures['rate'] == pytest.approx(10.0)
    assert figures['p50'] == bucket_edge(bucket_of(0.01))
    # The two slow seconds left the 10 s window; 503s of 10 s remain.
    assert figures['p99'] == bucket_edge(bucket_of(0.01))
    assert figures['errors'] == {'503': WINDOW - 1}
    assert figures['left'] == pytest.approx(880 / 10.0)
    assert len(stats.ring) <= WINDOW


def test_before_five_seconds_the_rate_is_the_phase_average():
    clock = Clock(1000.5)
    stats = LiveStats(clock)
    stats.start_phase('population', total=None)
    stats.add([ok()] * 30)
    at(stats, 1003.5)
    figures = stats.window()
    assert figures['rate'] == pytest.approx(10.0)
    assert figures['left'] is None
    assert RATE_WINDOW == 5


def test_a_timed_phase_counts_down_its_seconds():
    clock = Clock()
    stats = LiveStats(clock)
    stats.start_phase('benchmark', seconds=60)
    clock.now += 15
    assert stats.window()['left'] == pytest.approx(45)
    assert stats.fraction_done() == pytest.approx(0.25)


def test_totals_keep_every_second_and_each_phase_apart():
    clock = Clock()
    stats = LiveStats(clock)
    stats.start_phase('population', total=5)
    stats.add([ok(kind='upload_object', status=201)] * 5)
    stats.start_phase('benchmark')
    for second in range(30):
        at(stats, 2000.0 + second)
        stats.add([ok(), failed(error_class='timeout')])
    # Up to the last whole second; all of it once the phase ends.
    assert stats.totals()['benchmark'].count() == 58
    stats.end_phase()
    totals = stats.totals()
    assert totals['population'].count() == 5
    bench = totals['benchmark']
    assert bench.requests[('get_object', 'tiny', '200', False)] == [30, 3000]
    assert bench.errors == {'timeout': 30}
    assert sum(count for (op, _), count in bench.last_byte.items()) == 30
    # What was handed out is a copy: more results do not change it.
    stats.start_phase('cleanup')
    stats.add([ok()])
    stats.end_phase()
    assert bench.count() == 60
    assert stats.totals()['cleanup'].count() == 1


def test_results_before_any_phase_are_not_counted():
    stats = LiveStats(Clock())
    stats.add([ok()])
    assert stats.totals() == {}


def test_saturated_workers_are_those_whose_last_window_passed_a_limit():
    stats = LiveStats(Clock())
    health = {'window': 1.0, 'cpu': 0.2, 'loop_lag': 0.001, 'waiting': 0}
    busy = dict(health, loop_lag=0.5)
    stats.heartbeat(dict(busy, worker_id='a'))
    stats.heartbeat(dict(busy, worker_id='b'))
    stats.heartbeat(dict(health, worker_id='b'))
    stats.heartbeat({'worker_id': 'c', 'in_flight': []})   # no health keys
    assert stats.saturated_count(['a', 'b', 'c']) == 1
    assert stats.saturated_count(['b']) == 0
    assert livestats.PHASES == ('population', 'benchmark', 'cleanup')

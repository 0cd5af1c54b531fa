from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.live import livestats
from ssbench.live.livestats import (
    RATE_WINDOW, WINDOW, LiveStats, Slot, outcome_of)
from ssbench.measure import loghist
from ssbench.measure.rank import percentile_of_sorted
from tests.clocks import FakeClock


def at(stats, when):
    """The clock reads `when` and the run loop turned (LiveView.idle)."""
    stats.monotonic.now = when
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


def test_the_inline_binning_of_slot_add_is_loghist_bin_of():
    slot = Slot(0)
    latencies = [0.0, 0.0001, 0.001, 0.0017, 0.02, 0.3, 4.0, 40.0, 1e6]
    slot.add([ok(latency=value, first=None) for value in latencies])
    normal = slot.normalised()
    assert sorted(index for _, index in normal.last_byte) == sorted(
        [loghist.ZERO_BIN] + [loghist.bin_of(v) for v in latencies[1:]])
    assert normal.first_byte == {}
    assert normal.last_byte_sum == {'get_object': pytest.approx(
        sum(latencies))}


def binned_rank(latencies, pctile):
    """The exact rank's bin: the nearest-rank rule over the latencies
    each replaced by its bin's value."""
    return percentile_of_sorted(sorted(
        loghist.bin_value(loghist.bin_of(v)) if v > 0 else 0.0
        for v in latencies), pctile)


@pytest.mark.parametrize('n', [100, 200, 1000, 4100, 4137])
def test_the_window_p50_and_p99_are_the_exact_rank_over_its_bins(n):
    rng = random.Random(n)
    latencies = [rng.choice([0.0, rng.expovariate(50), rng.expovariate(2)])
                 for _ in range(n)]
    stats = LiveStats(FakeClock(1000.0))
    stats.start_phase('benchmark')
    for second in range(3):
        at(stats, 1000.0 + second)
        stats.add([ok(latency=v) for v in latencies[second::3]])
    figures = stats.window()
    assert figures['p50'] == binned_rank(latencies, 50)
    assert figures['p99'] == binned_rank(latencies, 99)
    exact = percentile_of_sorted(sorted(latencies), 99)
    assert figures['p99'] == pytest.approx(
        exact, rel=loghist.RELATIVE_ERROR)


def test_a_whole_rank_takes_the_mean_of_two_bins_not_the_float_rank():
    # 1,000 latencies: rank 990 of p99 is whole, so the p99 is the mean
    # of the 990th and 991st (a float ceil would take the 990th alone).
    latencies = [0.01] * 990 + [1.0] * 10
    stats = LiveStats(FakeClock(1000.0))
    stats.start_phase('benchmark')
    stats.add([ok(latency=v) for v in latencies])
    p99 = stats.window()['p99']
    assert p99 == (loghist.bin_value(loghist.bin_of(0.01)) +
                   loghist.bin_value(loghist.bin_of(1.0))) / 2
    assert p99 == binned_rank(latencies, 99)


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
    clock = FakeClock(1000.0)
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
    assert figures['p50'] == loghist.bin_value(loghist.bin_of(0.01))
    # The two slow seconds left the 10 s window; 503s of 10 s remain.
    assert figures['p99'] == loghist.bin_value(loghist.bin_of(0.01))
    assert figures['errors'] == {'503': WINDOW - 1}
    assert figures['left'] == pytest.approx(880 / 10.0)
    assert len(stats.ring) <= WINDOW


def test_before_five_seconds_the_rate_is_the_phase_average():
    clock = FakeClock(1000.5)
    stats = LiveStats(clock)
    stats.start_phase('population', total=None)
    stats.add([ok()] * 30)
    at(stats, 1003.5)
    figures = stats.window()
    assert figures['rate'] == pytest.approx(10.0)
    assert figures['left'] is None
    assert RATE_WINDOW == 5


def test_a_timed_phase_counts_down_its_seconds():
    clock = FakeClock(1000.0)
    stats = LiveStats(clock)
    stats.start_phase('benchmark', seconds=60)
    clock.advance(15)
    assert stats.window()['left'] == pytest.approx(45)
    assert stats.fraction_done() == pytest.approx(0.25)


def test_totals_keep_every_second_and_each_phase_apart():
    clock = FakeClock(1000.0)
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
    stats = LiveStats(FakeClock(1000.0))
    stats.add([ok()])
    assert stats.totals() == {}


def test_saturated_workers_are_those_whose_last_window_passed_a_limit():
    stats = LiveStats(FakeClock(1000.0))
    health = {'window': 1.0, 'cpu': 0.2, 'loop_lag': 0.001, 'waiting': 0}
    busy = dict(health, loop_lag=0.5)
    stats.heartbeat(dict(busy, worker_id='a'))
    stats.heartbeat(dict(busy, worker_id='b'))
    stats.heartbeat(dict(health, worker_id='b'))
    stats.heartbeat({'worker_id': 'c', 'in_flight': []})   # no health keys
    assert stats.saturated_count(['a', 'b', 'c']) == 1
    assert stats.saturated_count(['b']) == 0


def test_an_open_loop_result_counts_its_response_time_as_the_reports_do():
    from ssbench.results.recordview import _response_times
    # 0.05 s of service after 2 s of waiting (lag in the master 0.5 s,
    # held by the worker 1.55 s); one without lag and held falls back to
    # its clocks; a closed-loop one stays as measured.
    late = ok(latency=0.05, first=0.02, intended_start=1000.0,
              completed_at=1002.05, send_lag=0.5, worker_time=1.55)
    clocks = ok(latency=0.1, first=None, intended_start=1000.0,
                completed_at=1003.1)
    closed = ok(latency=0.3, first=0.1, completed_at=1003.0)
    slot = Slot(0)
    slot.add([dict(late), dict(clocks), dict(closed)])
    reported = next(_response_times([[dict(late), dict(clocks),
                                      dict(closed)]], False))
    assert sorted(index for (_, index) in slot.normalised().last_byte) == \
        sorted(loghist.bin_of(r['last_byte_latency']) for r in reported)
    assert sorted(index for (_, index) in slot.normalised().first_byte) == \
        sorted(loghist.bin_of(r['first_byte_latency']) for r in reported
               if r['first_byte_latency'] is not None)
    assert slot.normalised().last_byte_sum['get_object'] == \
        pytest.approx(2.05 + 3.1 + 0.3)


def test_a_population_object_found_by_its_head_moved_no_bytes():
    slot = Slot(0)
    slot.add([ok(kind='upload_object', status=200, head_first=True),
              ok(kind='upload_object', status=201, head_first=True,
                 size=7),
              ok(kind='upload_object', status=201, size=5)])
    assert slot.normalised().requests == {
        ('upload_object', 'tiny', '200', False): [1, 0],
        ('upload_object', 'tiny', '201', False): [2, 12]}


def test_the_totals_coarse_bins_fall_under_the_same_exported_edges():
    edges = livestats.EXPORT_BINS
    for index in range(0, edges[-1] + 3 * livestats.EXPORT_STEP):
        assert [index < edge for edge in edges] == \
            [livestats.coarse(index) < edge for edge in edges], index
    stats = LiveStats(FakeClock(1000.0))
    stats.start_phase('benchmark')
    stats.add([ok(latency=v) for v in (0.0011, 0.0012, 0.0013, 500.0)])
    stats.end_phase()
    assert stats.totals()['benchmark'].last_byte == {
        ('get_object', edges[1] - 1): 3, ('get_object', edges[-1]): 1}


def test_records_unpacked_with_raw_strings_count_as_the_decoded_ones():
    import msgpack
    from ssbench.wire import protocol
    records = [ok(), ok(kind='upload_object', status=201, first=None,
                        retries=2, reconnects=1),
               ok(latency=0.05, intended_start=1000.0, completed_at=1002.05,
                  send_lag=0.5, worker_time=1.55),
               failed(status=503, retries=1)]
    data = protocol.pack(records)
    text, raw = Slot(0), Slot(0)
    text.add(protocol.unpack(data))
    raw.add(msgpack.unpackb(data, raw=True), livestats.RAW_KEYS)
    text, raw = text.normalised(), raw.normalised()
    for name in ('requests', 'errors', 'retries', 'reconnects',
                 'first_byte', 'last_byte', 'first_byte_sum',
                 'last_byte_sum'):
        assert getattr(raw, name) == getattr(text, name), name
    assert ('upload_object', 'tiny', '201', False) in raw.requests


def test_values_captured_off_the_bytes_count_as_the_records_do():
    from collections import OrderedDict
    from ssbench.compat import text_type
    from ssbench.wire import protocol
    from ssbench.wire.resultbytes import ResultShapes

    def wire(job_id, **fields):
        """A success in our workers' key order: the ids first."""
        record = OrderedDict([('job_id', job_id), ('worker_id', 1),
                              ('container', 'c'), ('name', 'n%d' % job_id),
                              ('trans_id', None), ('completed_at', 1002.0)])
        record.update(sorted(ok(**fields).items()))
        return OrderedDict((text_type(k), v) for k, v in record.items())
    # Equal values but the ids and names (counted once, as two), other
    # latencies, bytes a HEAD saved, retries, and open-loop results.
    records = [wire(1), wire(2), wire(3, latency=0.25, first=None),
               wire(4, kind='upload_object', status=201, size=5,
                    head_first=True, retries=2, reconnects=1),
               wire(5, kind='upload_object', status=200, size=7,
                    head_first=True),
               wire(6, latency=0.05, first=0.02, intended_start=1000.0,
                    completed_at=1002.05, send_lag=0.5, worker_time=1.55),
               wire(7, latency=0.5, intended_start=1000.0)]
    known = ResultShapes()
    for record in records:
        assert known.add(tuple(record))
    known.capture(livestats.FIELDS)
    data = protocol.pack(records)
    captured = known.scan(data)[2]
    by_records, by_bytes = (LiveStats(FakeClock(1000.0)) for _ in 'ab')
    for stats in (by_records, by_bytes):
        stats.start_phase('benchmark')
    by_records.add(protocol.unpack(data))
    by_bytes.add_captured(captured, len(records))
    assert by_bytes.pending and by_bytes.window() == by_records.window()
    assert not by_bytes.pending     # read: decoded into the slot
    for stats in (by_records, by_bytes):
        stats.end_phase()
    text = by_records.totals()['benchmark']
    raw = by_bytes.totals()['benchmark']
    for name in ('requests', 'errors', 'retries', 'reconnects',
                 'first_byte', 'last_byte'):
        assert getattr(raw, name) == getattr(text, name), name
    for name in ('first_byte_sum', 'last_byte_sum'):
        assert getattr(raw, name) == pytest.approx(getattr(text, name))
    assert raw.requests[('get_object', 'tiny', '200', False)][0] == 5
    assert raw.requests[('upload_object', 'tiny', '200', False)] == [1, 0]

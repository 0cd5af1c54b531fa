from __future__ import absolute_import, division, print_function

import math
import random

import pytest

from ssbench.results import sortedruns
from ssbench.report.compute import cells
from ssbench.report.compute import scan
from ssbench.report.compute.classicstats import compute, series_stats
from ssbench.measure.rank import percentile_of_sorted

SCENARIO = {
    'name': 'Crafted', 'user_count': 3,
    'sizes': [{'name': 'tiny', 'size_min': 4096, 'size_max': 8192,
               'crud_profile': [6, 0, 3, 1]},
              {'name': 'big', 'size_min': 10 ** 6, 'size_max': 10 ** 6}],
    'initial_files': {'tiny': 30, 'big': 10},
    'crud_profile': [1, 2, 1, 0], 'operation_count': 100,
}
HEADER = {'_scenario_data': SCENARIO, 'name': 'Crafted', 'version': '9.9',
          'user_count': 7, 'operation_count': 100, 'run_seconds': None,
          'container_base': 'ssbench', 'container_count': 100,
          'container_concurrency': 10, 'delete_after': 30}


class FakeStatsFile(object):
    """What compute() needs from statsfile.open_stats()."""

    def __init__(self, batches, header=HEADER):
        self.header = header
        self.batches = batches

    def iter_batches(self):
        return iter(self.batches)


def res(type_='get_object', size='tiny', at=100.5, first=0.01, last=0.02,
        worker=0, txid=None, retries=0, **extra):
    result = {'type': type_, 'size_str': size, 'completed_at': at,
              'first_byte_latency': first, 'last_byte_latency': last,
              'worker_id': worker, 'trans_id': txid, 'retries': retries}
    result.update(extra)
    return result


def err(type_='get_object', size='tiny', at=100.5, worker=0, retries=2):
    return {'type': type_, 'size_str': size, 'completed_at': at,
            'worker_id': worker, 'retries': retries, 'trans_id': None,
            'exception': 'boom', 'traceback': 'Traceback...'}


def run(results, pctile=95, batch=1):
    batches = [results[i:i + batch] for i in range(0, len(results), batch)]
    return compute(FakeStatsFile(batches), pctile)


def group(run_stats, label):
    for g in run_stats.groups:
        if g.label == label:
            return g
    return None


# --- percentile rule ---------------------------------------------------------

def test_percentile_empty():
    assert percentile_of_sorted([], 95) is None


def test_percentile_one_value():
    assert percentile_of_sorted([3.0], 95) == 3.0
    assert percentile_of_sorted([3.0], 50) == 3.0


def test_percentile_two_values():
    # rank 1.9 -> position 2; rank 1 (whole) -> mean of positions 1 and 2.
    assert percentile_of_sorted([1.0, 2.0], 95) == 2.0
    assert percentile_of_sorted([1.0, 2.0], 50) == 1.5


def test_percentile_whole_rank_takes_mean_of_neighbours():
    values = [float(i) for i in range(1, 21)]
    assert percentile_of_sorted(values, 95) == 19.5  # rank 19
    assert percentile_of_sorted(values, 50) == 10.5  # rank 10


def test_percentile_fractional_rank_takes_ceiling():
    values = [float(i) for i in range(1, 11)]
    assert percentile_of_sorted(values, 95) == 10.0  # rank 9.5
    assert percentile_of_sorted(values[:7], 50) == 4.0  # rank 3.5


def test_percentile_extremes_are_clamped():
    values = [1.0, 2.0, 3.0, 4.0]
    assert percentile_of_sorted(values, 100) == 4.0
    assert percentile_of_sorted(values, 0) == 1.0


# --- series statistics -------------------------------------------------------

def test_series_no_values():
    for values in ([], [None, None]):
        empty = series_stats(values)
        assert empty.count == 0 and empty.min is None and empty.avg is None
        assert empty.worst_latency is None


def test_series_ignores_none_and_zero():
    s = series_stats([None, 0.0, 2.0, 4.0, 0, None], trans_ids=list('abcdef'))
    assert (s.count, s.min, s.max, s.avg) == (2, 2.0, 4.0, 3.0)
    assert s.std_dev == 1.0  # population std dev: divide by N
    assert s.pctile == 4.0
    assert (s.worst_latency, s.worst_txid) == (4.0, 'd')


def test_series_all_zero_has_a_worst_but_no_values():
    s = series_stats([0.0, 0.0], trans_ids=[None, 'tx'])
    assert s.count == 0 and s.avg is None
    assert s.worst_latency == 0.0
    assert s.worst_txid is None  # the first of the equal maxima


def test_series_single_value():
    s = series_stats([0.5])
    assert (s.min, s.max, s.avg, s.std_dev, s.pctile) == (
        0.5, 0.5, 0.5, 0.0, 0.5)


def test_series_std_dev():
    values = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    assert series_stats(values).std_dev == 2.0


# --- compute(): groups and counters ------------------------------------------

def test_errors_and_retries():
    rs = run([res(retries=1), err(retries=3), res(worker=1),
              err('upload_object', worker=2, retries=4)])
    total = group(rs, 'TOTAL')
    assert (total.count, total.errors, total.retries) == (2, 2, 8)
    assert total.retry_rate == 400.0
    read = group(rs, 'READ')
    assert (read.count, read.errors, read.retries) == (2, 1, 4)
    # CREATE had only a failure: the group is omitted.
    assert group(rs, 'CREATE') is None
    assert [g.label for g in rs.groups] == ['TOTAL', 'READ']
    # Failed results still count their worker.
    assert rs.worker_count == 3
    assert (rs.jobs_per_worker.min, rs.jobs_per_worker.max) == (1, 1)


def test_jobs_per_worker_ignores_idle_workers():
    rs = run([res(worker=0), res(worker=0), res(worker=1), err(worker=2)])
    jobs = rs.jobs_per_worker
    assert (jobs.min, jobs.max, jobs.avg) == (1, 2, 1.5)
    assert jobs.std_dev == 0.5


def test_only_failures():
    rs = run([err(), err('delete_object', worker=3)])
    assert rs.groups == []
    assert rs.worker_count == 2
    assert rs.start_time is None and rs.rps_counts == []


def test_size_rows_per_group():
    rs = run([res(size='big'), res('upload_object', first=None),
              err('upload_object', size='big'), res(size='tiny')])
    assert [s.size_name for s in group(rs, 'TOTAL').series] == [
        None, 'tiny', 'big']
    # A size that only failed still gets its (empty) rows.
    create = group(rs, 'CREATE')
    assert [s.size_name for s in create.series] == [None, 'tiny', 'big']
    assert create.series[2].last.count == 0
    assert create.series[2].last.worst_latency is None


def test_unknown_sizes_follow_scenario_sizes_in_order_seen():
    rs = run([res(size='zzz'), res(size='big'), res(size='aaa'),
              res(size='tiny')])
    assert [s.size_name for s in group(rs, 'READ').series] == [
        None, 'tiny', 'big', 'zzz', 'aaa']


def test_unknown_type_counts_in_total_only():
    rs = run([res('copy_object'), res()])
    assert group(rs, 'TOTAL').count == 2
    assert group(rs, 'READ').count == 1


def test_results_missing_keys_are_skipped(caplog):
    broken = res()
    del broken['completed_at']
    no_last = res()
    del no_last['last_byte_latency']
    rs = run([broken, no_last, 17, res(at=200.25)])
    assert group(rs, 'TOTAL').count == 1
    assert 'Total number of results skipped: 3' in caplog.text


def test_missing_optional_keys_are_tolerated():
    sparse = res(txid='tx1')
    del sparse['first_byte_latency']
    del sparse['retries']
    rs = run([sparse])
    total = group(rs, 'TOTAL')
    assert (total.count, total.retries) == (1, 0)
    assert total.series[0].last.worst_txid == 'tx1'
    assert total.series[0].first.worst_latency is None


# --- times and rates ---------------------------------------------------------

def test_start_stop_duration():
    rs = run([res(at=1000.9, last=0.5), res(at=1000.2, last=0.1),
              res(at=1003.7, last=0.2), err(at=999.0)])
    # start: earliest completion second less the latency of the first
    # result found in that second; stop: the latest completion second.
    assert rs.start_time == 1000 - 0.5
    assert rs.stop_time == 1003
    assert rs.duration == 3.5
    total = group(rs, 'TOTAL')
    # Rate: count / (latest completion - earliest request start).
    assert total.avg_req_per_sec == pytest.approx(3 / (1003.7 - 1000.1))


def test_rps_histogram_counts_empty_seconds():
    rs = run([res(at=10.5), res(at=10.9), res(at=13.0), res(at=11.99),
              err(at=12.5), res(at=10.1)])
    assert rs.rps_counts == [3, 1, 0, 1]


def test_rate_is_infinite_for_a_zero_span():
    rs = run([res(at=5.0, first=0.0, last=0.0)])
    assert group(rs, 'TOTAL').avg_req_per_sec == float('inf')


# --- worst latency TX IDs ----------------------------------------------------

def test_worst_is_first_result_with_the_max_across_cells():
    rs = run([res(last=0.5, txid='a'), res('upload_object', last=0.9,
                                           first=None, txid='b'),
              res(last=0.9, txid='c'), res(size='big', last=0.9, txid='d')])
    total = group(rs, 'TOTAL')
    assert total.series[0].last.worst_txid == 'b'
    assert group(rs, 'READ').series[0].last.worst_txid == 'c'
    assert total.series[0].first.worst_latency == 0.01


def test_worst_of_noop_results_is_their_none_trans_id():
    rs = run([res(first=0.0, last=0.0), res(first=0.0, last=0.0)])
    last = group(rs, 'TOTAL').series[0].last
    assert last.count == 0
    assert last.worst_latency == 0.0 and last.worst_txid is None


def test_puts_have_no_first_byte_worst():
    rs = run([res('upload_object', first=None, txid='tx9')])
    first = group(rs, 'CREATE').series[0].first
    assert first.count == 0 and first.worst_latency is None


# --- size table --------------------------------------------------------------

def test_size_table():
    rs = run([res()])
    tiny, big = rs.size_rows
    assert (tiny.name, tiny.size_min, tiny.size_max) == ('tiny', 4096, 8192)
    assert tiny.share_pct == 75.0 and big.share_pct == 25.0
    assert tiny.crud_pcts == [60.0, 0.0, 30.0, 10.0]
    assert big.crud_pcts == [25.0, 50.0, 25.0, 0.0]  # the default profile
    assert rs.crud_weighted == pytest.approx([51.25, 12.5, 28.75, 7.5])
    assert (rs.name, rs.version, rs.concurrency, rs.delete_after) == (
        'Crafted', '9.9', 7, 30)


def test_size_table_of_head_and_list():
    scenario = dict(SCENARIO, crud_profile={'CREATE': 1, 'HEAD': 2,
                                            'LIST': 1})
    header = dict(HEADER, _scenario_data=scenario)
    rs = compute(FakeStatsFile([[res()]], header))
    tiny, big = rs.size_rows
    assert tiny.crud_pcts == [60.0, 0.0, 30.0, 10.0, 0.0, 0.0]
    assert big.crud_pcts == [25.0, 0.0, 0.0, 0.0, 50.0, 25.0]
    assert rs.crud_weighted == pytest.approx([51.25, 0, 22.5, 7.5, 12.5,
                                              6.25])


def test_head_and_list_groups_follow_delete():
    rs = run([res('list_container'), res('head_object'),
              res('delete_object'), res()])
    assert [g.label for g in rs.groups] == ['TOTAL', 'READ', 'DELETE',
                                            'HEAD', 'LIST']
    assert [g.key for g in rs.groups][-2:] == ['head', 'list']


# --- the streaming computation equals the naive one --------------------------

def naive(results, pctile):
    """Series as the original computes them: lists, sort, sum."""
    ok = [r for r in results if 'exception' not in r]
    out = {}
    for label, _, job_type in cells.GROUPS:
        members = [r for r in ok if job_type in (None, r['type'])]
        for size in (None, 'tiny', 'big'):
            rows = [r for r in members if size in (None, r['size_str'])]
            for kind in ('first_byte_latency', 'last_byte_latency'):
                out[label, size, kind] = series_stats(
                    [r[kind] for r in rows], pctile,
                    [r['trans_id'] for r in rows])
    return out


def random_results(rng, n):
    results = []
    for i in range(n):
        type_ = rng.choice(['get_object', 'upload_object', 'delete_object'])
        # Few distinct values: plenty of ties across runs and cells.
        last = rng.choice([0.0, None, 0.002, 0.5]) if rng.random() < 0.05 \
            else round(rng.lognormvariate(-3, 1), 3)
        first = (last * rng.choice([0.5, 1.0]) if last else last) \
            if type_ == 'get_object' else None
        if rng.random() < 0.03:
            results.append(err(type_, rng.choice(['tiny', 'big'])))
            continue
        results.append(res(type_, rng.choice(['tiny', 'tiny', 'big']),
                           at=1000 + i / 50, first=first, last=last,
                           worker=rng.randrange(3), txid='tx%d' % i,
                           retries=rng.choice([0, 0, 0, 1])))
    return results


@pytest.mark.parametrize('pctile', [0, 1, 50, 90, 95, 99, 100])
@pytest.mark.parametrize('budget, block', [(7, 2), (100, 3), (100, 512),
                                           (1 << 20, 5)])
def test_streaming_equals_naive(monkeypatch, pctile, budget, block):
    # Tiny budgets force many spilled runs per cell, tiny blocks many
    # block reads per run (and a cache that keeps overflowing).
    monkeypatch.setattr(scan, 'BUFFER_BUDGET', budget)
    monkeypatch.setattr(scan, 'BUDGET_CHECK', 5)
    monkeypatch.setattr(sortedruns, 'BLOCK', block)
    monkeypatch.setattr(sortedruns, 'BLOCK_CACHE', 7)
    results = random_results(random.Random(pctile * 1000 + budget + block),
                             900)
    rs = run(results, pctile, batch=3)
    want = naive(results, pctile)
    checked = 0
    for g in rs.groups:
        for size_series in g.series:
            for kind, got in (('first_byte_latency', size_series.first),
                              ('last_byte_latency', size_series.last)):
                exp = want[g.label, size_series.size_name, kind]
                assert (got.count, got.min, got.max, got.pctile) == (
                    exp.count, exp.min, exp.max, exp.pctile)
                assert (got.worst_latency, got.worst_txid) == (
                    exp.worst_latency, exp.worst_txid)
                if exp.count:
                    assert got.avg == pytest.approx(exp.avg, rel=1e-13)
                    assert got.std_dev == pytest.approx(exp.std_dev,
                                                        rel=1e-9, abs=1e-15)
                checked += 1
    assert checked >= 20


def test_identical_values_have_zero_std_dev(monkeypatch):
    monkeypatch.setattr(sortedruns, 'BLOCK', 2)
    monkeypatch.setattr(scan, 'BUFFER_BUDGET', 3)
    monkeypatch.setattr(scan, 'BUDGET_CHECK', 1)
    rs = run([res(last=0.1, at=100 + i) for i in range(20)])
    last = group(rs, 'TOTAL').series[0].last
    assert (last.min, last.max, last.avg, last.pctile) == (0.1, 0.1, 0.1, 0.1)
    # Like the original's (whose own sum here is 2.0000000000000004), only
    # rounding noise far below the printed six decimals.
    assert last.std_dev < 1e-15


def test_key_order_matches_float_order():
    values = [-1e300, -2.5, -1e-300, 0.0, 1e-300, 0.001, 0.5, 1.0, 3.0e8]
    keys = [sortedruns._key(v) for v in values]
    assert keys == sorted(keys)
    assert [sortedruns._unkey(k) for k in keys] == values
    assert math.copysign(1, sortedruns._unkey(sortedruns._key(-0.0))) == -1


def test_compute_accepts_a_path(tmp_path):
    from ssbench.results.statswriter import StatsWriter
    path = str(tmp_path / 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer.write_batch([res(txid='tx1'), res(at=101.5, last=0.04)])
    gz_path = writer.finalize()
    rs = compute(gz_path, 50)
    last = group(rs, 'TOTAL').series[0].last
    assert (last.count, last.pctile) == (2, 0.03)


class RawFakeStatsFile(FakeStatsFile):
    """Batches as raw msgpack decoding leaves them: bytes everywhere."""
    raw_strings = True

    def iter_batches(self, raw=False):
        assert raw
        return iter(self.batches)


def to_bytes(obj):
    if isinstance(obj, dict):
        return dict((to_bytes(k), to_bytes(v)) for k, v in obj.items())
    if isinstance(obj, type(u'')):
        return obj.encode('utf-8')
    return obj


def test_raw_decoded_results():
    results = [res(size=u'caf\xe9', txid='tx1', last=0.5),
               res(size='tiny', txid='tx2'), err(size='tiny')]
    rs = compute(RawFakeStatsFile([[to_bytes(r) for r in results]]))
    total = group(rs, 'TOTAL')
    assert (total.count, total.errors) == (2, 1)
    assert [s.size_name for s in total.series] == [None, 'tiny', u'caf\xe9']
    assert total.series[0].last.worst_txid == u'tx1'
    assert group(rs, 'READ').count == 2


def test_the_text_reports_pass_is_the_analysis_pass_without_detail():
    results = [res(worker=0, last=0.5, retries=1,
                   retry_causes={'401': 1}),
               res('upload_object', worker=0, first=None, size='big'),
               dict(err(worker=1), retry_causes={'503': 2}),
               res(at=101.5, last=0.04, worker=2)]
    store = sortedruns.RunStore()
    try:
        plain = scan.scan_file(FakeStatsFile([results]), store, detail=False)
        full = scan.scan_file(FakeStatsFile([results]), store)
    finally:
        store.close()
    for column in ('count', 'errors', 'retries', 'start', 'stop',
                   'worst_first', 'worst_last', 'worst_last_id'):
        assert getattr(plain, column) == getattr(full, column), column
    assert list(plain.successes_per_second()) == [(100, 2), (101, 1)]
    assert plain.workers == full.workers == {0: 2, 1: 0, 2: 1}
    assert plain.worker_errors == full.worker_errors == {1: 1}
    # Left out: time buckets, causes of failures and of retries.
    assert plain.buckets is None and full.buckets is not None
    assert plain.causes.summary() == [] and full.causes.summary() != []
    assert plain.retry_causes.summary()['total'] == 0
    assert full.retry_causes.summary()['total'] == 3

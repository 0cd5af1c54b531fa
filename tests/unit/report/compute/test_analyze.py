"""analyze(): the whole document against the naive computation."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from ssbench import OPERATION_TYPES
from ssbench.results import sortedruns
from ssbench.report.compute import cells, classicstats
from ssbench.report.compute.analyze import analyze
from ssbench.measure import loghist
from ssbench.report.compute import scan, timebuckets
from ssbench.measure.rank import percentile_name
from ssbench.errors import UsageError
from tests import analysis_naive as naive
from tests.analysis_naive import FakeStatsFile, err, res
from tests import paths

PCTILES = [0, 50, 90, 95, 99, 99.9, 100]


def run(results, skip=0, pctiles=PCTILES, batch=3):
    return analyze(FakeStatsFile(results, batch=batch), pctiles, skip)


def operation(doc, key):
    for op in doc['operations']:
        if op['operation'] == key:
            return op
    return None


def check_document(doc, results, pctiles=PCTILES):
    """Every number of doc against the naive computation of results."""
    keys = [key for _, key, _ in cells.GROUPS
            if naive._members(results, key)]
    assert [op['operation'] for op in doc['operations']] == keys
    for op in doc['operations']:
        want = naive.operation(results, op['operation'])
        for name in ('count', 'errors', 'retries', 'retries_by_cause',
                     'auth_retries', 'reconnects', 'bytes', 'start', 'stop',
                     'throughput'):
            assert op[name] == want[name], name
        if want['req_per_s'] is None:
            assert op['req_per_s'] is None
        else:
            assert op['req_per_s'] == pytest.approx(want['req_per_s'])
        members = naive._members(results, op['operation'])
        ok = [r for r in members if 'exception' not in r]
        for kind in ('first_byte', 'last_byte'):
            entries = op['latency'][kind]
            assert entries[0]['size'] is None
            sizes = [e['size'] for e in entries[1:]]
            scenario_first = [s for s in ('tiny', 'big') if s in sizes]
            assert sizes[:len(scenario_first)] == scenario_first
            assert set(sizes) == set(r['size_str'] for r in members)
            for entry in entries:
                rows = [r for r in ok
                        if entry['size'] in (None, r['size_str'])]
                exp = naive.latency(rows, kind + '_latency', pctiles)
                for name in ('count', 'min', 'max', 'worst_trans_id',
                             'histogram'):
                    assert entry[name] == exp[name], (kind, name)
                for pctile in pctiles:
                    assert entry[percentile_name(pctile, '_')] == exp[pctile]
                if exp['count']:
                    assert entry['avg'] == pytest.approx(exp['avg'],
                                                         rel=1e-13)
                    assert entry['std_dev'] == pytest.approx(
                        exp['std_dev'], rel=1e-9, abs=1e-15)
        check_all_requests(op, members, pctiles)
    check_timeseries(doc, results, keys)
    check_errors(doc, results)
    check_retries(doc, results)


def check_all_requests(op, members, pctiles):
    entries = op['latency']['all_requests']
    assert [e['size'] for e in entries] == [
        e['size'] for e in op['latency']['last_byte']]
    for entry in entries:
        rows = [r for r in members if entry['size'] in (None, r['size_str'])]
        exp = naive.all_requests(rows, pctiles)
        for name in ('count', 'failures', 'failures_without_time', 'min',
                     'max', 'worst_trans_id', 'histogram'):
            assert entry[name] == exp[name], name
        for pctile in pctiles:
            assert entry[percentile_name(pctile, '_')] == exp[pctile]
        if exp['count']:
            assert entry['avg'] == pytest.approx(exp['avg'], rel=1e-13)
            assert entry['std_dev'] == pytest.approx(exp['std_dev'],
                                                     rel=1e-9, abs=1e-15)


def check_timeseries(doc, results, keys):
    ts = doc['timeseries']
    width, start, count, want = naive.timeseries(
        results, timebuckets.MAX_BUCKETS, keys)
    assert (ts['bucket_seconds'], ts['start'], ts['count']) == (
        width, start, count)
    assert ts['percentile_relative_error'] == loghist.RELATIVE_ERROR
    assert sorted(ts['operations']) == sorted(keys)
    for key in keys:
        got = ts['operations'][key]
        for name in ('requests', 'errors', 'bytes'):
            assert got[name] == want[key][name], (key, name)
        for name in ('first_byte_p50', 'first_byte_p99', 'last_byte_p50',
                     'last_byte_p99'):
            assert len(got[name]) == count
            for value, exact in zip(got[name], want[key][name]):
                if exact is None:
                    assert value is None
                else:
                    assert abs(value - exact) <= (
                        loghist.RELATIVE_ERROR * exact)


def check_errors(doc, results):
    table, order = naive.causes(results)
    failed = [r for r in results if 'exception' in r]
    assert doc['errors']['total'] == len(failed)
    order.sort(key=lambda key: -table[key][0])  # stable: ties as seen
    got = doc['errors']['causes']
    assert [(c['operation'], c['cause']) for c in got] == order
    for cause in got:
        count, first_seen, last_seen, txid, message = table[
            cause['operation'], cause['cause']]
        assert (cause['count'], cause['first_seen'], cause['last_seen'],
                cause['example_trans_id'], cause['example_message']) == (
            count, first_seen, last_seen, txid, message)
        status, error_class = cause['status'], cause['error_class']
        if status is None:
            assert cause['cause'] == (error_class or 'not recorded')
        else:
            # An S3 run's code beside the status.
            assert cause['cause'] == ' '.join(
                ['HTTP %d' % status] + ([error_class] if error_class else []))


def check_retries(doc, results):
    total, auth, table, order = naive.retries(results)
    order.sort(key=lambda key: -table[key])  # stable: ties as seen
    assert doc['retries'] == {
        'total': total, 'auth': auth,
        'causes': [{'operation': op, 'cause': cause,
                    'count': table[op, cause], 'auth': cause == 'HTTP 401'}
                   for op, cause in order]}


@pytest.mark.parametrize('seed', range(4))
def test_document_equals_naive(seed):
    results = naive.random_run(seed)
    check_document(run(results), results)


@pytest.mark.parametrize('seed', range(2))
def test_head_and_list_make_operations_of_their_own(seed):
    results = naive.random_run(seed, types=OPERATION_TYPES)
    doc = run(results)
    check_document(doc, results)
    keys = [op['operation'] for op in doc['operations']]
    assert keys == ['total', 'create', 'read', 'update', 'delete', 'head',
                    'list']
    assert set(doc['timeseries']['operations']) == set(keys)
    causes = set(cause['operation'] for cause in doc['errors']['causes'])
    assert set(['head', 'list']) <= causes
    # They move no object bytes.
    for key in ('head', 'list'):
        assert doc['bandwidth']['operations'][key]['bytes'] is None


@pytest.mark.parametrize('budget, block', [(7, 2), (100, 3), (1000, 512)])
def test_spilled_runs_give_the_same_document(monkeypatch, budget, block):
    # Tiny budgets force many sorted runs per cell, tiny blocks many block
    # reads per run (and a block cache that keeps overflowing); few time
    # buckets force the width to double several times.
    monkeypatch.setattr(scan, 'BUFFER_BUDGET', budget)
    monkeypatch.setattr(scan, 'BUDGET_CHECK', 5)
    monkeypatch.setattr(sortedruns, 'BLOCK', block)
    monkeypatch.setattr(sortedruns, 'BLOCK_CACHE', 7)
    monkeypatch.setattr(timebuckets, 'MAX_BUCKETS', 9)
    results = naive.random_run(budget + block, 900)
    check_document(run(results), results)


def test_old_files_say_not_recorded():
    results = naive.random_run(7, new_keys=False)
    doc = run(results)
    check_document(doc, results)
    assert doc['errors']['recorded'] is False
    assert set(c['cause'] for c in doc['errors']['causes']) == {
        'not recorded'}
    assert all(op['reconnects'] is None for op in doc['operations'])
    assert operation(doc, 'read')['bytes'] is None
    assert operation(doc, 'create')['bytes'] is not None


def test_new_keys():
    results = [
        res('get_object', at=10.1, size=100, reconnects=1, status=200),
        res('upload_object', at=10.2, first=None, size=50, reconnects=0,
            status=201),
        err('get_object', at=11.5, status=404, reconnects=2,
            exception='ClientException: 404 Not Found\nmore',
            trans_id='tx404'),
        err('get_object', at=12.5, status=404, reconnects=0),
        err('delete_object', at=13.0, error_class='timeout',
            exception='Timeout: 20 s'),
        err('delete_object', at=12.0, status=None,
            error_class='ConnectionRefusedError'),
    ]
    doc = run(results)
    check_document(doc, results)
    read = operation(doc, 'read')
    assert (read['count'], read['errors'], read['reconnects'],
            read['bytes']) == (1, 2, 3, 100)
    delete = operation(doc, 'delete')
    assert (delete['count'], delete['errors']) == (0, 2)
    assert delete['bytes'] is None
    assert delete['latency']['last_byte'][0]['count'] == 0
    assert doc['errors']['recorded'] is True
    assert doc['errors']['causes'][0] == {
        'operation': 'read', 'cause': 'HTTP 404', 'status': 404,
        'error_class': None, 'count': 2, 'first_seen': 11.5,
        'last_seen': 12.5, 'example_trans_id': 'tx404',
        'example_message': 'ClientException: 404 Not Found'}
    assert [(c['cause'], c['error_class'], c['status'])
            for c in doc['errors']['causes'][1:]] == [
        ('timeout', 'timeout', None),
        ('ConnectionRefusedError', 'ConnectionRefusedError', None)]


def test_retries_that_met_an_expired_token_are_no_cluster_error():
    # A token expired under a run: the requests that met it got a 401,
    # the master renewed the token, and they succeeded with the new one.
    results = [res(at=10.0 + i, retries=1, retry_causes={'401': 1},
                   status=200) for i in range(3)]
    results += [res(at=20.0, retries=2, retry_causes={'503': 2},
                    status=200),
                res('upload_object', at=21.0, first=None, retries=1,
                    retry_causes={'ConnectionResetError': 1}, status=201)]
    doc = run(results)
    check_document(doc, results)
    assert doc['errors']['total'] == 0
    assert doc['retries']['auth'] == 3
    total = operation(doc, 'total')
    assert (total['retries'], total['auth_retries']) == (6, 3)
    assert operation(doc, 'read')['retries_by_cause'] == {
        'HTTP 401': 3, 'HTTP 503': 2}
    assert operation(doc, 'create')['retries_by_cause'] == {
        'ConnectionResetError': 1}


def test_a_run_without_failures_records_causes_when_it_has_reconnects():
    doc = run([res(reconnects=0, status=200)])
    assert doc['errors'] == {'recorded': True, 'total': 0, 'causes': []}
    assert run([res()])['errors']['recorded'] is False


def test_control_records_are_not_results():
    control = {'kind': 'worker_health', 'worker_id': 3}
    broken = res()
    del broken['last_byte_latency']
    doc = run([control, res(at=5.5), broken, 17, control, res(at=6.5)])
    assert doc['run']['records'] == 4
    assert doc['run']['skipped'] == 2
    assert operation(doc, 'total')['count'] == 2


def test_run_fields_equal_the_text_report():
    results = naive.random_run(11)
    doc = run(results)
    want = classicstats.compute(FakeStatsFile(results), 95)
    got = doc['run']
    assert (got['name'], got['version'], got['worker_count'],
            got['concurrency'], got['skipped'], got['skip_seconds']) == (
        want.name, want.version, want.worker_count, want.concurrency,
        want.skipped, 0)
    # The span to the precision of the records, not the "Ran" line's.
    ok = [r for r in results if 'exception' not in r]
    start = min(r['completed_at'] - (r['last_byte_latency'] or 0)
                for r in ok)
    stop = max(r['completed_at'] for r in ok)
    assert (got['start_time'], got['stop_time']) == (start, stop)
    assert got['duration'] == pytest.approx(stop - start)
    assert got['records'] == len(results)
    assert doc['header'] == dict((k, v) for k, v in naive.HEADER.items()
                                 if k != '_scenario_data')
    assert doc['scenario'] == naive.HEADER['_scenario_data']


def test_only_failures():
    doc = run([err(at=3.5), err('delete_object', at=4.5)])
    assert [op['operation'] for op in doc['operations']] == [
        'total', 'read', 'delete']
    total = operation(doc, 'total')
    assert (total['count'], total['start'], total['req_per_s'],
            total['throughput']) == (0, None, None, None)
    assert (doc['run']['start_time'], doc['run']['duration']) == (None,
                                                                  None)
    assert doc['timeseries']['operations']['total']['errors'] == [1, 1]


def test_empty_file():
    doc = run([])
    assert doc['operations'] == [] and doc['errors']['total'] == 0
    assert (doc['timeseries']['count'], doc['timeseries']['start']) == (
        0, None)


def test_zero_span_has_no_rate():
    doc = run([res(at=5.0, first=0.0, last=0.0)])
    total = operation(doc, 'total')
    assert total['req_per_s'] is None
    assert total['latency']['last_byte'][0]['worst_trans_id'] is None


# --- all requests: failures at their time to failure -----------------------

def test_timeouts_make_the_all_requests_p99_worse():
    calm = operation(run(naive.timeouts_run(0)), 'read')['latency']
    stormy = operation(run(naive.timeouts_run(30)), 'read')['latency']
    # The successes-only figures do not see the timeouts at all...
    assert stormy['last_byte'][0] == calm['last_byte'][0]
    assert calm['all_requests'][0]['p99'] == calm['last_byte'][0]['p99']
    # ...all requests do: 30 of 1,030 took 20 s or more.
    everything = stormy['all_requests'][0]
    assert everything['p99'] >= 20.0 > stormy['last_byte'][0]['p99']
    assert everything['p99'] > calm['all_requests'][0]['p99']
    assert (everything['count'], everything['failures'],
            everything['failures_without_time']) == (1030, 30, 0)
    assert (everything['max'], everything['worst_trans_id']) == (49.0,
                                                                 'txt29')


@pytest.mark.parametrize('timeouts', [1, 10, 11, 200])
def test_all_requests_never_better_when_requests_time_out(timeouts):
    calm = run(naive.timeouts_run(0))
    stormy = run(naive.timeouts_run(timeouts))
    for pctile in PCTILES:
        key = percentile_name(pctile, '_')
        assert (operation(stormy, 'total')['latency']['all_requests'][0][
            key] >= operation(calm, 'total')['latency']['all_requests'][0][
            key]), pctile


def test_failures_without_a_time_are_counted_apart():
    doc = run(naive.timeouts_run(30, with_time=False))
    latency = operation(doc, 'read')['latency']
    everything = latency['all_requests'][0]
    assert (everything['failures'], everything['failures_without_time']) == (
        0, 30)
    del everything['failures'], everything['failures_without_time']
    assert everything == latency['last_byte'][0]


@pytest.mark.parametrize('value', [-1.0, float('nan'), float('inf'), 'x',
                                   None, True, [1]])
def test_a_time_to_failure_that_is_no_time_counts_as_none(value):
    results = naive.timeouts_run(0) + [err(time_to_failure=value),
                                       err(time_to_failure=3)]
    everything = operation(run(results), 'read')['latency']['all_requests'][0]
    assert (everything['count'], everything['failures'],
            everything['failures_without_time'], everything['max']) == (
        1001, 1, 1, 3.0)


def test_open_loop_failures_count_their_wait_too(tmp_path):
    from ssbench.results.statswriter import StatsWriter
    # A --rate run: every job was sent 0.5 s after its intended start.
    header = dict(naive.HEADER, rate=100.0, arrival=u'uniform')
    writer = StatsWriter(str(tmp_path / 'rate.stat'), header)
    writer.write_batch([dict(r, intended_start=r['completed_at'] -
                             (r.get('last_byte_latency') or
                              r.get('time_to_failure')) - 0.5)
                        for r in naive.timeouts_run(30)])
    doc = analyze(writer.finalize(), PCTILES)
    everything = operation(doc, 'read')['latency']['all_requests'][0]
    assert (everything['max'], everything['failures']) == (
        pytest.approx(49.5), 30)
    assert operation(doc, 'read')['latency']['last_byte'][0]['max'] == (
        pytest.approx(0.55))
    service = doc['open_loop']['service_time']['operations']
    assert [op['latency']['all_requests'][0]['max'] for op in service
            if op['operation'] == 'read'] == [49.0]


def test_the_text_report_is_blind_to_times_to_failure():
    calm = classicstats.compute(
        FakeStatsFile(naive.timeouts_run(30, with_time=False)), 99)
    stormy = classicstats.compute(FakeStatsFile(naive.timeouts_run(30)), 99)
    assert [vars_of(g) for g in calm.groups] == [
        vars_of(g) for g in stormy.groups]


def vars_of(group):
    return [(s.first.pctile, s.last.pctile, s.last.count, s.last.max)
            for s in group.series] + [group.count, group.errors]


# --- warm-up -----------------------------------------------------------------

@pytest.mark.parametrize('skip', [0.5, 30, 200.25])
def test_warm_up_leaves_results_out(skip):
    results = naive.random_run(21)
    fake = FakeStatsFile(results)
    doc = analyze(fake, PCTILES, skip)
    kept = naive.included(results, skip)
    check_document(doc, kept)
    assert doc['run']['skip_seconds'] == skip
    assert doc['run']['records'] == len(results)


def test_warm_up_takes_one_pass_when_the_first_start_comes_first():
    results = [res(at=100.0 + i / 10, last=0.05) for i in range(100)]
    fake = FakeStatsFile(results)
    doc = analyze(fake, PCTILES, 2)
    assert fake.passes == 1
    check_document(doc, naive.included(results, 2))
    assert operation(doc, 'total')['count'] == 80


def test_warm_up_rescans_when_the_first_start_moves_back():
    # The first results start at 100; a later one started at 90, which
    # brings back the result completed at 100.5 that was left out.
    results = [res(at=100.2, last=0.2), res(at=100.5, last=0.5),
               res(at=101.0, last=0.5), res(at=104.0, last=14.0),
               res(at=106.0, last=0.5)]
    fake = FakeStatsFile(results, batch=1)
    doc = analyze(fake, PCTILES, 10.5)
    assert fake.passes == 2
    kept = naive.included(results, 10.5)
    assert [r['completed_at'] for r in kept] == [100.5, 101.0, 104.0,
                                                 106.0]
    check_document(doc, kept)


def test_warm_up_covers_failures():
    results = [err(at=50.0), res(at=55.0, last=1.0), err(at=58.0),
               res(at=70.0, last=1.0)]
    doc = analyze(FakeStatsFile(results), PCTILES, 6)
    assert doc['errors']['total'] == 1
    assert operation(doc, 'total')['count'] == 1


def test_warm_up_leaves_their_retries_out_too():
    results = [res(at=50.0, retries=1, retry_causes={'401': 1}),
               err(at=51.0, retries=1, retry_causes={'503': 1}),
               res(at=70.0, last=1.0, retries=2,
                   retry_causes={'401': 1, '503': 1})]
    doc = analyze(FakeStatsFile(results), PCTILES, 6)
    assert doc['retries']['total'] == 2
    assert operation(doc, 'read')['retries_by_cause'] == {
        'HTTP 401': 1, 'HTTP 503': 1}


# --- arguments ---------------------------------------------------------------

def test_percentile_keys_follow_the_argument():
    doc = run([res()], pctiles=[50.0, 99.9, 50, 99.99])
    assert doc['percentiles'] == [50, 99.9, 99.99]
    entry = operation(doc, 'total')['latency']['last_byte'][0]
    assert (entry['p50'], entry['p99_9'], entry['p99_99']) == (0.02,) * 3


@pytest.mark.parametrize('pctiles', [[101], [-1], ['95'], [True],
                                     [float('nan')]])
def test_bad_percentiles(pctiles):
    with pytest.raises(UsageError):
        run([res()], pctiles=pctiles)


@pytest.mark.parametrize('skip', [-1, 'x', float('inf'), float('nan')])
def test_bad_skip(skip):
    with pytest.raises(UsageError):
        run([res()], skip=skip)


def test_bad_values_are_a_stats_file_error():
    from ssbench.errors import StatsFileError
    with pytest.raises(StatsFileError) as info:
        run([res(), res(at=float('nan'))])
    assert 'bad value' in str(info.value)


# --- raw decoding and the 0.3.9 golden files ---------------------------------

class RawFakeStatsFile(FakeStatsFile):
    """Batches as raw msgpack decoding leaves them: bytes everywhere."""
    raw_strings = True

    def iter_batches(self, raw=False):
        assert raw
        self.passes += 1
        return iter(self.batches)


def to_bytes(obj):
    if isinstance(obj, dict):
        return dict((to_bytes(k), to_bytes(v)) for k, v in obj.items())
    if isinstance(obj, type(u'')):
        return obj.encode('utf-8')
    return obj


def test_raw_decoding_gives_the_same_document():
    results = naive.random_run(5) + [
        res(size_str=u'caf\xe9', txid=u'tx\xe9'),
        err(exception=u'\xe9chec', error_class=u'Caf\xe9Error')]
    raw = RawFakeStatsFile([to_bytes(r) for r in results], path='fake.stat')
    assert analyze(raw, PCTILES) == run(results)


GOLDEN = paths.GOLDEN


@pytest.mark.parametrize('name', ['swift_u8_o2000_c10',
                                  'noop_u4_w1_b1.run1'])
def test_golden_files_match_the_text_report(name):
    path = os.path.join(GOLDEN, name + '.stat.gz')
    doc = analyze(path)
    by_pctile = dict((p, classicstats.compute(path, p)) for p in (50, 95))
    text = by_pctile[95]
    assert [op['operation'] for op in doc['operations']] == [
        g.key for g in text.groups]
    total = doc['operations'][0]
    assert (doc['run']['start_time'], doc['run']['stop_time'],
            doc['run']['worker_count']) == (
        total['start'], total['stop'], text.worker_count)
    # The "Ran" line's whole seconds are off by up to a second.
    assert abs(doc['run']['duration'] - text.duration) < 1
    assert doc['stats_file'] == path
    for index, op in enumerate(doc['operations']):
        group = text.groups[index]
        assert (op['count'], op['errors'], op['retries']) == (
            group.count, group.errors, group.retries)
        assert op['req_per_s'] == group.avg_req_per_sec
        assert op['reconnects'] is None
        for kind, attr in (('first_byte', 'first'), ('last_byte', 'last')):
            entries = op['latency'][kind]
            assert [e['size'] for e in entries] == [
                s.size_name for s in group.series]
            for row, entry in enumerate(entries):
                want = dict((p, getattr(by_pctile[p].groups[index].series[
                    row], attr)) for p in by_pctile)
                assert (entry['count'], entry['min'], entry['max'],
                        entry['p95'], entry['p50']) == (
                    want[95].count, want[95].min, want[95].max,
                    want[95].pctile, want[50].pctile)
                assert entry['worst_trans_id'] == (
                    want[95].worst_txid if want[95].worst_latency is not None
                    else None)
                assert sum(b[2] for b in entry['histogram']) == (
                    want[95].count)
                if entry['count']:
                    assert entry['avg'] == pytest.approx(want[95].avg,
                                                         rel=1e-12)
    total = doc['operations'][0]
    counts = sorted(text.rps_counts[1:-1])
    assert total['throughput']['seconds'] == len(counts)
    assert total['throughput']['median'] == naive.percentile(counts, 50)
    assert doc['timeseries']['operations']['total']['requests'] == (
        text.rps_counts)
    assert doc['errors'] == {'recorded': False, 'total': 0, 'causes': []}


def test_golden_workers_are_listed_by_their_results_alone():
    doc = analyze(os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz'))
    text = classicstats.compute(
        os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz'), 95)
    workers = doc['workers']
    assert len(workers) == text.worker_count
    assert sum(w['results'] for w in workers) == doc['operations'][0][
        'count']
    # 0.3.9 recorded neither who was there nor when workers came and went.
    assert all(w['at_start'] is None and w['lost'] is None and
               w['host'] is None for w in workers)


def test_the_workers_list_has_who_joined_late_and_their_results(tmp_path):
    from ssbench.results import eventrecords
    from ssbench.results.statswriter import StatsWriter
    header = dict(naive.HEADER, workers=[{'worker_id': 0, 'host': 'a'}])
    writer = StatsWriter(str(tmp_path / 'run.stat'), header)
    writer.write_batch([res(at=100.5, worker=0), res(at=101.5, worker=0)])
    writer.write_batch([eventrecords.record(
        eventrecords.WORKER_JOINED, 1, 'pid 5 on b', now=101.0)])
    writer.write_batch([res(at=101.6, worker=1), err(at=101.7, worker=1)])
    doc = analyze(writer.finalize())
    start = doc['run']['start_time']
    assert [(w['worker_id'], w['host'], w['at_start'], w['joined'],
             w['results'], w['errors']) for w in doc['workers']] == [
        (0, 'a', True, None, 2, 0), (1, 'b', False, 101.0 - start, 1, 1)]


def test_golden_bytes_where_the_file_has_them():
    doc = analyze(os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz'))
    bytes_of = dict((op['operation'], op['bytes'])
                    for op in doc['operations'])
    # 0.3.9 put "size" in PUT results only.
    assert bytes_of['read'] is None and bytes_of['delete'] is None
    assert bytes_of['create'] > 0 and bytes_of['update'] >= 0
    assert bytes_of['total'] == bytes_of['create'] + bytes_of['update']


def test_a_written_stats_file_gives_the_same_document(tmp_path):
    from ssbench.results.statswriter import StatsWriter
    results = naive.random_run(9)
    writer = StatsWriter(str(tmp_path / 'run.stat'), naive.HEADER)
    for i in range(0, len(results), 50):
        writer.write_batch(results[i:i + 50])
        writer.write_batch([{'kind': 'worker_health', 'worker_id': 1}])
    path = writer.finalize()
    doc = analyze(path, PCTILES)
    assert doc['stats_file'] == path
    doc['stats_file'] = 'fake.stat'
    assert doc == run(results)


def test_an_s3_run_names_its_api_in_the_json_and_the_text(tmp_path):
    from ssbench.results.statswriter import StatsWriter
    from ssbench.report.compute import classicnotes
    from tests.unit.report.compute.test_protocol import S3_HEADER
    header = dict(naive.HEADER, protocol=S3_HEADER['protocol'],
                  s3=S3_HEADER['s3'])
    writer = StatsWriter(str(tmp_path / 's3.stat'), header)
    writer.write_batch(naive.random_run(5))
    stats = writer.finalize()
    doc = analyze(stats, PCTILES)
    from tests.unit.report.render.test_jsonfile import check_schema
    check_schema(doc)
    assert doc['run']['protocol'] == 's3'
    assert doc['run']['s3']['buckets'] == S3_HEADER['s3']['buckets']
    assert classicnotes.compute(stats).notes[0].startswith(
        'S3 API at http://127.0.0.1:8080 (region us-east-1, ')
    # A Swift run's has neither.
    assert 'protocol' not in run(naive.random_run(5))['run']


def test_the_duration_and_bandwidth_are_not_cut_to_whole_seconds():
    # A 3 s step whose results complete from 100.05 to 103.95: 0.3.9's
    # "Ran" span is 103 - 99.99 (3.01 s), near a second short of 3.91 s.
    results = [res(at=100.05 + i * 0.1, last=0.01, size=1000)
               for i in range(40)]
    doc = run(results)
    assert doc['run']['duration'] == pytest.approx(3.91)
    total = doc['bandwidth']['operations']['total']
    assert total['bytes_per_second'] == pytest.approx(40000 / 3.91)
    assert classicstats.compute(FakeStatsFile(results), 95).duration == \
        pytest.approx(3.01)

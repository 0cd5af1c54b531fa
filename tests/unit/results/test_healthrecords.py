"""ssbench.results.healthrecords: the control records the master stores
from heartbeats, and the verdict the reports give (a warning on stderr for
the text report, "client" in the JSON document and the HTML page)."""
from __future__ import absolute_import, division, print_function

import logging
import os

import pytest

from ssbench.master.pipeline import Store
from ssbench.report.compute import classicnotes
from ssbench.report.compute.analyze import analyze
from ssbench.results import healthrecords
from ssbench.results.statswriter import StatsWriter
from ssbench.wire import protocol

from tests.unit.report.compute.test_classicstats import HEADER, res


def beat(worker_id, **sample):
    record = protocol.heartbeat(worker_id, [])
    record.update(sample)
    return record


def test_record_is_a_control_record():
    rec = healthrecords.record(beat(3, window=1.0, cpu=0.5, loop_lag=0.002,
                                    waiting=0), now=123.0)
    assert rec == {'kind': healthrecords.HEALTH_RECORD, 'worker_id': 3,
                   'at': 123.0, 'window': 1.0, 'cpu': 0.5,
                   'loop_lag': 0.002, 'waiting': 0}
    assert healthrecords.record(beat(3)) is None
    assert healthrecords.record(beat(3, window=1.0, cpu='x', loop_lag=0.0,
                                     waiting=0)) is None


def samples(worker_id, over, total):
    """`total` one-second windows of a worker, `over` of them past the
    loop-lag limit."""
    return [{'kind': healthrecords.HEALTH_RECORD, 'worker_id': worker_id,
             'at': 1000.0 + n, 'window': 1.0, 'cpu': 0.2,
             'loop_lag': 0.05 if n < over else 0.001, 'waiting': n}
            for n in range(total)]


def test_judge_and_warning():
    junk = {'kind': healthrecords.HEALTH_RECORD, 'window': 'x'}
    judged = healthrecords.judge(samples(1, 1, 40) + samples(2, 3, 40) +
                                 [junk])
    assert [w['worker_id'] for w in judged] == [2, 1]
    assert judged[0]['share'] == pytest.approx(0.075)
    assert judged[0]['saturated'] and not judged[1]['saturated']
    assert judged[1]['share'] == pytest.approx(0.025)
    assert judged[0]['waiting_max'] == 39
    line = healthrecords.warning(judged)
    assert line.startswith('client saturated: worker 2 passed a limit '
                           '(loop lag p99 > 10 ms or CPU > 90% of a core) '
                           'for 8% of its time')
    assert healthrecords.warning(judged[1:]) is None
    busy = samples(5, 0, 10)
    busy[0]['cpu'] = 0.95
    assert healthrecords.judge(busy)[0]['share'] == pytest.approx(0.1)


def write(tmpdir, controls):
    path = os.path.join(str(tmpdir), 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer.write_batch([res(at=100.5), res(at=101.0)])
    store = Store(writer).heartbeat
    for control in controls:
        store(dict(control, type=protocol.HEARTBEAT, in_flight=[],
                   completed_at=control['at']))
    store(protocol.heartbeat(9, []))     # an older worker: nothing stored
    writer.write_batch([res(at=102.0)])
    return writer.finalize()


def test_text_report_warns_on_stderr_only(tmpdir, caplog):
    path = write(tmpdir, samples(1, 5, 20))
    with caplog.at_level(logging.WARNING):
        run_stats = classicnotes.compute(path)
    assert run_stats.groups[0].count == 3
    assert run_stats.notes == []
    assert any('client saturated: worker 1' in r.getMessage()
               for r in caplog.records)


def test_no_warning_for_a_healthy_client(tmpdir, caplog):
    path = write(tmpdir, samples(1, 1, 40))
    with caplog.at_level(logging.WARNING):
        classicnotes.compute(path)
    assert not [r for r in caplog.records if 'saturated' in r.getMessage()]
    client = analyze(path)['client']
    assert client['saturated'] is False and client['warning'] is None


def test_json_client_section(tmpdir):
    doc = analyze(write(tmpdir, samples(1, 5, 20) + samples(2, 0, 20)))
    client = doc['client']
    assert client['saturated'] is True
    assert client['limits'] == {'loop_lag': 0.01, 'cpu': 0.9,
                                'share': 0.05}
    assert [w['worker_id'] for w in client['workers']] == [1, 2]
    assert client['workers'][0]['share'] == pytest.approx(0.25)
    assert doc['operations'][0]['count'] == 3


def test_a_master_at_its_limit_is_said_apart_from_the_workers(
        tmpdir, caplog):
    path = write(tmpdir, samples(healthrecords.MASTER_ID, 5, 20) +
                 samples(1, 0, 20))
    with caplog.at_level(logging.WARNING):
        classicnotes.compute(path)
    said = [r.getMessage() for r in caplog.records]
    assert any(m.startswith(
        'master at its limit: the master passed a limit (loop lag p99 > '
        '10 ms or CPU > 90% of a core) for 25% of its time') for m in said)
    assert not any('client saturated' in m for m in said)
    client = analyze(path)['client']
    assert [w['worker_id'] for w in client['workers']] == ['master', 1]
    assert client['saturated'] is True
    assert client['warnings'][0].startswith('master at its limit')


def test_no_client_section_without_health_records(tmpdir):
    assert 'client' not in analyze(write(tmpdir, []))


def test_iter_results_leaves_the_control_records_out(tmpdir):
    from ssbench.results.statsreader import open_stats
    stats = open_stats(write(tmpdir, samples(1, 0, 5)))
    assert [r['completed_at'] for r in stats.iter_results()] == [
        100.5, 101.0, 102.0]
    kinds = [r.get('kind') for b in stats.iter_batches() for r in b]
    assert kinds.count(healthrecords.HEALTH_RECORD) == 5


def test_html_client_section(tmpdir):
    import io
    pytest.importorskip('plotly')
    from ssbench.report.render.html import render_html
    out = io.StringIO() if str is not bytes else io.BytesIO()
    render_html(analyze(write(tmpdir, samples(1, 5, 20))), out)
    page = out.getvalue()
    page = page.decode('utf-8') if isinstance(page, bytes) else page
    assert 'Client health' in page
    assert 'client saturated: worker 1 passed a limit' in page
    out = io.StringIO() if str is not bytes else io.BytesIO()
    render_html(analyze(write(tmpdir, samples('master', 5, 20))), out)
    page = out.getvalue()
    page = page.decode('utf-8') if isinstance(page, bytes) else page
    assert 'master at its limit' in page and '<td>master</td>' in page


# -- telling the client's own limit from a busy host and a growing queue --

def window(worker_id, n, cpu=0.06, loop_lag=0.001, waiting=0, **host):
    """One-second window n of a worker of this version (host figures:
    2 cores unless given)."""
    host.setdefault('cores', 2)
    return dict({'kind': healthrecords.HEALTH_RECORD,
                 'worker_id': worker_id, 'at': 1000.0 + n, 'window': 1.0,
                 'cpu': cpu, 'loop_lag': loop_lag, 'waiting': waiting},
                **host)


def test_record_keeps_the_host_figures_it_can_trust():
    rec = healthrecords.record(beat(3, window=1.0, cpu=0.5, loop_lag=0.002,
                                    waiting=0, host_cpu=1.5, cores=2,
                                    run_delay=float('inf')), now=5.0)
    assert (rec['host_cpu'], rec['cores']) == (1.5, 2)
    assert 'run_delay' not in rec
    assert 'host_cpu' not in healthrecords.record(beat(
        3, window=1.0, cpu=0.5, loop_lag=0.0, waiting=0, host_cpu='x'))


@pytest.mark.parametrize('sample,why', [
    (dict(cpu=0.95, loop_lag=0.001), 'cpu'),
    (dict(cpu=0.6, loop_lag=0.05, run_delay=0.5), 'cpu'),
    (dict(cpu=0.06, loop_lag=0.02, run_delay=0.01), 'host'),
    (dict(cpu=0.06, loop_lag=2.0, run_delay=0.001), 'stall'),
    (dict(cpu=0.06, loop_lag=0.02, host_cpu=1.2, cores=2), 'host'),
    (dict(cpu=0.06, loop_lag=0.02, host_cpu=0.3, cores=2), 'stall'),
    (dict(cpu=0.06, loop_lag=0.02), 'limit'),
    (dict(cpu=0.5, loop_lag=0.01, run_delay=0.5), None),
])
def test_the_cause_of_a_window(sample, why):
    sample = dict(sample, window=1.0, waiting=0)
    assert healthrecords.cause(sample) == why


def verdict(records):
    judged = healthrecords.judge(records)
    return dict((w['worker_id'], w) for w in judged), \
        healthrecords.warnings(judged)


def test_workers_lagging_behind_a_busy_host_are_not_saturated():
    """The quick start: two workers at 6% CPU on the two cores the local
    Swift uses too; their loops lag as they wait for a CPU."""
    by_id, lines = verdict(
        [window(w, n, loop_lag=0.02 if n % 2 else 0.004, run_delay=0.04,
                host_cpu=1.9) for n in range(6) for w in (0, 1)])
    for worker in by_id.values():
        assert worker['saturated'] is False and worker['host_busy'] is True
        assert worker['share'] == pytest.approx(0.5)       # as before
        assert worker['causes'] == {'host': pytest.approx(0.5)}
        assert (worker['host_cpu_max'], worker['cores'],
                worker['run_delay_max']) == (1.9, 2, 0.04)
    assert lines == [
        'host busy: workers 0, 1 lagged (loop lag p99 > 10 ms) for 50%, '
        '50% of their time while waiting for a CPU that other processes '
        'kept busy (their own CPU stayed under 50% of a core); not the '
        'client\'s limit, but latencies include those waits: give the '
        'workers cores or hosts of their own for cleaner figures']


def test_a_worker_at_its_own_cpu_limit_is_saturated():
    by_id, lines = verdict([window(4, n, cpu=0.97 if n < 3 else 0.3)
                            for n in range(10)])
    assert by_id[4]['saturated'] and not by_id[4]['host_busy']
    assert lines == [
        'client saturated: worker 4 passed a limit (loop lag p99 > 10 ms '
        'or CPU > 90% of a core) for 30% of its time (worker 4: its own '
        'CPU); the figures show the client\'s limit, not the cluster\'s']


def test_a_stalled_worker_is_saturated_and_said_to_be_stalled():
    """Stopped (SIGSTOP) for 2 s: a long lag, no CPU, no wait for one."""
    by_id, lines = verdict(
        [window(2, n, cpu=0.0 if n == 3 else 0.2,
                loop_lag=2.0 if n == 3 else 0.001, run_delay=0.0,
                host_cpu=1.8) for n in range(8)] +
        [window(3, n, run_delay=0.0, host_cpu=1.8) for n in range(8)])
    assert by_id[2]['saturated'] and not by_id[3]['saturated']
    assert by_id[2]['causes'] == {'stall': pytest.approx(0.125)}
    (line,) = lines
    assert line.startswith('client saturated: worker 2 passed a limit')
    assert '(worker 2: its loop stalled with no CPU busy to explain it: ' \
        'a blocking call or a paused process)' in line


def test_a_queue_that_keeps_growing_is_its_own_warning():
    by_id, lines = verdict(
        [window(1, n, waiting=n) for n in range(10)] +
        [window(2, n, waiting=1 + n % 2) for n in range(10)])
    assert by_id[1]['queue_growing'] and not by_id[1]['saturated']
    assert by_id[1]['causes'] == {'queue': pytest.approx(0.8)}
    assert not by_id[2]['queue_growing']       # up and down: no trend
    assert lines == [
        'queue growing: worker 1 had more and more jobs waiting for a free '
        'connection for 80% of its time (up to 9): jobs come faster than '
        'its concurrency runs them; add workers or raise --concurrency']


def test_all_warnings_at_once_in_one_line_and_the_json(tmpdir):
    records = ([window(1, n, cpu=0.95) for n in range(5)] +
               [window(2, n, loop_lag=0.03, run_delay=0.03)
                for n in range(5)] +
               [window(3, n, waiting=n) for n in range(5)])
    judged = healthrecords.judge(records)
    lines = healthrecords.warnings(judged)
    assert [line.split(':')[0] for line in lines] == [
        'client saturated', 'host busy', 'queue growing']
    assert healthrecords.warning(judged) == '; '.join(lines)
    client = analyze(write(tmpdir, records))['client']
    assert (client['saturated'], client['host_busy'],
            client['queue_growing']) == (True, True, True)
    assert client['warnings'] == lines
    assert client['warning'] == '; '.join(lines)
    by_id = dict((w['worker_id'], w) for w in client['workers'])
    assert by_id[2]['causes'] == {'host': 1.0}
    # The keys of earlier versions are all still there.
    assert set(['worker_id', 'seconds', 'over_seconds', 'share',
                'saturated', 'cpu_max', 'loop_lag_max',
                'waiting_max']) <= set(by_id[2])


def test_html_says_each_warning_and_each_verdict(tmpdir):
    import io
    pytest.importorskip('plotly')
    from ssbench.report.render.html import render_html
    records = ([window(1, n, cpu=0.95) for n in range(5)] +
               [window(2, n, loop_lag=0.03, run_delay=0.03)
                for n in range(5)])
    out = io.StringIO() if str is not bytes else io.BytesIO()
    render_html(analyze(write(tmpdir, records)), out)
    page = out.getvalue()
    page = page.decode('utf-8') if isinstance(page, bytes) else page
    assert '<p class="note">client saturated: worker 1 passed' in page
    assert '<p class="note">host busy: worker 2 lagged' in page
    assert '<td>saturated</td>' in page and '<td>host busy</td>' in page

"""ssbench.worker.health: the worker's health figures (injected clock and CPU
reader), the control records the master stores, and the verdict the
reports give (a warning on stderr for the text report, "client" in the
JSON document)."""
from __future__ import absolute_import, division, print_function

import logging
import os

import pytest

from ssbench.worker import health
from ssbench.wire import protocol
from ssbench.report.compute import classicnotes
from ssbench.report.compute.analyze import analyze
from ssbench.results.statswriter import StatsWriter

from tests.unit.report.compute.test_classicstats import HEADER, res


class Clock(object):
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


def monitor():
    clock = Clock()
    cpu = Clock()
    cpu.now = 5.0
    return health.HealthMonitor(clock, cpu, tick=0.01), clock, cpu


def test_probes_on_time_have_no_lag_and_late_ones_count():
    mon, clock, cpu = monitor()
    for _ in range(97):
        clock.now += 0.01
        mon.probe()
    for _ in range(2):                  # two probes 50 ms late: the p99
        clock.now += 0.01 + 0.05
        mon.probe()
    clock.now += 0.01
    mon.probe()
    cpu.now += 0.25
    sample = mon.sample(waiting=3)
    assert sample['window'] == pytest.approx(1.1)
    assert sample['cpu'] == pytest.approx(0.25 / 1.1)
    assert sample['loop_lag'] == pytest.approx(0.05)
    assert sample['waiting'] == 3
    # A new window starts: nothing late since.
    clock.now += 0.005
    assert mon.sample(0)['loop_lag'] == 0.0


def test_a_stopped_process_shows_as_one_long_lag():
    mon, clock, cpu = monitor()
    clock.now += 2.5                    # SIGSTOP: no probe ran
    sample = mon.sample(0)
    assert sample['loop_lag'] == pytest.approx(2.49)
    assert sample['cpu'] == 0.0


def test_p99():
    assert health.p99([0.001] * 99 + [1.0]) == 0.001
    assert health.p99([0.001] * 98 + [1.0, 1.0]) == 1.0
    assert health.p99([0.2]) == 0.2


def beat(worker_id, **sample):
    record = protocol.heartbeat(worker_id, [])
    record.update(sample)
    return record


def test_record_is_a_control_record():
    rec = health.record(beat(3, window=1.0, cpu=0.5, loop_lag=0.002,
                             waiting=0), now=123.0)
    assert rec == {'kind': health.HEALTH_RECORD, 'worker_id': 3,
                   'at': 123.0, 'window': 1.0, 'cpu': 0.5,
                   'loop_lag': 0.002, 'waiting': 0}
    assert health.record(beat(3)) is None
    assert health.record(beat(3, window=1.0, cpu='x', loop_lag=0.0,
                              waiting=0)) is None


def samples(worker_id, over, total):
    """`total` one-second windows of a worker, `over` of them past the
    loop-lag limit."""
    return [{'kind': health.HEALTH_RECORD, 'worker_id': worker_id,
             'at': 1000.0 + n, 'window': 1.0, 'cpu': 0.2,
             'loop_lag': 0.05 if n < over else 0.001, 'waiting': n}
            for n in range(total)]


def test_judge_and_warning():
    judged = health.judge(samples(1, 1, 40) + samples(2, 3, 40) +
                          [{'kind': health.HEALTH_RECORD, 'window': 'x'}])
    assert [w['worker_id'] for w in judged] == [2, 1]
    assert judged[0]['share'] == pytest.approx(0.075)
    assert judged[0]['saturated'] and not judged[1]['saturated']
    assert judged[1]['share'] == pytest.approx(0.025)
    assert judged[0]['waiting_max'] == 39
    line = health.warning(judged)
    assert line.startswith('client saturated: worker 2 passed a limit '
                           '(loop lag p99 > 10 ms or CPU > 90% of a core) '
                           'for 8% of its time')
    assert health.warning(judged[1:]) is None
    busy = samples(5, 0, 10)
    busy[0]['cpu'] = 0.95
    assert health.judge(busy)[0]['share'] == pytest.approx(0.1)


def write(tmpdir, controls):
    path = os.path.join(str(tmpdir), 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer.write_batch([res(at=100.5), res(at=101.0)])
    store = health.store_health(writer)
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


def test_no_client_section_without_health_records(tmpdir):
    assert 'client' not in analyze(write(tmpdir, []))


def test_worker_heartbeats_carry_the_health_keys():
    from ssbench.worker.mainloop import Worker

    class Transport(object):
        def __init__(self):
            self.sent = []

        def send(self, data, timeout=None):
            self.sent.append(protocol.unpack(data))
            return True

    transport = Transport()
    worker = Worker(7, transport)
    assert worker._heartbeat()
    record = transport.sent[-1][0]
    assert record['type'] == protocol.HEARTBEAT
    assert set(health.HEALTH_KEYS) <= set(record)
    assert health.record(record)['worker_id'] == 7


def test_iter_results_leaves_the_control_records_out(tmpdir):
    from ssbench.results.statsreader import open_stats
    stats = open_stats(write(tmpdir, samples(1, 0, 5)))
    assert [r['completed_at'] for r in stats.iter_results()] == [
        100.5, 101.0, 102.0]
    kinds = [r.get('kind') for b in stats.iter_batches() for r in b]
    assert kinds.count(health.HEALTH_RECORD) == 5


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

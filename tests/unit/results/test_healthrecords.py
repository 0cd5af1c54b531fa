"""ssbench.results.healthrecords: the control records the master stores
from heartbeats, and the verdict the reports give (a warning on stderr for
the text report, "client" in the JSON document and the HTML page)."""
from __future__ import absolute_import, division, print_function

import logging
import os

import pytest

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
    store = healthrecords.store_health(writer)
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

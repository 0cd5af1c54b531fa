"""Workers' clock offsets in the reports: the JSON's client.clock, the
HTML's client health section, a logged warning above 100 ms, and
completion times (so the run's span and rates) on the master's clock."""
from __future__ import absolute_import, division, print_function

import io
import logging
import os

import pytest

from ssbench.compat import PY2
from ssbench.report.compute import classicnotes
from ssbench.report.compute.analyze import analyze
from ssbench.report.render import classic
from ssbench.results import clockrecords
from ssbench.results.statswriter import StatsWriter

HEADER = {'_scenario_data': {'name': 'c', 'sizes': []}, 'name': 'c',
          'version': 't', 'user_count': 2, 'operation_count': 20,
          'run_seconds': None, 'container_base': 'c', 'container_count': 1,
          'container_concurrency': 1, 'delete_after': None, 'seed': 1}


def stats_file(tmpdir, name, offsets, ahead=0.0):
    """Twenty results of workers 1 and 2, worker 1's completion times
    `ahead` seconds later than the master's clock says, and clock
    records of `offsets` (worker, seconds)."""
    path = os.path.join(str(tmpdir), name)
    writer = StatsWriter(path, HEADER)
    writer.write_batch([{
        'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
        'name': 'tiny_%06d' % n, 'job_id': n + 1, 'worker_id': 1 + n % 2,
        'first_byte_latency': 0.01, 'last_byte_latency': 0.02,
        'trans_id': 'tx%d' % n, 'retries': 0,
        'completed_at': 1.7e9 + n / 10.0 + (ahead if n % 2 == 0 else 0)}
        for n in range(20)])
    if offsets:
        writer.write_batch([clockrecords.record(worker, offset, 0.001, 12)
                            for worker, offset in offsets])
    return writer.finalize()


def text(path):
    out = io.BytesIO() if PY2 else io.StringIO()
    classic.render_text(classicnotes.compute(path), out)
    return out.getvalue()


def test_offsets_show_in_the_json_and_html_and_warn_in_the_log(
        tmpdir, caplog):
    path = stats_file(tmpdir, 'off.stat', [(1, 2.004), (2, -0.003)],
                      ahead=2.004)
    clock = analyze(path)['client']['clock']
    assert clock['limit'] == 0.1
    assert [(w['worker_id'], w['offset'], w['over_limit'])
            for w in clock['workers']] == [(1, 2.004, True),
                                           (2, -0.003, False)]
    assert 'worker 1 +2.004 s' in clock['warning']
    with caplog.at_level(logging.WARNING):
        report = text(path)
    assert [r.getMessage() for r in caplog.records
            if 'clock offset' in r.getMessage()] == [clock['warning']]
    # The text report is the one of the times on the master's clock: a
    # 2 s run, not one stretched to 4 s by worker 1's clock.
    assert report == text(stats_file(tmpdir, 'plain.stat', []))
    assert '(1s)' in report
    pytest.importorskip('plotly')
    from ssbench.report.render.html import render_html
    out = io.StringIO() if not PY2 else io.BytesIO()
    render_html(analyze(path), out)
    page = out.getvalue()
    page = page.decode('utf-8') if isinstance(page, bytes) else page
    assert '<h3>Clock offsets</h3>' in page
    assert '<td class="num">+2.0040</td>' in page
    assert 'clock offset above' in page


def test_no_offsets_no_clock_section(tmpdir):
    assert 'client' not in analyze(stats_file(tmpdir, 'none.stat', []))


def test_an_offset_within_the_limit_changes_nothing(tmpdir):
    # Within OFFSET_LIMIT the times are taken as they are: the report is
    # byte for byte the one of the same file without the records.
    path = stats_file(tmpdir, 'small.stat', [(1, 0.05)], ahead=0.05)
    assert text(path) == text(stats_file(tmpdir, 'same.stat', [],
                                         ahead=0.05))


def test_corrections_are_of_the_workers_over_the_limit():
    records = [clockrecords.record(1, 5.0, 0.001, 3),
               clockrecords.record(2, 0.01, 0.001, 3),
               {b'kind': b'clock_offset', b'worker_id': b'w3',
                b'offset': -0.5, b'rtt': 0.002, b'samples': 3}]
    assert clockrecords.corrections(records) == {1: 5.0, u'w3': -0.5}
    assert clockrecords.corrections(records[1:2]) is None
    assert clockrecords.is_record(records[2], raw=True)
    assert not clockrecords.is_record({'kind': 'worker_health'})


def stepped_file(tmpdir, step, batch=8):
    """Two workers, 20 results a second each for 12 s; worker 2's clock
    is 2 ms ahead, then `step` s more from the 6th second, as a master
    measured and stored it (two periods); results in batches of `batch`
    in each worker's order, the workers' batches interleaved."""
    start = 1.7e9
    path = os.path.join(str(tmpdir), 'stepped.stat')
    writer = StatsWriter(path, dict(HEADER, operation_count=480))

    def result(worker, n):
        at = start + n / 20.0
        if worker == 2:
            at += 0.002 + (step if n >= 120 else 0)
        return {'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
                'name': 'tiny_%06d' % n, 'job_id': 2 * n + worker,
                'worker_id': worker, 'first_byte_latency': 0.01,
                'last_byte_latency': 0.02, 'trans_id': 'tx%d' % n,
                'retries': 0, 'completed_at': at}
    for first in range(0, 240, batch):
        for worker in (1, 2):
            writer.write_batch([result(worker, n)
                                for n in range(first, first + batch)])
    records = [clockrecords.record(1, 0.0003, 0.001, 100),
               clockrecords.record(2, 0.002, 0.001, 50),
               clockrecords.record(2, 0.002 + step, 0.001, 50)]
    records[1].update(period=0, first=start + 0.5, last=start + 5.5)
    records[2].update(period=1, first=start + 6.8 + step,
                      last=start + 11.5 + step)
    writer.write_batch(records)
    return writer.finalize()


@pytest.mark.parametrize('step', [3600.0, -600.0, 30.0, -30.0])
def test_a_clock_stepped_mid_run_is_corrected_period_by_period(tmpdir,
                                                               step):
    path = stepped_file(tmpdir, step)
    doc = analyze(path)
    assert doc['run']['duration'] == pytest.approx(12.0, abs=0.05)
    total = doc['operations'][0]
    assert total['count'] == 480
    assert total['req_per_s'] == pytest.approx(40, rel=0.01)
    worker = doc['client']['clock']['workers'][1]
    assert [s['offset'] for s in worker['steps']] == [0.002 + step]
    assert 'then %+.3f s (its clock stepped %+.3f s during the run)' % (
        0.002 + step, step) in doc['client']['clock']['warning']
    stats = classicnotes.compute(path, 95)
    assert stats.duration == pytest.approx(12, abs=1)


def test_a_stray_among_a_stepped_workers_results_moves_no_period():
    # Forward then back: 0..10 s at +0, 10..20 s at +3600, then 20..30 s
    # at +0 again; strays a year ahead and in 1970 move nothing.
    periods = clockrecords.Periods([0.0, 3600.0, 0.0],
                                   [100.0, 3710.5, 120.5],
                                   [109.5, 3719.5, 129.5])
    stamps = [100.0, 105.0, 3.2e7 + 3000, 109.9, 3710.2, 5.0, 3715.0,
              3719.9, 120.1, 125.0, 129.9]
    assert [periods.offset_of(t) for t in stamps] == [
        0, 0, 0, 0, 3600, 3600, 3600, 3600, 0, 0, 0]
    periods.restart()
    assert periods.offset_of(3715.0) == 3600

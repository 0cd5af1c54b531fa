"""Run events as stats-file control records (ssbench.results.
eventrecords): written by the master, read back by the reports, unseen
by the classic report."""
from __future__ import absolute_import, division, print_function

import io
import os

from ssbench.report.compute.classicstats import compute
from ssbench.report.render.classic import render_text
from ssbench.results import eventrecords
from ssbench.results.recordview import RecordView
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter
from tests import paths


def test_record_is_a_control_record_with_one_line_of_text():
    rec = eventrecords.record('mark', None, 'pulled\n disk  3', 5.0)
    assert rec == {'kind': eventrecords.EVENT_RECORD, 'event': 'mark',
                   'at': 5.0, 'worker_id': None, 'text': 'pulled disk 3'}
    assert 'completed_at' not in rec
    long_text = eventrecords.record('mark', text='x' * 500)['text']
    assert len(long_text) == eventrecords.MAX_TEXT
    assert long_text.endswith('...')


def test_events_reads_back_usable_records_in_time_order():
    controls = [
        eventrecords.record('worker_lost', 2, None, 20.0),
        {b'kind': b'run_event', b'event': b'mark', b'at': 10.0,
         b'worker_id': None, b'text': b'pulled disk 3'},
        eventrecords.record('no such event', 1, None, 1.0),
        eventrecords.record('mark', None, 'no time', 'soon'),
        {'kind': 'worker_health', 'at': 1.0},
        dict(eventrecords.record('worker_back', 2, None, 30.0),
             worker_id=[2], text=7),
    ]
    assert eventrecords.events(controls) == [
        {'at': 10.0, 'event': 'mark', 'worker_id': None,
         'text': 'pulled disk 3'},
        {'at': 20.0, 'event': 'worker_lost', 'worker_id': 2, 'text': None},
        {'at': 30.0, 'event': 'worker_back', 'worker_id': None,
         'text': None}]


def copy_with_events(tmpdir):
    """The golden stats file's results, then a batch of events."""
    source = open_stats(os.path.join(paths.GOLDEN,
                                     'noop_u4_w1_b1.run1.stat.gz'))
    path = os.path.join(str(tmpdir), 'events.stat')
    writer = StatsWriter(path, source.header)
    for batch in source.iter_batches():
        writer.write_batch(batch)
    writer.write_batch([eventrecords.record('mark', None, 'pulled disk 3'),
                        eventrecords.record('worker_lost', 1)])
    writer.close()
    return open_stats(path), source


def classic(stats_file):
    out = io.StringIO()
    render_text(compute(RecordView(stats_file)), out)
    return out.getvalue()


def test_the_classic_report_does_not_see_events(tmpdir):
    with_events, source = copy_with_events(tmpdir)
    assert classic(with_events) == classic(source)
    view = RecordView(with_events)
    for _ in view.iter_batches():
        pass
    assert [e['text'] for e in eventrecords.events(view.controls)] == [
        'pulled disk 3', None]

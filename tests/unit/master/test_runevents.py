"""The master's sink of run events (ssbench.master.runevents): kept
while a stats file is attached, written at each flush, marks from a
signal or a file's new lines."""
from __future__ import absolute_import, division, print_function

import io
import os

from ssbench.master.admission import Admission
from ssbench.master.liveness import LivenessTracker
from ssbench.master.runevents import RunEvents
from ssbench.wire import protocol
from tests.clocks import FakeClock


class Writer(object):
    def __init__(self):
        self.batches = []

    def write_batch(self, batch):
        self.batches.append(batch)


def sink():
    events = RunEvents(clock=FakeClock(start=50.0).time)
    writer = Writer()
    events.attach(writer)
    return events, writer


def summary(writer):
    return [[(r['event'], r['worker_id'], r['text'], r['at']) for r in batch]
            for batch in writer.batches]


def test_events_go_out_as_one_batch_per_flush_and_only_when_attached():
    events = RunEvents(clock=FakeClock(start=50.0).time)
    events('worker_lost', 1)            # no stats file: dropped
    writer = Writer()
    events.attach(writer)
    events('worker_lost', 2)
    events.mark()
    events.mark('pulled disk 3')
    assert writer.batches == []         # a signal never sees a write
    events.flush()
    events.flush()                      # nothing new: no batch
    assert summary(writer) == [[('worker_lost', 2, None, 50.0),
                                ('mark', None, 'mark 1', 50.0),
                                ('mark', None, 'pulled disk 3', 50.0)]]
    events('token_renewed', None, 'generation 2')
    events.detach()                     # flushes
    events('worker_back', 2)
    events.flush()
    assert summary(writer)[1:] == [[('token_renewed', None, 'generation 2',
                                     50.0)]]
    # What --metrics serves: the events kept, by event.
    assert events.counts == {'worker_lost': 1, 'mark': 2,
                             'token_renewed': 1}


def test_lines_appended_to_the_mark_file_become_marks(tmpdir):
    path = os.path.join(str(tmpdir), 'marks')
    with io.open(path, 'wb') as stream:
        stream.write(b'before the run\n')
    events, writer = sink()
    events.watch_file(path)
    with io.open(path, 'ab') as stream:
        stream.write(b'pulled disk 3\n\n  restarted proxy  \nhalf a li')
    events.flush()
    with io.open(path, 'ab') as stream:
        stream.write(b'ne\n')
    events.flush()
    with io.open(path, 'wb') as stream:     # replaced: read from its start
        stream.write(b'new file\n')
    events.flush()
    assert [[r['text'] for r in batch] for batch in writer.batches] == [
        ['pulled disk 3', 'restarted proxy'], ['half a line'],
        ['new file']]


def test_a_mark_file_that_comes_later_is_read_from_its_start(tmpdir):
    path = os.path.join(str(tmpdir), 'marks')
    events, writer = sink()
    events.watch_file(path)
    events.flush()                      # not there yet: nothing
    with io.open(path, 'wb') as stream:
        stream.write(b'first\n')
    events.flush()
    assert summary(writer) == [[('mark', None, 'first', 50.0)]]


def test_admission_and_liveness_tell_the_sink():
    events, writer = sink()
    admission, tracker = Admission(), LivenessTracker(timeout=5)
    admission.events = tracker.events = events
    record = protocol.heartbeat(1, [])
    record.update(host='h', pid=7)
    admission.heartbeat(b'a', record, 0.0)
    admission.heartbeat(b'a', record, 1.0)      # already admitted
    tracker.heartbeat(1, [], 0.0)
    tracker.check(6.0)
    tracker.heartbeat(1, [], 7.0)
    events.flush()
    assert summary(writer) == [[
        ('worker_joined', 1, 'pid 7 on h', 50.0),
        ('worker_lost', 1, None, 50.0), ('worker_back', 1, None, 50.0)]]


def test_without_a_sink_nothing_is_told():
    tracker = LivenessTracker(timeout=5)
    tracker.heartbeat(1, [], 0.0)
    assert tracker.check(6.0) == [] and set(tracker.lost_ids) == set([1])

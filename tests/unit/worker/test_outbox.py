"""The worker's outbox: results batched and flushed, heartbeats, the
writer greenlet and the master's liveness, over an in-memory transport."""
from __future__ import absolute_import, division, print_function


import gevent
import gevent.event
import pytest

from ssbench import READ_OBJECT
from ssbench.wire import protocol
from ssbench.errors import SsbenchError, TransportError
from ssbench.wire.protocol import HEARTBEAT, PING, SUICIDE
from ssbench import version as ssbench_version
from ssbench.worker.mainloop import MasterGone, Worker
from ssbench.worker.outbox import SUICIDE_LINGER
from tests.clocks import FakeClock
from tests.fakes import FakeClient, FakeTransport
from tests.unit.worker.test_mainloop import (AUTH, advance, job, make,
                                             messages_of, results_of,
                                             run_until)
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(30)


def test_a_clock_probe_comes_back_in_the_next_heartbeat_only():
    transport = FakeTransport()
    clock = FakeClock(1000.0)
    worker = make(transport, clock=clock)
    runner = gevent.spawn(worker.run, 0.01)
    wait_for(lambda: results_of(transport, True), 5, 'a first heartbeat',
             sleep=gevent.sleep)
    transport.inbox.append(protocol.pack([protocol.clock_probe(55.5)]))
    wait_for(lambda: worker._probe is not None, 5, 'the probe taken in',
             sleep=gevent.sleep)
    clock.advance(0.25)                    # held a quarter second
    assert worker._heartbeat() and worker._heartbeat()
    first, second = results_of(transport, True)[-2:]
    assert first['type'] == HEARTBEAT
    assert first['clock_probe'] == [55.5, 0.25]
    assert 'clock_probe' not in second
    # A probe is no job: nothing held, no result.
    assert worker.pending == 0 and results_of(transport) == []
    transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
    runner.join(5)
    assert runner.ready()


class GatedClient(FakeClient):
    """A GET of an object named slow_* runs until the test opens `gate`;
    any other request ends at once."""

    gate = None

    def get_object(self, container, name, *args):
        if name.startswith('slow_'):
            GatedClient.gate.wait()
        return self._op('get_object', container, name, *args)


def gated_worker(transport, clock, **kwargs):
    """A worker whose slow_* GETs stay in flight until the gate opens."""
    GatedClient.gate = gevent.event.Event()
    return make(transport, swift_factory=GatedClient, clock=clock, **kwargs)


def swift_job(job_id, slow=False):
    return job(READ_OBJECT, job_id=job_id,
               name='%s_%06d' % ('slow' if slow else 'tiny', job_id))


def test_a_worker_that_holds_no_job_sends_its_results_at_once():
    transport = FakeTransport()
    clock = FakeClock(1000.0)
    worker = gated_worker(transport, clock, batch_size=3,
                          flush_interval=5.0)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        # The clock stands still: neither batch is full, nor is it
        # flush_interval since the last result; nothing else is held.
        transport.inbox.append(protocol.pack([job(READ_OBJECT, noop=True)]))
        wait_for(lambda: len(messages_of(transport)) == 1, 5,
                 'the no-op result sent', sleep=gevent.sleep)
        transport.inbox.append(protocol.pack([swift_job(1)]))
        wait_for(lambda: len(messages_of(transport)) == 2, 5,
                 'the last Swift result sent', sleep=gevent.sleep)
        assert [len(m) for m in messages_of(transport)] == [1, 1]
        assert worker.outbox == [] and worker.pending == 0
    finally:
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)


def test_a_worker_with_jobs_in_flight_batches_its_results():
    transport = FakeTransport()
    clock = FakeClock(1000.0)
    worker = gated_worker(transport, clock, batch_size=3,
                          flush_interval=5.0)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        transport.inbox.append(protocol.pack([swift_job(1, slow=True)]))
        transport.inbox.append(protocol.pack([swift_job(2)]))
        wait_for(lambda: len(worker.outbox) == 1, 5, 'one result held',
                 sleep=gevent.sleep)
        advance(worker, clock, 3.0)
        transport.inbox.append(protocol.pack([job(READ_OBJECT, noop=True)]))
        wait_for(lambda: len(worker.outbox) == 2, 5, 'two results held',
                 sleep=gevent.sleep)
        advance(worker, clock, 4.9)
        assert results_of(transport) == []     # 2 < batch size, job 1 out
        advance(worker, clock, 0.2)            # 5.1 s after the last one
        wait_for(lambda: results_of(transport), 5, 'the partial batch sent',
                 sleep=gevent.sleep)
        assert [len(m) for m in messages_of(transport)] == [2]
        # A full batch goes out at once, the clock standing still.
        transport.inbox.append(protocol.pack([swift_job(3), swift_job(4),
                                              swift_job(5)]))
        wait_for(lambda: len(messages_of(transport)) == 2, 5,
                 'the full batch sent', sleep=gevent.sleep)
        assert [len(m) for m in messages_of(transport)] == [2, 3]
        # The last job ends: nothing held any more, its result goes alone.
        GatedClient.gate.set()
        wait_for(lambda: len(messages_of(transport)) == 3, 5,
                 'the last result sent', sleep=gevent.sleep)
        assert [r['job_id'] for r in messages_of(transport)[-1]] == [1]
        assert worker.outbox == [] and worker.pending == 0
    finally:
        GatedClient.gate.set()
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)


def test_heartbeats_are_one_element_batches():
    transport = FakeTransport()
    worker = make(transport, heartbeat_interval=0.05, auth=None)
    run_until(worker, lambda: len(transport.sent) >= 3)
    beats = [protocol.unpack(d) for d in transport.sent]
    assert len(beats) >= 3
    for batch in beats:
        assert len(batch) == 1
        beat = batch[0]
        assert beat['type'] == HEARTBEAT and beat['worker_id'] == 7
        assert beat['in_flight'] == [] and beat['configured'] is False


class CountingTransport(FakeTransport):
    """Counts the sends it refused."""

    refused = 0

    def send(self, data, timeout=None):
        if not self.deliverable:
            self.refused += 1
        return FakeTransport.send(self, data, timeout)


def test_undeliverable_results_kept_until_master_returns():
    transport = CountingTransport(deliverable=False)
    transport.inbox.append(protocol.pack([job(READ_OBJECT, noop=True)]))
    worker = make(transport)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        # Refused, and refused again when the writer retried.
        wait_for(lambda: transport.refused >= 3, 5, 'three refused sends',
                 sleep=gevent.sleep)
        assert transport.sent == [] and len(worker.outbox) == 1
        transport.deliverable = True
        wait_for(lambda: results_of(transport), 3, 'the kept result sent',
                 sleep=gevent.sleep)
        assert len(results_of(transport)) == 1 and worker.pending == 0
    finally:
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)


def test_master_gone_ends_the_worker():
    transport = FakeTransport(deliverable=False)
    clock = FakeClock(1000.0)
    worker = make(transport, master_timeout=30, heartbeat_interval=1,
                  clock=clock)
    runner = gevent.spawn(worker.run, 0.01)
    gevent.sleep(0.05)
    advance(worker, clock, 29)
    assert not runner.ready()
    advance(worker, clock, 2)
    runner.join(5)
    assert isinstance(runner.exception, MasterGone)
    assert '30' in str(runner.exception)
    assert transport.closed


def test_master_timeout_kept_alive_by_delivery():
    transport = FakeTransport(deliverable=True)
    clock = FakeClock(1000.0)
    worker = make(transport, master_timeout=30, heartbeat_interval=10,
                  clock=clock)
    runner = gevent.spawn(worker.run, 0.01)
    for _ in range(10):       # 100 s, each heartbeat delivered
        advance(worker, clock, 10)
    assert not runner.ready() and len(transport.sent) >= 10
    transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
    runner.join(5)
    assert runner.successful()      # no MasterGone raised


def test_heartbeats_list_held_job_ids_until_their_results_are_sent():
    transport = FakeTransport()
    clock = FakeClock(1000.0)
    worker = gated_worker(transport, clock, batch_size=3,
                          heartbeat_interval=10, flush_interval=100)
    runner = gevent.spawn(worker.run, 0.01)

    def last_beat(count):
        wait_for(lambda: len(beats()) >= count, 5,
                 '%d heartbeat(s)' % count, sleep=gevent.sleep)
        return beats()[-1]

    def beats():
        return [r for r in results_of(transport, True)
                if r['type'] == HEARTBEAT]
    try:
        last_beat(1)
        first = len(beats())
        transport.inbox.append(protocol.pack(
            [swift_job(3, slow=True), swift_job(4), swift_job(5)]))
        wait_for(lambda: len(worker.outbox) == 2, 5, 'two results held',
                 sleep=gevent.sleep)
        advance(worker, clock, 10)
        # Job 3 runs; the batch of 3 is not full yet.
        assert last_beat(first + 1)['in_flight'] == [3, 4, 5]
        transport.inbox.append(protocol.pack([swift_job(6)]))
        wait_for(lambda: len(results_of(transport)) == 3, 5,
                 'the full batch of 3 sent', sleep=gevent.sleep)
        advance(worker, clock, 10)
        assert last_beat(first + 2)['in_flight'] == [3]
        GatedClient.gate.set()
        wait_for(lambda: len(results_of(transport)) == 4, 5,
                 'the last result sent', sleep=gevent.sleep)
        advance(worker, clock, 10)
        assert last_beat(first + 3)['in_flight'] == []
        assert sorted(r['job_id'] for r in results_of(transport)) == \
            [3, 4, 5, 6]
    finally:
        GatedClient.gate.set()
        worker.stopping = True
        runner.join(2)


def test_undelivered_heartbeat_is_retried_soon():
    """A worker not connected yet keeps trying, so the master, which waits
    for a first heartbeat, can start at once instead of a second later."""

    class LateTransport(FakeTransport):
        refusals = 3

        def send(self, data, timeout=None):
            if self.refusals:
                self.refusals -= 1
                return False
            return FakeTransport.send(self, data, timeout)

    transport = LateTransport()
    clock = FakeClock(1000.0)
    worker = make(transport, heartbeat_interval=10, clock=clock)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        wait_for(lambda: transport.refusals == 2, 5, 'the first send refused',
                 sleep=gevent.sleep)
        # Retries after 0.02, 0.04, then 0.08 s, not heartbeat_interval.
        for step in (0.02, 0.04, 0.08):
            advance(worker, clock, step)
        wait_for(lambda: transport.sent, 5, 'a heartbeat delivered',
                 sleep=gevent.sleep)
        beats = [r for r in results_of(transport, True)
                 if r['type'] == HEARTBEAT]
        assert len(beats) == 1 and transport.refusals == 0
    finally:
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)


def test_held_lists_running_jobs_and_unsent_results():
    worker = make()
    worker.holding.update([9, 3])
    worker.outbox.extend([{'job_id': 5}, {'type': PING}])
    assert worker.held() == [3, 5, 9]


# -- a broken results socket ------------------------------------------------

class AskedAfterTheWriterDied(FakeTransport):
    """Counts the messages `worker` asks for once its writer died."""

    worker = None
    asked = 0

    def recv(self, timeout=None):
        self._count()
        return FakeTransport.recv(self, timeout)

    def recv_nowait(self):
        self._count()
        return FakeTransport.recv_nowait(self)

    def _count(self):
        if self.worker.writer_error is not None:
            self.asked += 1


def test_a_writer_that_dies_stops_the_worker_with_one_error():
    # A worker id msgpack cannot encode: no heartbeat can be sent.
    transport = AskedAfterTheWriterDied()
    worker = Worker(1 << 64, transport, auth=AUTH, swift_factory=FakeClient)
    transport.worker = worker
    runner = gevent.spawn(worker.run, 0.01)
    runner.join(5)
    assert runner.ready(), 'the worker went on without its writer'
    assert isinstance(runner.exception, SsbenchError)
    assert str(runner.exception).startswith(
        'worker 18446744073709551616: sending results failed (OverflowError')
    assert transport.closed
    # It took no job once the writer had died: the reader saw that before
    # asking for another message.
    assert worker.writer_error is not None and transport.asked == 0


class ClosedAtExit(FakeTransport):
    """Takes nothing; the last flush (SUICIDE_LINGER) finds it broken."""

    def send(self, data, timeout=None):
        if timeout == SUICIDE_LINGER:
            raise TransportError('cannot send: the socket is closed')
        return False


@pytest.mark.parametrize('transport,why', [
    (FakeTransport(deliverable=False),
     'no master took them within %g s' % SUICIDE_LINGER),
    (ClosedAtExit(), 'TransportError: cannot send: the socket is closed'),
])
def test_results_the_last_flush_cannot_send_are_reported(caplog, transport,
                                                         why):
    transport.inbox.append(protocol.pack(
        [job(READ_OBJECT, noop=True, job_id=1),
         job(READ_OBJECT, noop=True, job_id=2)]))
    transport.inbox.append(protocol.pack([protocol.suicide_job()]))
    worker = make(transport)
    worker.run(0.01)
    assert transport.closed and len(worker.outbox) == 2
    assert 'worker 7: 2 result(s) not sent before exiting, lost: ' + why \
        in caplog.text


def test_a_result_that_cannot_be_packed_costs_only_itself():
    transport = FakeTransport()
    worker = make(transport)
    odd = protocol.result_ok(job(READ_OBJECT, noop=True, job_id=1), 7, 0.0,
                             0.0, None, 0)
    odd['name'] = object()           # as a value msgpack cannot encode
    good = protocol.result_ok(job(READ_OBJECT, noop=True, job_id=2), 7, 0.0,
                              0.0, None, 0)
    worker.outbox.extend([odd, good])
    worker.pending = 2
    assert worker._flush(0) and worker.outbox == [] and worker.pending == 0
    assert [r['job_id'] for r in results_of(transport)] == [2]
    assert worker.faults.counts == {'record msgpack cannot encode': 1}


def test_heartbeats_list_integer_job_ids_only():
    transport = FakeTransport()
    # A no-op job is checked by its keys only: any id comes back.
    transport.inbox.append(protocol.pack(
        [job(READ_OBJECT, noop=True, job_id=u'x'),
         job(READ_OBJECT, noop=True, job_id=2.5),
         job(READ_OBJECT, noop=True, job_id=True),
         job(READ_OBJECT, noop=True, job_id=[3]),
         job(READ_OBJECT, noop=True, job_id=4)]))
    worker = make(transport)
    worker.handle_message(transport.inbox.popleft())
    assert len(worker.outbox) == 5 and worker.held() == [4]


def test_heartbeats_say_who_the_worker_is():
    import os
    import socket
    transport = FakeTransport()
    worker = make(transport, heartbeat_interval=0.05, auth=None)
    run_until(worker, lambda: len(transport.sent) >= 1)
    beat = protocol.unpack(transport.sent[0])[0]
    assert beat['protocol'] == protocol.PROTOCOL_VERSION
    assert beat['host'] == socket.gethostname()
    assert beat['pid'] == os.getpid() and beat['concurrency'] == 4
    assert beat['version'] == ssbench_version


def noop_results(first, count):
    return [protocol.result_ok(job(READ_OBJECT, noop=True, job_id=n), 7,
                               0.0, 0.0, None, 0)
            for n in range(first, first + count)]


class RefusingTransport(FakeTransport):
    """Takes the first `room` messages, then refuses until given more."""

    def __init__(self, room):
        FakeTransport.__init__(self)
        self.room = room

    def send(self, data, timeout=None):
        if self.room <= 0:
            return False
        self.room -= 1
        return FakeTransport.send(self, data, timeout)


def test_a_batch_larger_than_the_master_takes_leaves_in_parts(monkeypatch):
    from ssbench.worker import outbox
    results = noop_results(1, 40)
    one = len(protocol.pack(results[0]))
    monkeypatch.setattr(outbox, 'RESULTS_SPLIT', 5 + 15 * one)
    # The master's socket takes two messages, then is full a while.
    transport = RefusingTransport(2)
    worker = make(transport, batch_size=40)
    # One more job runs: the worker is not idle, so it batches.
    worker.outbox.extend(results[:39])
    worker.pending = 40
    assert worker._flush(0)             # 39 < batch size: not yet
    assert transport.sent == []
    worker.outbox.append(results[39])
    worker.pending = 41
    assert not worker._flush(0)
    assert [len(m) for m in messages_of(transport)] == [15, 15]
    assert len(worker.outbox) == 10 and worker.pending == 11
    # The rest of the batch goes as soon as the socket takes it, though
    # fewer than batch_size results are left; nothing is lost.
    transport.room = 5
    assert worker._flush(0) and worker.outbox == [] and worker.pending == 1
    assert [len(m) for m in messages_of(transport)] == [15, 15, 10]
    assert results_of(transport) == results
    assert all(len(data) <= outbox.RESULTS_SPLIT
               for data in transport.sent)
    assert worker.faults.total == 0


def test_a_result_larger_than_the_master_takes_costs_only_itself(
        monkeypatch):
    from ssbench.worker import outbox
    transport = FakeTransport()
    worker = make(transport)
    good = noop_results(1, 2)
    huge = noop_results(3, 1)[0]
    huge['name'] = 'x' * 4096
    monkeypatch.setattr(outbox, 'RESULTS_SPLIT', 4096)
    worker.outbox.extend([good[0], huge, good[1]])
    worker.pending = 3
    assert worker._flush(0, force=True) and worker.outbox == []
    assert worker.pending == 0
    assert results_of(transport) == good
    assert worker.faults.counts == {'record too large to send': 1}

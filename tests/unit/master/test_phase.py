"""The phase's two ways in: results decoded and checked, or (unless a
sink needs every record) plain successes taken on their bytes."""
from __future__ import absolute_import, division, print_function

from ssbench.master.dispatch import Master
from ssbench.master.phase import Phase
from ssbench.master.pipeline import Pipeline, Take
from ssbench.measure.needs import BYTES
from ssbench.wire import protocol, resultbytes
from tests.clocks import FakeClock
from tests.unit.master.test_dispatch import FakeTransport, answer, jobs


class Sink(object):
    """The jobs of messages taken on their bytes, the records of those
    decoded, and the bytes of both."""
    needs = BYTES

    def __init__(self):
        self.done, self.decoded, self.raw = [], [], []

    def results(self, message):
        if message.scanned:
            self.done.extend(message.jobs)
        else:
            self.decoded.extend(message.records)
        self.raw.append(message.data)


def run(transport, count=10, user_count=2):
    sink = Sink()
    master = Master(transport, user_count=user_count)
    # Shapes compiled in the loop, so that a shape is ready for the very
    # next message (a run compiles them on a thread of their own).
    assert master.shapes._background
    master.shapes = resultbytes.ResultShapes()
    stats = master.run_jobs(jobs(count), [sink])
    return master, stats, sink.done, sink.decoded, sink.raw


def test_successes_after_the_first_message_are_taken_on_their_bytes():
    transport = FakeTransport()
    master, stats, done, results, raw = run(transport)
    assert stats.received == 10 and stats.errors == 0
    names = sorted(r['name'] for r in done + results)
    assert names == sorted('o%d' % i for i in range(10))
    if resultbytes.KEYS_IN_WIRE_ORDER:
        # The first message is decoded and teaches the shape.
        assert len(results) == 1 and len(done) == 9
        assert (stats.scanned, stats.decoded) == (9, 1)
        # The jobs as they were sent; no figure of a result.
        assert all('last_byte_latency' not in job for job in done)
    else:
        assert done == [] and len(results) == 10
        assert (stats.scanned, stats.decoded) == (0, 10)
    # Whichever way, the stats file gets every message as it came.
    assert [r['name'] for data in raw for r in protocol.unpack(data)] == [
        'o%d' % i for i in range(10)]
    assert not master.tracker.outstanding


def test_a_sink_that_counts_keys_gets_their_values_of_a_scanned_message():
    class Counts(Sink):
        fields = ('type', 'last_byte_latency')

        def results(self, message):
            Sink.results(self, message)
            if message.captured is not None:
                layout, values = message.captured
                self.raw.extend(layout.record(v) for v in values)
    sink = Counts()
    master = Master(FakeTransport(), user_count=2)
    master.shapes = resultbytes.ResultShapes()
    master.run_jobs(jobs(10), [sink])
    counted = [r for r in sink.raw if isinstance(r, dict)]
    assert len(counted) == (9 if resultbytes.KEYS_IN_WIRE_ORDER else 0)
    assert all(r == {'type': 'upload_object', 'last_byte_latency': 0.01}
               for r in counted)


def test_a_sink_that_needs_records_has_every_message_decoded():
    results = []
    master = Master(FakeTransport(), user_count=2)
    master.run_jobs(jobs(6), [Take(results.extend)])
    assert len(results) == 6 and master.shapes.shapes == []


def test_a_job_answered_twice_in_one_message_counts_once():
    transport = FakeTransport(
        respond=lambda job: [answer(job, 1), answer(job, 1)])
    master, stats, done, results, raw = run(transport, count=4,
                                            user_count=1)
    assert stats.received == 4
    assert sorted(r['name'] for r in done + results) == [
        'o0', 'o1', 'o2', 'o3']
    assert master.faults.counts.get('result of no job in flight') == 4


def test_failures_take_the_full_way():
    transport = FakeTransport(respond=lambda job: [
        answer(job, 1, exception='boom' if job['name'] == 'o5' else None)])
    master, stats, done, results, raw = run(transport, user_count=1)
    assert stats.errors == 1
    assert [r['name'] for r in results if 'exception' in r] == ['o5']
    assert not any('exception' in job for job in done)


def test_a_result_naming_another_worker_than_its_jobs_went_to_is_dropped():
    master = Master(FakeTransport(), user_count=1)
    master.take_controls(0.0)          # worker 1 admitted
    peer = master.admission.by_id[1]
    job = dict(jobs(1)[0], job_id=1)
    master.tracker.sent([job], 0.0, peer)
    peer.out += 1
    forged = protocol.pack([answer(job, 2)])
    master.shapes.learn(protocol.unpack(forged))
    sink = Sink()
    phase = Phase(master, [], Pipeline([sink]))
    phase.receive(forged, 1.0)
    done, results = sink.done, sink.decoded
    assert done == [] and results == []
    assert 1 in master.tracker.outstanding and peer.out == 1
    assert master.faults.counts.get('result of no job in flight') == 1
    phase.receive(protocol.pack([answer(job, 1)]), 1.0)
    assert [r['job_id'] for r in done + results] == [1] and peer.out == 0


def test_jobs_that_wait_for_objects_resume_as_results_come_back():
    # UPDATEs of a guarded class of two objects, four users: the jobs wait
    # (jobgen.WAIT) for each UPDATE to be answered before the next of its
    # object goes out; nothing is forced while something is out.
    from random import Random
    from ssbench.load import jobgen
    from tests.unit.load.test_jobgen import make, populated
    scenario = make(initial={'a': 2}, crud=(0, 0, 1, 0),
                    operation_count=20)
    ring = populated(scenario)
    ring.guard_updates(['a'])
    transport = FakeTransport()
    master = Master(transport, user_count=4)
    stats = master.run_jobs(jobgen.bench_jobs(scenario, Random(1), ring),
                            [Take(ring.on_results)])
    assert stats.sent == stats.received == 20 and stats.errors == 0
    assert transport.max_outstanding == 2
    assert stats.held_back >= 9 and stats.forced == 0
    assert ring._in_use == {} and ring._updating == {}


def test_jobs_waiting_with_nothing_out_are_told_to_force():
    from ssbench.load.jobgen import FORCE, WAIT
    told = []

    def waiting():
        told.append((yield WAIT))
        yield jobs(1)[0]
    stats = Master(FakeTransport(), user_count=2).run_jobs(
        waiting(), [Take(lambda results: None)])
    assert told == [FORCE] and stats.received == 1
    assert (stats.held_back, stats.forced) == (1, 1)


def test_a_rate_run_whose_jobs_wait_waits_for_a_message_not_a_time():
    from ssbench.load.jobgen import WAIT
    from ssbench.load.schedule import Schedule

    def waiting():
        yield jobs(1)[0]
        yield WAIT
    clock = FakeClock(1000.0)
    master = Master(FakeTransport(clock=clock), user_count=4, monotonic=clock)
    master.take_controls(clock.now)     # worker 1 admitted
    master.schedule = Schedule(1000.0, start=clock.now)
    clock.advance(0.0035)           # four jobs due
    phase = Phase(master, waiting())
    phase.fill()
    assert phase.blocked and not phase.exhausted
    # One job went out; the other three times go back to the schedule,
    # due already, and still the loop waits for a message.
    assert phase.stats.sent == 1 and master.schedule.taken == 1
    assert master.schedule.next_send() <= clock.now
    assert phase.wait(0.5) == 0.5
    phase.blocked = False
    assert phase.wait(0.5) == 0.0


def test_jobs_that_end_when_told_to_force_close_a_rate_schedule():
    from ssbench.load.jobgen import WAIT
    from ssbench.load.schedule import Schedule

    def waiting():
        yield WAIT      # and FORCE finds nothing more to make
    clock = FakeClock(1000.0)
    master = Master(FakeTransport(clock=clock), user_count=4, monotonic=clock)
    master.tracker.seen(1, clock.now)
    master.schedule = Schedule(1000.0, start=clock.now)
    clock.advance(0.0035)
    phase = Phase(master, waiting())
    phase.fill()
    assert phase.exhausted and phase.stats.held_back == 1
    assert master.schedule.closed_at == clock.now
    assert master.schedule.taken == 0


def test_a_message_of_jobs_is_split_within_what_a_worker_takes(
        monkeypatch):
    from ssbench.master import phase
    monkeypatch.setattr(phase, 'JOBS_SPLIT', 200)
    transport = FakeTransport()
    master = Master(transport, user_count=40, batch_size=40)
    results = []
    master.run_jobs(jobs(40), [Take(results.extend)])
    assert len(results) == 40
    sizes = [len(protocol.pack(batch)) for batch in transport.sent]
    assert max(sizes) <= 200 and len(sizes) > 2
    assert [job['name'] for batch in transport.sent for job in batch] == [
        'o%d' % i for i in range(40)]


def test_a_single_job_larger_than_the_split_goes_alone(monkeypatch):
    from ssbench.master import phase
    monkeypatch.setattr(phase, 'JOBS_SPLIT', 10)
    transport = FakeTransport()
    master = Master(transport, user_count=3, batch_size=3)
    master.run_jobs(jobs(3), [Take(lambda got: None)])
    assert [len(batch) for batch in transport.sent] == [1, 1, 1]

from __future__ import absolute_import, division, print_function

import collections
import logging

import pytest

from ssbench.wire import protocol
from ssbench.errors import NoWorkersError
from ssbench.master.dispatch import KILL_HEARTBEAT_WAIT, Master, kill_workers
from ssbench.master.pipeline import Store, Take
from ssbench.measure.needs import BYTES
from ssbench.wire.protocol import HEARTBEAT, PING, SUICIDE
from ssbench.swift.auth import AuthOptions, Credentials
from ssbench.master.workerconfig import WorkerConfig
from tests.clocks import FakeClock
from tests.masterwire import RoutedControls


class Raw(object):
    """A sink given each message's bytes."""
    needs = BYTES

    def __init__(self, add):
        self.add = add

    def results(self, message):
        self.add(message.data)


class Idle(object):
    """A sink calling `call()` each turn of the run loop."""

    def __init__(self, call):
        self.idle = lambda now: call()


class FakeTransport(RoutedControls):
    """In-memory stand-in for MasterSockets with scripted workers.

    Every job sent is answered by `respond(job)` (a list of records, sent
    back as one message), unless `workers` is 0 (nobody connected);
    worker 1 is admitted first (tests.masterwire), and heartbeats are
    heard on the work connection.
    """

    def __init__(self, respond=None, workers=1, clock=None, hold=False,
                 beating=()):
        self.beating = beating     # ids that heartbeat while the master waits
        self.inbox = collections.deque()
        self.sent = []
        self.respond = respond or (lambda job: [answer(job, 1)])
        self.workers = workers
        self.clock = clock
        self.hold = hold
        self.max_outstanding = 0
        self.outstanding = 0
        self.admit = (1,) if workers else ()

    def send(self, data, timeout=None):
        if not self.workers:
            if self.clock is not None and timeout:
                self.clock.advance(timeout)
            return False
        batch = protocol.unpack(data)
        self.sent.append(batch)
        self.outstanding += len(batch)
        self.max_outstanding = max(self.max_outstanding, self.outstanding)
        replies = []
        for job in batch:
            replies.extend(self.respond(job))
        if replies:
            self.inbox.append(protocol.pack(replies))
        return True

    def recv(self, timeout):
        self.route()
        if self.inbox and not self.hold:
            return self._take()
        if self.clock is not None:
            self.clock.advance(timeout)
        if self.beating:
            self.inbox.append(protocol.pack([protocol.heartbeat(w, [])
                                             for w in self.beating]))
        return None

    def recv_nowait(self):
        self.route()
        if self.inbox and not self.hold:
            return self._take()
        return None

    def _take(self):
        data = self.inbox.popleft()
        self.outstanding -= sum(1 for r in protocol.unpack(data)
                                if r.get('type') != HEARTBEAT)
        return data


def jobs(n):
    return [{'type': 'upload_object', 'size_str': 's', 'container': 'c',
             'name': 'o%d' % i} for i in range(n)]


def answer(job, worker_id, exception=None):
    """A worker's result record of `job`."""
    if exception is not None:
        return protocol.result_error(job, worker_id, exception, '', 0)
    return protocol.result_ok(job, worker_id, 0.0, 0.01, None, 0)


def test_all_jobs_sent_and_results_seen():
    transport = FakeTransport()
    seen = []
    stats = Master(transport, user_count=4).run_jobs(jobs(10),
                                                     [Take(seen.extend)])
    assert stats.sent == 10 and stats.received == 10 and stats.errors == 0
    assert [r['name'] for r in seen] == ['o%d' % i for i in range(10)]


def test_batches_respect_batch_size_and_user_count():
    transport = FakeTransport(respond=lambda job: [])
    transport.hold = True
    clock = FakeClock(1000.0)
    transport.clock = clock
    master = Master(transport, user_count=5, batch_size=2, monotonic=clock,
                    worker_timeout=3)
    with pytest.raises(NoWorkersError):
        master.run_jobs(jobs(20))
    # 5 users, batches of 2: in at least two messages of at least a
    # batch each, as even as can be (3 + 2); then nothing until results
    # come.
    assert [len(b) for b in transport.sent] == [3, 2]


@pytest.mark.parametrize('users, batch, workers, sizes', [
    (24, 1, 2, [12, 12]),
    (24, 8, 2, [12, 12]),
    (24, 8, 3, [8, 8, 8]),
    (4, 1, 1, [2, 2]),
    (5, 2, 1, [3, 2]),
    (3, 1, 5, [1, 1, 1]),
    (1, 1, 1, [1]),
    (10, 4, 2, [5, 5]),
    (24, 16, 2, [16, 8]),
])
def test_room_that_opens_at_once_goes_out_in_few_even_messages(
        users, batch, workers, sizes):
    transport = FakeTransport(respond=lambda job: [], hold=True)
    clock = FakeClock(1000.0)
    transport.clock = clock
    master = Master(transport, user_count=users, batch_size=batch,
                    monotonic=clock, worker_timeout=3)
    for worker_id in range(workers):
        master.tracker.seen(worker_id, clock())
    with pytest.raises(NoWorkersError):
        master.run_jobs(jobs(100))
    assert [len(b) for b in transport.sent] == sizes
    ids = [job['job_id'] for b in transport.sent for job in b]
    assert ids == list(range(1, users + 1))


def test_results_coming_back_refill_only_the_room_they_free():
    """Each result message frees room for exactly its jobs."""
    transport = FakeTransport()
    master = Master(transport, user_count=6, batch_size=1)
    stats = master.run_jobs(jobs(40))
    assert stats.sent == stats.received == 40
    assert transport.max_outstanding <= 6
    assert sum(len(b) for b in transport.sent) == 40
    assert max(len(b) for b in transport.sent) <= 3


def test_batch_size_is_capped_to_user_count():
    assert Master(FakeTransport(), user_count=3, batch_size=8).batch_size == 3


def test_never_more_than_user_count_outstanding():
    transport = FakeTransport()
    Master(transport, user_count=3, batch_size=2).run_jobs(jobs(50))
    assert transport.max_outstanding <= 3


def test_errors_are_counted():
    def respond(job):
        if job['name'] == 'o3':
            return [answer(job, 1, exception='boom')]
        return [answer(job, 1)]
    stats = Master(FakeTransport(respond), 2).run_jobs(jobs(5))
    assert stats.errors == 1 and stats.received == 5


def test_heartbeats_are_not_results_and_not_stored():
    def respond(job):
        return [protocol.heartbeat(1, []), answer(job, 1)]

    class Writer(object):
        def __init__(self):
            self.raw, self.batches = [], []

        def write_raw(self, data):
            self.raw.append(data)

        def write_batch(self, results):
            self.batches.append(results)

    writer = Writer()
    master = Master(FakeTransport(respond), 2)
    stats = master.run_jobs(jobs(3), [Store(writer)])
    assert stats.received == 3
    # Heartbeats come on the work connection: the results only.
    stored = [protocol.unpack(data) for data in writer.raw]
    assert writer.batches == [] and len(stored) == 3
    assert [[r['name'] for r in batch] for batch in stored] == [
        ['o0'], ['o1'], ['o2']]
    assert 1 in master.workers


def test_pure_result_messages_are_stored_verbatim():
    stored = []
    Master(FakeTransport(), 1).run_jobs(
        jobs(2), [Raw(stored.append)])
    assert all(isinstance(d, bytes) for d in stored)
    assert [protocol.unpack(d)[0]['name'] for d in stored] == ['o0', 'o1']


def test_silent_workers_end_the_phase_with_an_error():
    clock = FakeClock(1000.0)
    transport = FakeTransport(respond=lambda job: [], clock=clock)
    master = Master(transport, user_count=2, worker_timeout=5, monotonic=clock)
    with pytest.raises(NoWorkersError) as info:
        master.run_jobs(jobs(4))
    # Worker 1 was admitted, then went silent.
    assert 'all workers lost (1)' in str(info.value)


def test_no_worker_connected_ends_with_an_error():
    clock = FakeClock(1000.0)
    transport = FakeTransport(workers=0, clock=clock)
    master = Master(transport, 1, worker_timeout=5, monotonic=clock)
    with pytest.raises(NoWorkersError):
        master.run_jobs(jobs(1))


class FakeAuth(object):
    """An authenticator counting its calls; token N is 'tokN'."""

    def __init__(self, lifetime=None):
        self.lifetime = lifetime
        self.calls = 0

    def __call__(self, auth, timeout=None):
        self.calls += 1
        return 'http://swift/v1/AUTH_a', 'tok%d' % self.calls, self.lifetime


def token_master(clock, lifetime=None, workers=(1,)):
    """A Master with a WorkerConfig over FakeAuth credentials, configured
    (one CONFIGURE sent per worker)."""
    fake = FakeAuth(lifetime)
    credentials = Credentials(
        AuthOptions(auth_url='http://auth/v1.0', user='u', key='secret-key'),
        authenticator=fake, clock=clock)
    transport = FakeTransport(respond=lambda job: [] if job['type'] ==
                              'CONFIGURE' else [answer(job, 1)], clock=clock)
    transport.admit = workers
    master = Master(transport, 1, monotonic=clock)
    master.take_controls(clock())
    master.configure(WorkerConfig(credentials, 1.0, 2.0, 4096,
                                  monotonic=clock))
    return master, transport, fake


def configures(transport):
    return [m[0] for m in transport.sent if m[0]['type'] == 'CONFIGURE']


def test_token_renewed_before_it_expires_during_a_phase():
    clock = FakeClock(1000.0)
    master, transport, fake = token_master(clock, lifetime=100.0)

    def slow(job):                 # each job takes a second
        clock.advance(1.0)
        return [answer(job, 1), protocol.heartbeat(1, [])]
    transport.respond = slow
    master.run_jobs(jobs(85))
    assert fake.calls == 1
    master.run_jobs(jobs(10))      # crosses 88 s: 2 s early, a tenth more
    assert fake.calls == 2
    sent = configures(transport)
    assert len(sent) == 2 and sent[-1]['token'] == 'tok2'


def test_kill_workers_tells_each_worker_heard_and_names_it():
    alive = [1, 2]

    def respond(job):
        if job['type'] == PING and alive:
            return [{'type': PING, 'worker_id': alive[0]}]
        if job['type'] == SUICIDE and alive:
            alive.pop(0)
        return []
    clock = FakeClock(1000.0)
    transport = FakeTransport(respond, clock=clock)
    transport.admit = ()
    transport.inbox.append(protocol.pack([protocol.heartbeat(1, [])]))
    transport.inbox.append(protocol.pack([protocol.heartbeat(2, [])]))
    killed = kill_workers(transport, timeout=1.0, monotonic=clock)
    assert killed == [1, 2]
    assert alive == []
    # One message each, addressed to its connection.
    assert sorted(transport.peers) == [b'peer-1', b'peer-2']
    assert transport.sent[0] == [{'type': PING}, {'type': SUICIDE}]


def test_kill_workers_tells_no_peer_that_never_beats():
    """Only a connection heard on the work port is told: a peer that
    never sends a heartbeat gets nothing, and the command ends after
    KILL_HEARTBEAT_WAIT."""
    clock = FakeClock(1000.0)
    transport = FakeTransport(clock=clock)
    transport.admit = ()
    assert kill_workers(transport, timeout=5.0, monotonic=clock) == []
    assert transport.sent == []
    assert KILL_HEARTBEAT_WAIT <= clock.now - 1000.0 < 5.0


def test_kill_workers_without_any_worker_returns_at_once():
    clock = FakeClock(1000.0)
    assert kill_workers(FakeTransport(workers=0, clock=clock), timeout=1,
                        monotonic=clock) == []


def test_jobs_get_increasing_ids():
    transport = FakeTransport()
    seen = []
    Master(transport, 2).run_jobs(jobs(3), [Take(seen.extend)])
    assert [r['job_id'] for r in seen] == [1, 2, 3]


def test_all_workers_lost_ends_the_phase_after_recording_their_jobs():
    clock = FakeClock(1000.0)

    def respond(job):
        return [protocol.heartbeat(1, [job['job_id']])]
    stored = []
    master = Master(FakeTransport(respond, clock=clock), user_count=2,
                    worker_timeout=5, monotonic=clock)
    with pytest.raises(NoWorkersError) as info:
        master.run_jobs(jobs(5),
                        [Take(stored.extend)])
    assert 'all workers lost (1)' in str(info.value)
    assert [r['exception'] for r in stored] == ['worker 1 lost'] * 2


def test_stop_request_drains_in_flight_results_then_returns():
    clock = FakeClock(1000.0)
    transport = FakeTransport(clock=clock)
    transport.hold = True           # results arrive only when released
    master = Master(transport, user_count=3, monotonic=clock)
    seen = []

    def on_idle():
        if not master.stop_requested:
            master.stop_requested = True
            transport.hold = False
    stats = master.run_jobs(jobs(100), [Take(seen.extend), Idle(on_idle)])
    assert stats.interrupted
    assert stats.sent == 3 and len(seen) == 3


def test_stop_request_gives_up_after_the_drain_period(caplog):
    clock = FakeClock(1000.0)
    transport = FakeTransport(respond=lambda job: [], clock=clock,
                              beating=[1])
    master = Master(transport, user_count=2, monotonic=clock, drain_seconds=2,
                    worker_timeout=60)

    def on_idle():
        master.stop_requested = True
    with caplog.at_level(logging.WARNING):
        stats = master.run_jobs(jobs(10), [Idle(on_idle)])
    assert stats.interrupted and stats.sent == 2 and stats.received == 0
    assert clock.now - 1000.0 < 5
    # The two requests left out are said, with how long they were out.
    assert stats.unanswered == 2
    said = [r.getMessage() for r in caplog.records
            if 'still in flight' in r.getMessage()]
    assert said == [
        '2 requests still in flight when the run stopped are not in the '
        'results (out for 3.0 to 3.0 s by then): the latencies reported '
        'leave out the slowest requests']


# -- workers known to be gone, stale results ---------------------------

def test_workers_gone_ends_the_drain_at_once_keeping_queued_results():
    clock = FakeClock(1000.0)
    transport = FakeTransport(clock=clock, beating=[1])
    transport.hold = True
    master = Master(transport, user_count=3, monotonic=clock, drain_seconds=60,
                    worker_timeout=600)
    seen = []

    def on_idle():
        master.stop_requested = True
        transport.hold = False     # queued, then the workers are gone
        master.workers_gone = lambda: 'gone'
    stats = master.run_jobs(jobs(100), [Take(seen.extend), Idle(on_idle)])
    assert stats.interrupted and len(seen) == 3
    assert clock.now - 1000.0 < 2


def test_workers_gone_mid_phase_is_an_error_at_once():
    clock = FakeClock(1000.0)
    transport = FakeTransport(respond=lambda job: [], clock=clock)
    master = Master(transport, user_count=2, monotonic=clock,
                    worker_timeout=600)
    master.workers_gone = lambda: 'every local ssbench-worker exited (y)'
    with pytest.raises(NoWorkersError) as info:
        master.run_jobs(jobs(10))
    assert str(info.value) == ('every local ssbench-worker exited (y); the '
                               'run cannot go on')
    assert clock.now - 1000.0 < 2


def test_a_duplicate_result_is_not_called_late(caplog):
    def respond(job):
        return [answer(job, 1)] * 2
    stored = []
    master = Master(FakeTransport(respond), 1)
    master.run_jobs(jobs(2), [Take(stored.extend)])
    assert len(stored) == 2
    text = caplog.text
    assert 'already counted as lost' not in text
    assert 'Dropped input on the results port: result of no job in ' \
        'flight: 1' in text


def test_a_result_after_its_worker_was_lost_is_late(caplog):
    clock = FakeClock(1000.0)
    state = {'n': 0, 'late': None}

    def respond(job):
        state['n'] += 1
        if state['n'] == 1:           # worker 1 takes it, then goes quiet
            state['late'] = answer(job, 1)
            return [protocol.heartbeat(1, [job['job_id']])]
        replies = [answer(job, 2), protocol.heartbeat(2, [])]
        if state.get('late') is not None and clock.now - 1000.0 > 5:
            replies.append(state.pop('late'))
        return replies
    transport = FakeTransport(respond, clock=clock, beating=[2])
    master = Master(transport, user_count=1, worker_timeout=5, monotonic=clock)
    master.admission.stall = 60     # worker 2 waits for 1 to be lost
    master.run_jobs(iter(jobs(4) + [dict(j) for j in jobs(4)]))
    assert '1 result(s) arrived for jobs already counted as lost' in \
        caplog.text


class LateWorkerTransport(object):
    """Worker 1 from the start, worker 2 from when `joins(clock, sent)`
    is first true; each answers every job sent to its connection at once,
    and both beat on every look at the work connection."""

    def __init__(self, clock, joins):
        self.clock = clock
        self.joins = joins
        self.joined = None      # jobs sent before worker 2 was admitted
        self.inbox = collections.deque()
        self.by_worker = collections.Counter()

    def send_to(self, peer, data, timeout=0):
        from tests.masterwire import peer_of
        worker_id = 1 if peer == peer_of(1) else 2
        batch = [job for job in protocol.unpack(data)
                 if job.get('type') not in ('CONFIGURE', 'CLOCK')]
        self.by_worker[worker_id] += len(batch)
        self.inbox.append(protocol.pack([answer(job, worker_id)
                                         for job in batch]))
        return True

    def recv(self, timeout):
        if self.inbox:
            return self.inbox.popleft()
        self.clock.advance(timeout)
        return None

    def controls(self):
        from tests.masterwire import admitting, peer_of
        if self.joined is None and self.joins(
                self.clock(), sum(self.by_worker.values())):
            self.joined = dict(self.by_worker)
        workers = (1,) if self.joined is None else (1, 2)
        return [(peer_of(w), protocol.pack([admitting(w)]))
                for w in workers]


def shares_after_joining(transport):
    """The jobs each worker got from when worker 2 was admitted."""
    return [transport.by_worker[w] - transport.joined.get(w, 0)
            for w in (1, 2)]


@pytest.mark.parametrize('users', [1, 2, 50])
def test_a_late_worker_gets_its_share_of_a_closed_loop(users):
    """Issue 50 (17): a worker admitted after the first jobs went out
    gets as many as the first from then on, whatever the load."""
    clock = FakeClock(1000.0, step=0.001)
    transport = LateWorkerTransport(clock, lambda now, sent: sent >= 100)
    stats = Master(transport, user_count=users, monotonic=clock).run_jobs(
        jobs(1100))
    assert stats.received == 1100 and transport.joined
    first, late = shares_after_joining(transport)
    assert abs(first - late) <= users, (first, late)


def test_a_late_worker_gets_its_share_of_an_open_loop():
    """Issue 50 (17): 600 jobs at 50/s, as in the open-loop e2e test,
    the second worker admitted 2 s in: half of the later jobs each."""
    from ssbench.load.schedule import Schedule
    clock = FakeClock(1000.0)
    transport = LateWorkerTransport(clock, lambda now, sent: now >= 1002.0)
    master = Master(transport, user_count=50, monotonic=clock)
    master.schedule = Schedule(50.0, start=clock.now)
    stats = master.run_jobs(jobs(600))
    assert stats.received == 600
    first, late = shares_after_joining(transport)
    assert first + late > 450 and abs(first - late) <= 2, (first, late)

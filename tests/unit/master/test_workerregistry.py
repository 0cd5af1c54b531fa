"""The master's registry of workers: the wait for workers, their
configuration and tokens, jobs lost with a worker, the no-worker hint."""
from __future__ import absolute_import, division, print_function

import collections

import pytest

from ssbench.wire import protocol
from ssbench.errors import NoWorkersError
from ssbench.master.dispatch import Master
from ssbench.master.pipeline import Take
from ssbench.report.compute.causes import cause_of
from tests.clocks import FakeClock
from tests.masterwire import admitting, peer_of
from tests.unit.master.test_dispatch import (FakeTransport, answer, configures,
                                             jobs, token_master)


def test_wait_for_workers_times_out():
    clock = FakeClock(1000.0)
    transport = FakeTransport(clock=clock)
    transport.admit = ()
    master = Master(transport, 1, monotonic=clock)
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(3)
    assert 'no ssbench-worker connected within 3 s' in str(info.value)


def test_wait_for_workers_returns_ids_from_heartbeats():
    transport = FakeTransport()
    transport.admit = ()
    transport.inbox.append(protocol.pack([protocol.heartbeat(4, 0)]))
    assert Master(transport, 1).wait_for_workers(3) == [4]


def beat(worker_id, generation=None, rejected=False, configured=True):
    return protocol.heartbeat(worker_id, [], configured, generation, rejected)


def hear(master, *records):
    """The master takes in `records` (one message) during a phase."""
    master.transport.inbox.append(protocol.pack(list(records)))
    master.run_jobs(jobs(1))


def test_configure_hands_out_a_token_never_a_key():
    master, transport, fake = token_master(FakeClock(1000.0), workers=(1, 2))
    sent = configures(transport)
    assert len(sent) == 2 and fake.calls == 1
    assert sent[0] == {
        'type': 'CONFIGURE', 'connect_timeout': 1.0, 'network_timeout': 2.0,
        'block_size': 4096, 'storage_urls': ['http://swift/v1/AUTH_a'],
        'token': 'tok1', 'token_generation': 1, 'renewable': True,
        'insecure': False, 'cacert': None,
        'protocol': protocol.PROTOCOL_VERSION}
    assert b'secret-key' not in b''.join(
        protocol.pack(m) for m in transport.sent)


def test_unconfigured_or_stale_workers_get_the_configuration_again():
    clock = FakeClock(1000.0)
    master, transport, fake = token_master(clock)
    for record in (beat(1, configured=False), beat(1, generation=1),
                   beat(1)):
        clock.advance(1.0)
        hear(master, record)
    # Unconfigured: another copy; up to date, or own credentials: none.
    assert len(configures(transport)) == 2
    # The master's own client renewed the token: heartbeats that show the
    # old one (five in a second) bring one more round of copies.
    credentials = master.configuration.credentials
    credentials.renew(credentials.grant)
    clock.advance(1.0)
    hear(master, *[beat(1, generation=1)] * 5)
    sent = configures(transport)
    assert len(sent) == 3 and sent[-1]['token'] == 'tok2'
    assert fake.calls == 2


def test_many_rejected_tokens_cost_one_authentication():
    """Every worker's 401 on generation 1 asks for a token: the master
    authenticates once and sends every live worker generation 2."""
    clock = FakeClock(1000.0)
    master, transport, fake = token_master(clock, workers=(1, 2, 3))
    del transport.sent[:]
    beats = [beat(w, generation=1, rejected=True) for w in (1, 2, 3)]
    hear(master, *beats)
    hear(master, beats[0])                  # a late one
    assert fake.calls == 2       # the first token, and one renewal
    sent = configures(transport)
    assert len(sent) == 3
    assert set((c['token'], c['token_generation']) for c in sent) == set(
        [('tok2', 2)])


def test_a_lost_worker_costs_its_jobs_as_errors_and_the_run_goes_on():
    """Worker 1 takes jobs and dies; worker 2 answers everything else."""
    clock = FakeClock(1000.0)

    def respond(job):
        if transport.peers[-1] == peer_of(1):
            return [dict(protocol.heartbeat(1, [job['job_id']]))]
        return [answer(job, 2), protocol.heartbeat(2, [])]
    transport = FakeTransport(respond, clock=clock, beating=[2])
    stored = []
    master = Master(transport, user_count=3, worker_timeout=5, monotonic=clock)
    stats = master.run_jobs(
        jobs(6), [Take(stored.extend)])
    to_one = sorted(job['name'] for peer, batch in zip(transport.peers,
                                                       transport.sent)
                    for job in batch if peer == peer_of(1))
    assert to_one and stats.received == 6 and stats.errors == len(to_one)
    lost = [r for r in stored if 'exception' in r]
    assert sorted(r['name'] for r in lost) == to_one
    assert all(r['exception'] == 'worker 1 lost' and r['worker_id'] == 1
               for r in lost)
    assert set(master.tracker.lost_ids) == set([1])
    # Their cause in the reports (issue 50, 16: it was "not recorded").
    assert set(cause_of(r['status'], r['error_class']) for r in lost) == \
        set([('worker lost', None, 'worker lost')])


def test_a_job_no_worker_ever_claims_does_not_hang_the_phase():
    """E.g. pulled by a peer that never heartbeats: counted as lost after
    3 x worker_timeout, and the phase ends."""
    clock = FakeClock(1000.0)
    transport = FakeTransport(respond=lambda job: [], clock=clock,
                              beating=[1])
    stored = []
    master = Master(transport, user_count=1, worker_timeout=2, monotonic=clock)
    stats = master.run_jobs(
        jobs(1), [Take(stored.extend)])
    assert stats.errors == 1
    assert stored[0]['exception'] == 'job lost: no worker claimed it'
    assert stored[0]['error_class'] == 'job lost'
    assert clock.now - 1000.0 < 3 * 2 + 5


def test_a_stop_request_ends_the_wait_for_workers():
    from ssbench.errors import Interrupted
    clock = FakeClock(1000.0)
    master = Master(FakeTransport(clock=clock), 1, monotonic=clock)
    master.stop_requested = True
    with pytest.raises(Interrupted):
        master.wait_for_workers(60)
    assert clock.now == 1000.0


# -- workers known to be gone, the no-worker hint ----------------------

def test_workers_gone_ends_the_wait_for_workers_at_once():
    clock = FakeClock(1000.0)
    master = Master(FakeTransport(workers=0, clock=clock), 1, monotonic=clock)
    master.workers_gone = lambda: 'every local ssbench-worker exited (x)'
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(60)
    assert str(info.value) == ('every local ssbench-worker exited (x) '
                               'before connecting')
    assert clock.now == 1000.0


def test_no_worker_hint_names_refused_curve_keys():
    clock = FakeClock(1000.0)
    transport = FakeTransport(workers=0, clock=clock)
    transport.curve_refusals = {'K3y': 2, None: 1}
    transport.curve_directory = '/keys'
    master = Master(transport, 1, monotonic=clock)
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(3)
    message = str(info.value)
    assert message.startswith('no ssbench-worker connected within 3 s; '
                              'the master refused 3 CURVE handshake(s) '
                              'from worker key(s) not in /keys (K3y, no '
                              'CURVE key)')
    assert '\n' not in message


def test_no_worker_hint_without_curve():
    clock = FakeClock(1000.0)
    master = Master(FakeTransport(workers=0, clock=clock), 1, monotonic=clock)
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(3)
    assert 'start workers (or use --workers N)' in str(info.value)


class Restarting(object):
    """Worker 1 on connection b'a' (pid 10) holds every job it is sent
    and beats each second until `killed_at`; from `back_at` on, worker 1
    on connection b'b' (pid 11) beats and answers every job at once."""

    def __init__(self, clock, killed_at, back_at):
        self.clock = clock
        self.killed_at = killed_at
        self.back_at = back_at
        self.inbox = collections.deque()
        self.queued = []            # (routing id, message) not taken yet
        self.sent = []              # (routing id, job ids)
        self.held = []
        self.beat_at = 0.0

    def controls(self):
        self._beat()
        taken, self.queued = self.queued, []
        return taken

    def send_to(self, peer, data, timeout=0):
        jobs_sent = protocol.unpack(data)
        self.sent.append((peer, [job['job_id'] for job in jobs_sent]))
        if peer == b'a':
            self.held.extend(job['job_id'] for job in jobs_sent)
        else:
            self.inbox.append(protocol.pack([answer(job, 1)
                                             for job in jobs_sent]))
        return True

    def recv(self, timeout):
        if self.inbox:
            return self.inbox.popleft()
        self.clock.advance(timeout)
        return None

    def recv_nowait(self):
        return self.inbox.popleft() if self.inbox else None

    def _beat(self):
        now = self.clock()
        if now < self.beat_at:
            return
        self.beat_at = now + 1.0
        if now < self.killed_at:
            self.queued.append((b'a', protocol.pack([admitting(
                1, concurrency=4, pid=10, in_flight=list(self.held))])))
        elif now >= self.back_at:
            self.queued.append((b'b', protocol.pack([admitting(
                1, concurrency=4, pid=11)])))


def test_a_worker_started_again_under_its_id_takes_over_at_once():
    """Its earlier process held 4 jobs when it was killed: they count as
    lost once, as soon as the new process took the id over (2 s of
    silence later), not after 3 x worker_timeout; the new one gets the
    rest of the jobs."""
    clock = FakeClock(1000.0)
    transport = Restarting(clock, killed_at=1001.5, back_at=1004.0)
    stored = []
    master = Master(transport, user_count=4, worker_timeout=10,
                    monotonic=clock)
    stats = master.run_jobs(
        jobs(10), [Take(stored.extend)])
    held = set(transport.held)
    assert len(held) == 4 and stats.received == 10 and stats.errors == 4
    lost = [r for r in stored if 'exception' in r]
    assert set(r['job_id'] for r in lost) == held and len(lost) == 4
    assert all(r['exception'] == 'worker 1 lost' and 'replaced by a new '
               'process of that id (pid 11)' in r['traceback'] and
               r['error_class'] == 'worker lost' for r in lost)
    answered = [job_id for peer, ids in transport.sent if peer == b'b'
                for job_id in ids]
    assert sorted(answered) == sorted(r['job_id'] for r in stored
                                      if 'exception' not in r)
    assert len(answered) == 6 and not held & set(answered)
    assert clock.now - 1000.0 < 10
    assert not master.tracker.lost_ids and not master.tracker.outstanding


# -- a worker that refuses its configuration -------------------------------

REFUSAL = 'bad token_expires_in (10000000000.0)'
CONTROLS = ('CONFIGURE', 'REFUSED')


def refusing(worker_id, in_flight=(), configured=False):
    return protocol.heartbeat(worker_id, list(in_flight), configured,
                              config_refused=REFUSAL)


def refused_to(transport, worker_id):
    """The REFUSED messages sent to `worker_id`'s connection."""
    return [batch[0] for peer, batch in zip(transport.peers, transport.sent)
            if peer == peer_of(worker_id) and batch[0]['type'] == 'REFUSED']


def test_the_only_worker_refusing_its_configuration_stops_the_run():
    """It holds the first jobs, unconfigured: they count as lost, and the
    run stops with one line naming the worker and why, within a second of
    the refusal, not after --worker-timeout."""
    clock = FakeClock(1000.0)
    master, transport, _ = token_master(clock)
    transport.respond = lambda job: [] if job['type'] in CONTROLS else \
        [refusing(1, [job['job_id']])]
    stored = []
    with pytest.raises(NoWorkersError) as info:
        master.run_jobs(jobs(3),
                        [Take(stored.extend)])
    line = str(info.value)
    assert line.startswith('all workers lost (1); worker 1 (')
    assert line.endswith(') refused its configuration: %s; the run cannot '
                         'go on' % REFUSAL)
    assert clock.now - 1000.0 < 1.0
    assert stored and all(
        r['exception'] == 'worker 1 lost' and
        r['traceback'].endswith('refused its configuration: ' + REFUSAL) and
        r['error_class'] == 'worker lost' for r in stored)
    assert not master.tracker.outstanding
    # Told once, and never admitted again on that connection.
    assert refused_to(transport, 1) == [protocol.refused(
        'it refused its configuration: ' + REFUSAL)]
    master.take_controls(clock())
    assert peer_of(1) not in master.admission.by_peer
    assert master.refused == {1: 'it refused its configuration: ' + REFUSAL}


def test_the_run_goes_on_with_the_workers_that_took_their_configuration():
    """As when a worker dies before it is configured: worker 2 refuses,
    its jobs count as lost, worker 1 answers the rest."""
    clock = FakeClock(1000.0)
    master, transport, _ = token_master(clock, workers=(1, 2))
    master.resize(4, 1)

    def respond(job):
        if job['type'] in CONTROLS:
            return []
        if transport.peers[-1] == peer_of(2):
            return [refusing(2, [job['job_id']])]
        return [answer(job, 1), protocol.heartbeat(1, [], True)]
    transport.respond = respond
    stored = []
    stats = master.run_jobs(
        jobs(10), [Take(stored.extend)])
    lost = [r for r in stored if 'exception' in r]
    assert stats.received == 10 and stats.errors == len(lost) >= 1
    assert all(r['worker_id'] == 2 for r in lost)
    assert len(refused_to(transport, 2)) == 1
    assert list(master.admission.by_peer) == [peer_of(1)]
    assert master.config_refusal.endswith(REFUSAL)


@pytest.mark.parametrize('configured', [True, None])
def test_a_refusal_of_a_configured_worker_is_not_a_stop(configured):
    """Configured already (a later copy refused), or with no
    configuration to hand out (--noop): it works on."""
    clock = FakeClock(1000.0)
    if configured:
        master, transport, _ = token_master(clock)
    else:
        transport = FakeTransport(clock=clock)
        master = Master(transport, 1, monotonic=clock)
    hear(master, refusing(1, configured=configured))
    assert master.run_jobs(jobs(3)).received == 3
    assert master.config_refusal is None and not master.refused
    assert peer_of(1) in master.admission.by_peer

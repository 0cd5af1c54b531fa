"""The master's start gate (--expect-workers) and its refusal of workers
of another wire protocol version."""
from __future__ import absolute_import, division, print_function

import logging

import pytest

from ssbench.errors import NoWorkersError
from ssbench.master.dispatch import Master
from ssbench.wire import protocol
from ssbench.wire.protocol import CONFIGURE, PROTOCOL_VERSION
from tests.clocks import FakeClock


class Scripted(object):
    """A transport whose every recv() returns the next scripted message
    (then nothing), advancing a fake clock by the timeout when idle."""

    def __init__(self, clock, messages=()):
        self.clock = clock
        self.messages = list(messages)
        self.sent = []

    def send(self, data, timeout=None):
        self.sent.append(protocol.unpack(data))
        return True

    def recv(self, timeout):
        if self.messages:
            return protocol.pack(self.messages.pop(0))
        self.clock.advance(timeout)
        return None


def beat(worker_id, configured=True, proto=PROTOCOL_VERSION, **more):
    record = protocol.heartbeat(worker_id, [], configured)
    if proto is None:
        del record['protocol']
    else:
        record['protocol'] = proto
    record.update(more)
    return record


class Config(object):
    """Stands in for WorkerConfig: any unconfigured worker wants it."""

    def broadcast(self):
        return protocol.configure_job()

    def wanted(self, heartbeat):
        return not heartbeat.get('configured')


def test_expect_waits_for_that_many_configured_workers():
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(1)], [beat(2, configured=False)],
                                 [beat(2)], [beat(3)]])
    master = Master(transport, 1, clock=clock)
    master.configuration = Config()
    assert master.wait_for_workers(60, expect=3) == [1, 2, 3]
    # The unconfigured worker 2 brought a copy of the configuration.
    assert any(m[0]['type'] == CONFIGURE for m in transport.sent)


def test_without_a_configuration_heard_from_is_enough():
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(1, configured=False),
                                  beat(2, configured=False)]])
    assert Master(transport, 1, clock=clock).wait_for_workers(
        60, expect=2) == [1, 2]


def test_too_few_workers_is_one_line_naming_how_many_came():
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(1), beat(7)]])
    master = Master(transport, 1, clock=clock)
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(30, expect=8)
    line = str(info.value)
    assert '\n' not in line
    assert line.startswith('--expect-workers 8: 2 worker(s) connected and '
                           'configured within 30 s (--worker-wait): 1, 7')


def test_none_came_gives_the_hint():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock), 1, clock=clock)
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(5, expect=2)
    assert '0 worker(s)' in str(info.value)
    assert 'check --zmq-host' in str(info.value)


@pytest.mark.parametrize('version, said', [
    (PROTOCOL_VERSION + 1, 'version %d' % (PROTOCOL_VERSION + 1)),
    (None, 'with no version')])
def test_another_protocol_is_refused_once_and_told(caplog, version, said):
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(9, proto=version, host='h9')],
                                 [beat(9, proto=version)], [beat(1)]])
    master = Master(transport, 1, clock=clock)
    with caplog.at_level(logging.ERROR):
        assert master.wait_for_workers(60, expect=1) == [1]
    lines = [r.getMessage() for r in caplog.records
             if 'refused' in r.getMessage()]
    assert lines == ['worker 9 (h9) refused: it speaks wire protocol %s, '
                     'this master version %d' % (said, PROTOCOL_VERSION)]
    assert 9 not in master.tracker.workers and 9 in master.refused
    # Each heartbeat of it sent a CONFIGURE naming our version to every
    # peer (PUSH cannot address it).
    told = [m for m in transport.sent if m[0]['type'] == CONFIGURE]
    assert told and all(m[0]['protocol'] == PROTOCOL_VERSION for m in told)


def test_the_start_waits_for_a_refused_worker_to_go():
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(9, proto=99)], [beat(1)]])
    master = Master(transport, 1, clock=clock, poll_interval=0.5)
    start = clock.now
    master.wait_for_workers(60, expect=1)
    # Not before REFUSED_QUIET seconds without a word from worker 9.
    from ssbench.master.workerregistry import REFUSED_QUIET
    assert clock.now - start >= REFUSED_QUIET


def test_results_of_a_refused_worker_are_dropped():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock), 1, clock=clock)
    master.results_of([beat(9, proto=99)], clock.now)
    result = protocol.result_ok({'type': 'PING', 'job_id': 3}, 9, 0, 0,
                                None, 0)
    assert master.results_of([result], clock.now) == []
    assert 9 not in master.tracker.workers


def test_jobs_a_refused_worker_holds_fail_at_once():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock), 2, clock=clock)
    jobs = [{'type': 'get_object', 'job_id': n, 'name': 'o%d' % n}
            for n in (5, 6)]
    master.tracker.sent(jobs, clock.now)
    results = master.results_of(
        [beat(9, proto=99, in_flight=[5, 77])], clock.now)
    assert [(r['job_id'], r['exception']) for r in results] == [
        (5, 'worker 9 refused')]
    assert list(master.tracker.outstanding) == [6]
    assert 5 in master.lost_job_ids
    # A heartbeat that lists nothing (or not a list) fails nothing.
    assert master.results_of([beat(8, proto=99, in_flight=3)],
                             clock.now) == []


def test_identities_come_from_heartbeats():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock), 1, clock=clock)
    master.results_of([beat(4, host='h', pid=12, version='0.4.0',
                            concurrency=8)], clock.now)
    assert master.identities[4] == {
        'protocol': PROTOCOL_VERSION, 'host': 'h', 'pid': 12,
        'version': '0.4.0', 'concurrency': 8, 'configured': True}

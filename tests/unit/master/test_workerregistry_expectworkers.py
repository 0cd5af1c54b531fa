"""The master's start gate (--expect-workers) and its refusal of workers
it does not admit (ssbench.master.admission has the rules)."""
from __future__ import absolute_import, division, print_function

import logging

import pytest

from ssbench.errors import NoWorkersError
from ssbench.master.dispatch import Master
from ssbench.wire import protocol
from ssbench.wire.protocol import CONFIGURE, PROTOCOL_VERSION, REFUSED
from tests.clocks import FakeClock
from tests.masterwire import peer_of


class Scripted(object):
    """A transport whose work connection hears the next scripted message
    at each controls() (each record on the connection of the worker,
    host and pid it names), advancing a fake clock by recv()'s timeout
    when idle."""

    def __init__(self, clock, messages=()):
        self.clock = clock
        self.messages = list(messages)
        self.sent = []
        self.peers = []

    def send_to(self, peer, data, timeout=0):
        self.sent.append(protocol.unpack(data))
        self.peers.append(peer)
        return True

    def controls(self):
        if not self.messages:
            return []
        return [(connection(record), protocol.pack([record]))
                for record in self.messages.pop(0)]

    def recv(self, timeout):
        if not self.messages:
            self.clock.advance(timeout)
        return None


def connection(record):
    """The fake routing id of the process a heartbeat comes from."""
    if record.get('pid') is None:
        return peer_of(record['worker_id'])
    return peer_of('%s@%s:%s' % (record['worker_id'], record.get('host'),
                                 record['pid']))


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
    master = Master(transport, 1, monotonic=clock)
    master.configuration = Config()
    assert master.wait_for_workers(60, expect=3) == [1, 2, 3]
    # The unconfigured worker 2 brought a copy of the configuration.
    assert any(m[0]['type'] == CONFIGURE for m in transport.sent)


def test_without_a_configuration_heard_from_is_enough():
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(1, configured=False),
                                  beat(2, configured=False)]])
    assert Master(transport, 1, monotonic=clock).wait_for_workers(
        60, expect=2) == [1, 2]


def test_too_few_workers_is_one_line_naming_how_many_came():
    clock = FakeClock(1000.0)
    transport = Scripted(clock, [[beat(1), beat(7)]])
    master = Master(transport, 1, monotonic=clock)
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(30, expect=8)
    line = str(info.value)
    assert '\n' not in line
    assert line.startswith('--expect-workers 8: 2 worker(s) connected and '
                           'configured within 30 s (--worker-wait): 1, 7')


def test_none_came_gives_the_hint():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock), 1, monotonic=clock)
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
    master = Master(transport, 1, monotonic=clock)
    with caplog.at_level(logging.ERROR):
        assert master.wait_for_workers(60, expect=1) == [1]
    lines = [r.getMessage() for r in caplog.records
             if 'refused' in r.getMessage()]
    assert lines == ['worker 9 (h9) refused: it speaks wire protocol %s, '
                     'this master version %d' % (said, PROTOCOL_VERSION)]
    assert 9 not in master.tracker.workers and 9 in master.refused
    # Told once, on its own connection: a REFUSED, never a job.
    told = [(peer, m) for peer, m in zip(transport.peers, transport.sent)
            if peer == peer_of(9)]
    assert told == [(peer_of(9), [{
        'type': REFUSED, 'reason': 'it speaks wire protocol %s, '
        'this master version %d' % (said, PROTOCOL_VERSION)}])]


def test_a_duplicate_worker_id_is_refused_naming_who_holds_it(caplog):
    clock = FakeClock(1000.0)
    first = beat(4, host='h1', pid=11)
    second = beat(4, host='h2', pid=22)
    transport = Scripted(clock, [[first]])
    master = Master(transport, 1, monotonic=clock)
    master.wait_for_workers(60, expect=1)
    transport.messages.append([second])
    with caplog.at_level(logging.ERROR):
        master.take_controls(clock.now)
    assert caplog.records[-1].getMessage() == (
        'worker 4 (h2) refused: worker id 4 is held by worker 4 (h1, '
        'pid 11)')
    assert transport.sent[-1][0]['type'] == REFUSED
    assert master.identities[4]['pid'] == 11
    with pytest.raises(NoWorkersError) as info:
        master.wait_for_workers(1, expect=2)
    assert '1 worker(s) connected' in str(info.value)
    assert 'refused: 4 (worker id 4 is held by' in str(info.value)


def test_heartbeats_on_the_results_port_are_dropped():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock), 1, monotonic=clock)
    assert master.results_of([beat(9)], clock.now) == []
    assert 9 not in master.tracker.workers
    assert master.faults.counts == {'heartbeat on the results port': 1}


def test_identities_come_from_heartbeats():
    clock = FakeClock(1000.0)
    master = Master(Scripted(clock, [[beat(
        4, host='h', pid=12, version='0.4.0', concurrency=8)]]), 1,
        monotonic=clock)
    master.take_controls(clock.now)
    assert master.identities[4] == {
        'protocol': PROTOCOL_VERSION, 'host': 'h', 'pid': 12,
        'version': '0.4.0', 'concurrency': 8, 'configured': True}

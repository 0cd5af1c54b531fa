"""ssbench.master.clockoffset: a worker's wall-clock offset from probe
round trips, on injected clocks; the probes ride on the master's messages
of jobs and come back in heartbeats; ssbench.results.clockrecords judges
what is stored."""
from __future__ import absolute_import, division, print_function

import collections

import pytest

from ssbench.master.clockoffset import ClockOffsets
from ssbench.master.dispatch import Master
from ssbench.results import clockrecords
from ssbench.wire import protocol
from ssbench.wire.protocol import CLOCK
from tests.masterwire import RoutedControls
from tests.clocks import FakeClock


def master_clocks():
    """The master's monotonic clock and its wall clock, 900 s apart."""
    return FakeClock(100.0, wall_offset=900.0)


def round_trip(offsets, clocks, out, held, back, ahead, worker_id=1):
    """A probe out (`out` s), held `held` s by a worker whose wall clock
    is `ahead` s ahead of the master's, then back (`back` s)."""
    probe = offsets.probe()
    clocks.now += out + held
    beat = protocol.heartbeat(worker_id, [])
    beat['completed_at'] = clocks.time() + ahead
    beat['clock_probe'] = [probe['sent'], held]
    clocks.now += back
    offsets.heartbeat(beat)


def test_the_offset_comes_from_one_round_trip_to_within_half_of_it():
    clocks = master_clocks()
    offsets = ClockOffsets(clocks.monotonic, clocks.time, interval=0)
    round_trip(offsets, clocks, 0.01, 0.3, 0.02, ahead=2.0)
    (record,) = offsets.records()
    assert record['kind'] == clockrecords.CLOCK_RECORD
    assert record['worker_id'] == 1 and record['samples'] == 1
    assert record['rtt'] == pytest.approx(0.03)
    # The error is half the difference of the two ways: 5 ms.
    assert record['offset'] == pytest.approx(1.995)
    assert abs(record['offset'] - 2.0) <= record['rtt'] / 2


def test_the_shortest_round_trip_wins():
    clocks = master_clocks()
    offsets = ClockOffsets(clocks.monotonic, clocks.time, interval=0)
    round_trip(offsets, clocks, 0.2, 0.5, 0.001, ahead=-1.0)
    round_trip(offsets, clocks, 0.001, 0.9, 0.001, ahead=-1.0)
    round_trip(offsets, clocks, 0.05, 0.1, 0.3, ahead=-1.0)
    (record,) = offsets.records()
    assert record['samples'] == 3
    assert record['rtt'] == pytest.approx(0.002)
    assert record['offset'] == pytest.approx(-1.0)


def test_a_probe_goes_out_at_most_once_an_interval():
    clocks = master_clocks()
    offsets = ClockOffsets(clocks.monotonic, clocks.time, interval=0.1)
    assert offsets.probe() == {'type': CLOCK, 'sent': 100.0}
    clocks.now += 0.05
    assert offsets.probe() is None
    clocks.now += 0.05
    assert offsets.probe()['sent'] == pytest.approx(100.1)


def test_heartbeats_without_a_probe_or_with_one_of_no_sense_are_ignored():
    clocks = master_clocks()
    offsets = ClockOffsets(clocks.monotonic, clocks.time)
    offsets.heartbeat(protocol.heartbeat(1, []))
    for probe in ([500.0, 0.0],        # sent after now: not our clock
                  [99.0, 5.0]):        # held longer than the round trip
        beat = dict(protocol.heartbeat(1, []), clock_probe=probe)
        offsets.heartbeat(beat)
    assert offsets.records() == []


class ProbeWorld(RoutedControls):
    """A transport and a worker in one: answers each job at once and
    returns each probe in a heartbeat, its wall clock `ahead` s ahead."""

    admit = (3,)

    def __init__(self, clocks, ahead):
        self.clocks = clocks
        self.ahead = ahead
        self.inbox = collections.deque()
        self.probes = 0

    def send(self, data, timeout=None):
        records = protocol.unpack(data)
        results = []
        for record in records:
            if record.get('type') == CLOCK:
                self.probes += 1
                beat = protocol.heartbeat(3, [])
                beat['completed_at'] = self.clocks.time() + self.ahead
                beat['clock_probe'] = [record['sent'], 0.0]
                results.append(beat)
            else:
                results.append(protocol.result_ok(record, 3, 0.0, 0.0,
                                                  None, 0))
        self.inbox.append(protocol.pack(results))
        self.clocks.now += 0.06
        return True

    def recv(self, timeout=None):
        return self.inbox.popleft() if self.inbox else None


def test_probes_ride_on_job_messages_and_come_back_in_heartbeats():
    clocks = master_clocks()
    world = ProbeWorld(clocks, ahead=0.25)
    master = Master(world, 1, clock=clocks.monotonic)
    master.clocks = ClockOffsets(clocks.monotonic, clocks.time)
    jobs = [{'type': 'get_object', 'size_str': 's', 'container': 'c',
             'name': 'n%d' % n, 'noop': True} for n in range(10)]
    stats = master.run_jobs(jobs)
    assert stats.received == 10
    # One message a job, 60 ms apart: a probe in every other one.
    assert world.probes == 5
    (record,) = master.clocks.records()
    assert record['worker_id'] == 3 and record['samples'] == 5
    # All of the 60 ms on the way back: off by half of it.
    assert record['rtt'] == pytest.approx(0.06)
    assert record['offset'] == pytest.approx(0.25 - 0.03)


def test_without_clock_offsets_no_probe_goes_out():
    clocks = master_clocks()
    world = ProbeWorld(clocks, ahead=0.0)
    Master(world, 1, clock=clocks.monotonic).run_jobs(
        [{'type': 'get_object', 'size_str': 's', 'container': 'c',
          'name': 'n', 'noop': True}])
    assert world.probes == 0


def test_stored_offsets_are_judged_against_the_limit():
    records = [clockrecords.record(2, 0.004, 0.001, 9),
               clockrecords.record(1, -0.25, 0.002, 7),
               {'kind': clockrecords.CLOCK_RECORD, 'worker_id': 5,
                'offset': 'far', 'rtt': 0.1},
               {'kind': 'worker_health', 'worker_id': 1}]
    section = clockrecords.section(records)
    assert section['limit'] == 0.1
    assert [(w['worker_id'], w['over_limit']) for w in
            section['workers']] == [(1, True), (2, False)]
    assert section['warning'].startswith(
        'clock offset above 100 ms: worker 1 -0.250 s;')
    assert clockrecords.section(records[:1])['warning'] is None
    assert clockrecords.section(records[3:]) is None


def test_a_clock_that_steps_mid_run_starts_a_period_said_at_once():
    clocks = master_clocks()
    steps = []
    offsets = ClockOffsets(clocks.monotonic, clocks.time, interval=0,
                           on_step=lambda *args: steps.append(args))
    for ahead in (2.0, 2.0, 2.0004, 3602.0, 3602.0, 3601.9996):
        # Jitter within the round trips is no step; an hour is.
        round_trip(offsets, clocks, 0.01, 0.3, 0.02, ahead=ahead)
        clocks.now += 1.0
    assert len(steps) == 1
    worker_id, before, after, at = steps[0]
    assert (worker_id, before, after) == (
        1, pytest.approx(1.995, abs=1e-3), pytest.approx(3601.995, abs=1e-3))
    first, second = offsets.records()
    assert (first['period'], first['samples'], second['period'],
            second['samples']) == (0, 3, 1, 3)
    assert first['offset'] == pytest.approx(1.995, abs=1e-3)
    assert second['offset'] == pytest.approx(3601.995, abs=1e-3)
    # The steady-state watch puts results on the master's clock by the
    # offset in force now, the new period's.
    assert offsets.offset(1) == second['offset']
    # The worker's own times of each period's first and last estimates.
    assert first['last'] < first['first'] + 3 < second['first'] - 3590
    assert at == second['first']
    judged = clockrecords.workers(offsets.records())
    assert [s['offset'] for s in judged[0]['steps']] == [second['offset']]
    assert 'stepped +3600.000 s during the run' in clockrecords.warning(
        judged)


def test_a_step_back_is_a_period_too_and_a_small_one_is_none():
    clocks = master_clocks()
    steps = []
    offsets = ClockOffsets(clocks.monotonic, clocks.time, interval=0,
                           on_step=lambda *args: steps.append(args))
    for ahead in (0.0, 0.5, -600.0, -599.5):
        round_trip(offsets, clocks, 0.01, 0.3, 0.02, ahead=ahead)
        clocks.now += 1.0
    assert [round(after - before) for _, before, after, _ in steps] == [-600]
    assert len(offsets.records()) == 2


def test_a_step_is_a_warning_and_a_run_event(caplog):
    from ssbench.master.clockoffset import clock_stepped
    from ssbench.results import eventrecords
    events = []
    clock_stepped(lambda *args: events.append(args))(
        3, 0.002, 3600.002, 1795317000.0)
    assert events == [(eventrecords.CLOCK_STEPPED, 3,
                       'wall clock stepped +3600.000 s (offset +0.002 s -> '
                       '+3600.002 s, at 03:10:00 UTC on its clock)')]
    assert 'worker 3: wall clock stepped +3600.000 s' in caplog.text


def test_a_worker_s_offset_is_known_once_a_probe_came_back():
    # What the steady-state watch puts completion times on the master's
    # clock by (ssbench.suite.steadystate).
    clocks = master_clocks()
    offsets = ClockOffsets(clocks.monotonic, clocks.time, interval=0)
    assert offsets.offset(1) is None
    round_trip(offsets, clocks, 0.01, 0.3, 0.01, ahead=30 * 86400.0)
    assert offsets.offset(1) == pytest.approx(30 * 86400.0)
    assert offsets.offset(2) is None

"""The master's own health (ssbench.master.selfhealth) and its way
through Master.run_jobs' sinks."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.master.dispatch import Master
from ssbench.master.selfhealth import FLOOR, MasterHealth
from ssbench.results import healthrecords
from ssbench.wire.protocol import HEARTBEAT
from tests.clocks import FakeClock
from tests.unit.master.test_dispatch import FakeTransport, jobs


class FakeCpu(object):
    def __init__(self):
        self.seconds = 10.0

    def __call__(self):
        return self.seconds


def test_a_window_of_cpu_and_the_p99_of_long_turns():
    clock, cpu, waited = FakeClock(1000.0), FakeCpu(), FakeCpu()
    health = MasterHealth(clock, cpu, window=1.0, waited=waited, cores=2)
    for _ in range(197):
        health.turn(0.0001)
    for busy in (0.05, 0.03, 0.02):
        health.turn(busy)
    clock.advance(0.5)
    assert not health.due(clock.now)
    clock.advance(1.5)
    assert health.due(clock.now)
    cpu.seconds += 1.9
    waited.seconds += 0.25
    beat = health.sample(clock.now, 7)
    # 200 turns: rank 198 is whole, the mean of the 3rd and 2nd longest.
    assert beat == {'type': HEARTBEAT, 'worker_id': healthrecords.MASTER_ID,
                    'window': 2.0, 'cpu': pytest.approx(0.95),
                    'loop_lag': pytest.approx(0.025), 'waiting': 7,
                    'cores': 2,
                    'run_delay': 0.25}
    assert healthrecords.cause(healthrecords.record(beat)) == 'cpu'
    # The next window starts afresh; a loop that lagged waiting for a
    # CPU, its own CPU low, is a busy host's doing.
    health.turn(0.02)
    waited.seconds += 0.5
    clock.advance(1.0)
    beat = health.sample(clock.now, 0)
    assert (beat['cpu'], beat['loop_lag'], beat['window']) == (0.0, 0.02, 1.0)
    assert beat['run_delay'] == pytest.approx(0.5)
    assert healthrecords.cause(healthrecords.record(beat)) == 'host'


def test_without_schedstat_no_run_delay(tmpdir):
    from ssbench.procstats import run_delay
    assert run_delay(str(tmpdir.join('none'))) is None
    health = MasterHealth(FakeClock(1000.0), FakeCpu(), waited=lambda: None,
                          cores=4)
    beat = health.sample(health.monotonic() + 1, 0)
    assert 'run_delay' not in beat and beat['cores'] == 4


def test_a_p99_below_the_floor_is_the_longest_short_turn():
    health = MasterHealth(FakeClock(1000.0), FakeCpu(), waited=lambda: None)
    for n in range(1000):
        health.turn(FLOOR / 2 if n == 5 else FLOOR / 10)
    health.turn(0.5)         # one in 1001: not the p99
    assert health.sample(health.monotonic(), 0)['loop_lag'] == FLOOR / 2


def test_run_jobs_hands_the_masters_health_to_the_sinks():
    clock = FakeClock(1000.0)
    # Worker 1 is heard from but answers no job: the loop waits, turn
    # after turn, and the fake clock moves by each wait.
    transport = FakeTransport(respond=lambda job: [], clock=clock,
                              beating=(1,))
    master = Master(transport, 2, monotonic=clock, drain_seconds=1.0)
    beats = []

    class Beats(object):
        def heartbeat(self, record):
            beats.append(record)
            if record['worker_id'] == healthrecords.MASTER_ID:
                master.stop_requested = True
    master.run_jobs(jobs(4), [Beats()])
    mine = [b for b in beats if b['worker_id'] == healthrecords.MASTER_ID]
    assert mine and mine[0]['window'] >= 1.0
    assert healthrecords.record(mine[0])['worker_id'] == 'master'
    assert any(b['worker_id'] == 1 for b in beats)

"""ssbench.worker.health: the worker's health figures (injected clock and CPU
reader), and heartbeats that carry them."""
from __future__ import absolute_import, division, print_function


import pytest

from ssbench.results import healthrecords
from ssbench.wire import protocol
from ssbench.worker import health
from tests.clocks import FakeClock


def monitor():
    clock = FakeClock()
    cpu = FakeClock(5.0)
    return health.HealthMonitor(clock, cpu, tick=0.01), clock, cpu


def test_probes_on_time_have_no_lag_and_late_ones_count():
    mon, clock, cpu = monitor()
    for _ in range(97):
        clock.now += 0.01
        mon.probe()
    for _ in range(2):                  # two probes 50 ms late: the p99
        clock.now += 0.01 + 0.05
        mon.probe()
    clock.now += 0.01
    mon.probe()
    cpu.now += 0.25
    sample = mon.sample(waiting=3)
    assert sample['window'] == pytest.approx(1.1)
    assert sample['cpu'] == pytest.approx(0.25 / 1.1)
    assert sample['loop_lag'] == pytest.approx(0.05)
    assert sample['waiting'] == 3
    # A new window starts: nothing late since.
    clock.now += 0.005
    assert mon.sample(0)['loop_lag'] == 0.0


def test_a_stopped_process_shows_as_one_long_lag():
    mon, clock, cpu = monitor()
    clock.now += 2.5                    # SIGSTOP: no probe ran
    sample = mon.sample(0)
    assert sample['loop_lag'] == pytest.approx(2.49)
    assert sample['cpu'] == 0.0


def test_a_lag_across_a_heartbeat_counts_in_each_window_once():
    """Held off the CPU for 50 ms from just before a heartbeat: that
    window has the lag and the wait; the next, whose probes are on time,
    has neither (it used to get the whole lag again, without its wait:
    a stall of the worker's own on a busy host)."""
    clock = FakeClock()
    waited = FakeClock(0.0)
    mon = health.HealthMonitor(clock, FakeClock(5.0), tick=0.01,
                               waited=waited, host_ticks=lambda: None,
                               cores=2)
    clock.now += 0.06
    waited.now += 0.05
    first = mon.sample(0)       # the heartbeat runs before the probe
    assert first['loop_lag'] == pytest.approx(0.05)
    assert first['run_delay'] == pytest.approx(0.05)
    assert healthrecords.cause(first) == 'host'
    clock.now += 0.001
    mon.probe()
    for _ in range(99):
        clock.now += 0.01
        mon.probe()
    second = mon.sample(0)
    assert second['loop_lag'] <= 0.001
    assert healthrecords.cause(second) is None


def test_the_loop_lag_is_the_nearest_rank_p99_of_the_probes():
    mon, clock, _ = monitor()
    # 101 probes: rank 99.99, the 100th; 100 probes: rank 99 is whole,
    # the mean of the 99th and the 100th.
    for lags, p99 in (([0.001] * 100 + [1.0], 0.001),
                      ([0.001] * 99 + [1.0], (0.001 + 1.0) / 2),
                      ([0.2], 0.2)):
        mon.lags = list(lags)
        mon.expected = clock.now
        assert mon.sample(0)['loop_lag'] == p99


def test_worker_heartbeats_carry_the_health_keys():
    from ssbench.worker.mainloop import Worker

    class Transport(object):
        def __init__(self):
            self.sent = []

        def send_control(self, data, timeout=None):
            self.sent.append(protocol.unpack(data))
            return True

    transport = Transport()
    worker = Worker(7, transport)
    assert worker._heartbeat()
    record = transport.sent[-1][0]
    assert record['type'] == protocol.HEARTBEAT
    assert set(protocol.HEALTH_KEYS) <= set(record)
    assert healthrecords.record(record)['worker_id'] == 7


class Reader(object):
    """A figure the test sets; None: not known on this system."""

    def __init__(self, value=None):
        self.value = value

    def __call__(self):
        return self.value


def host_monitor(ticks=(1000, 4000), waited=2.0, load=None, cores=2):
    clock, cpu = FakeClock(), FakeClock()
    readers = Reader(ticks), Reader(waited), Reader(load)
    mon = health.HealthMonitor(clock, cpu, tick=0.01, host_ticks=readers[0],
                               waited=readers[1], load=readers[2],
                               cores=cores)
    return mon, clock, cpu, readers


def test_the_host_cpu_and_the_wait_for_a_cpu_of_a_window():
    mon, clock, cpu, (ticks, waited, _) = host_monitor()
    clock.now += 1.0
    cpu.now += 0.06
    ticks.value = (1000 + 150, 4000 + 200)      # 75% of all ticks busy
    waited.value = 2.0 + 0.03
    sample = mon.sample(0)
    assert sample['cores'] == 2
    assert sample['host_cpu'] == pytest.approx(1.5)     # cores busy
    assert sample['run_delay'] == pytest.approx(0.03)
    assert sample['cpu'] == pytest.approx(0.06)
    # The next window counts from this one.
    clock.now += 1.0
    ticks.value = (1150 + 20, 4200 + 200)
    assert mon.sample(0)['host_cpu'] == pytest.approx(0.2)


def test_without_proc_stat_the_load_average_stands_in():
    mon, clock, _, (_, waited, load) = host_monitor(ticks=None, waited=None,
                                                    load=None)
    load.value = 1.75
    clock.now += 1.0
    sample = mon.sample(0)
    assert sample['host_cpu'] == 1.75 and 'run_delay' not in sample


def test_a_system_that_tells_nothing_adds_no_host_keys():
    mon, clock, _, _ = host_monitor(ticks=None, waited=None, cores=0)
    clock.now += 1.0
    assert sorted(mon.sample(0)) == sorted(protocol.HEALTH_KEYS)

"""Is the client the bottleneck?  A worker's health, measured.

A worker measures, per heartbeat window: the CPU time of its process as
a share of one core, the event-loop lag (how late a timer that should
fire every TICK seconds fires: p99 of the window's probes) and the jobs
waiting for a free runner greenlet.  HealthMonitor.sample() adds these
keys to each heartbeat:

    window    seconds the figures cover
    cpu       process CPU seconds / window (1.0 = one core)
    loop_lag  p99 of the loop-lag probes of the window, seconds
    waiting   jobs waiting for a runner when the heartbeat left

The master stores them in the stats file, where the reports judge them
(ssbench.results.healthrecords).
"""
from __future__ import absolute_import, division, print_function

import math
import os

from ssbench.compat import monotonic

TICK = 0.01


def process_cpu():
    """CPU seconds (user + system) this process used so far."""
    times = os.times()
    return times[0] + times[1]


def p99(values):
    """The 99th percentile (nearest rank) of a non-empty list."""
    ordered = sorted(values)
    return ordered[max(0, int(math.ceil(0.99 * len(ordered))) - 1)]


class HealthMonitor(object):
    """The worker side: run() is the probing greenlet, sample() ends a
    window.  Clock and CPU reader are injectable for tests."""

    def __init__(self, clock=monotonic, cpu_time=process_cpu, tick=TICK):
        self.clock = clock
        self.cpu_time = cpu_time
        self.tick = tick
        self.lags = []
        self.expected = clock() + tick
        self._since = clock()
        self._cpu_since = cpu_time()

    def probe(self):
        """One timer firing: note how late it is, set the next one."""
        now = self.clock()
        self.lags.append(max(0.0, now - self.expected))
        self.expected = now + self.tick
        return self.expected - now

    def run(self):
        import gevent
        while True:
            gevent.sleep(max(0.0, self.expected - self.clock()))
            self.probe()

    def sample(self, waiting):
        """The health keys of the window ending now (see the module
        docstring); a probe overdue now counts as late as it is."""
        now = self.clock()
        cpu = self.cpu_time()
        lags = self.lags
        if now > self.expected:
            lags.append(now - self.expected)
        window = now - self._since
        sample = {'window': window,
                  'cpu': (cpu - self._cpu_since) / window if window > 0
                  else 0.0,
                  'loop_lag': p99(lags) if lags else 0.0,
                  'waiting': waiting}
        self.lags = []
        self._since = now
        self._cpu_since = cpu
        return sample

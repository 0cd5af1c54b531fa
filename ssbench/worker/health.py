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

and, where the system tells (protocol.HOST_KEYS), what tells a loop lag
of the client's own making from one the host imposes:

    host_cpu   CPU the whole host used / window, in cores (this process
               included), from /proc/stat; where there is none, the
               1-minute load average (processes wanting a CPU)
    cores      the host's CPU count
    run_delay  seconds this process's main thread was ready to run but
               waited for a CPU (Linux /proc/self/schedstat): others kept
               the CPUs busy

The master stores them in the stats file, where the reports judge them
(ssbench.results.healthrecords).
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import monotonic
from ssbench.measure.rank import percentile_of_sorted
from ssbench.procstats import (cpu_count, host_cpu_ticks, load_average,
                               process_cpu, run_delay)

TICK = 0.01


class HealthMonitor(object):
    """The worker side: run() is the probing greenlet, sample() ends a
    window.  Clock and the readers of CPU, host and CPU wait figures are
    injectable for tests (a reader returning None: not known here)."""

    def __init__(self, clock=monotonic, cpu_time=process_cpu, tick=TICK,
                 host_ticks=host_cpu_ticks, load=load_average,
                 waited=run_delay, cores=None):
        self.clock = clock
        self.cpu_time = cpu_time
        self.tick = tick
        self.host_ticks = host_ticks
        self.load = load
        self.waited = waited
        self.cores = cpu_count() if cores is None else cores
        self.lags = []
        self.expected = clock() + tick
        self._since = clock()
        self._cpu_since = cpu_time()
        self._host_since = host_ticks()
        self._waited_since = waited()

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
        docstring); a probe overdue now counts as late as it is here,
        and in the next window only for its lateness after now."""
        now = self.clock()
        cpu = self.cpu_time()
        lags = self.lags
        if now > self.expected:
            lags.append(now - self.expected)
            # Its wait for a CPU is this window's run_delay: counted again
            # in the next window, a stretch the host imposed would read
            # there as a stall of the worker's own.
            self.expected = now
        window = now - self._since
        sample = {'window': window,
                  'cpu': (cpu - self._cpu_since) / window if window > 0
                  else 0.0,
                  'loop_lag': (percentile_of_sorted(sorted(lags), 99)
                               if lags else 0.0),
                  'waiting': waiting}
        self.lags = []
        self._since = now
        self._cpu_since = cpu
        sample.update(self._host_sample(window))
        return sample

    def _host_sample(self, window):
        """The HOST_KEYS of the window ending now that this system
        tells."""
        out = {}
        ticks, since = self.host_ticks(), self._host_since
        self._host_since = ticks
        if self.cores:
            out['cores'] = self.cores
            if ticks is not None and since is not None:
                if ticks[1] > since[1]:
                    out['host_cpu'] = (self.cores * (ticks[0] - since[0]) /
                                       (ticks[1] - since[1]))
            else:
                load = self.load()
                if load is not None:
                    out['host_cpu'] = load
        waited, since = self.waited(), self._waited_since
        self._waited_since = waited
        if waited is not None and since is not None:
            out['run_delay'] = max(0.0, waited - since)
        return out

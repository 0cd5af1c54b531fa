"""The master's own health, sampled as a worker samples its own.

Every job and every result goes through the one master, so when it is at
its limit the run's rate is its limit.  Master.run_jobs notes each loop
turn here and, once per WINDOW seconds, hands the sample to its sinks
(ssbench.master.pipeline) as a heartbeat of worker
ssbench.results.healthrecords.MASTER_ID; the stats file, the
client-health table, the JSON and the warnings then treat it as they
treat a worker's (see healthrecords):

- cpu: the master process's CPU (all its threads) over the window, in
  cores;
- loop_lag: the p99 of the stretches the loop spent away from receiving,
  i.e. how long a result that arrived meanwhile waited to be taken;
- waiting: jobs generated but not yet taken by the socket;
- cores and run_delay (the seconds its loop's thread waited for a CPU),
  where this system tells them, so that a master lagging on a busy host
  is told apart from one at its own limit.

Only stretches of at least FLOOR seconds are kept (a busy master makes
a hundred thousand turns a second); when fewer than 1% of the turns were
that long the p99 is below FLOOR and the longest shorter one stands for
it.
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import monotonic
from ssbench.measure.rank import nearest_rank
from ssbench.procstats import cpu_count, process_cpu, run_delay
from ssbench.results.healthrecords import MASTER_ID
from ssbench.wire.protocol import HEARTBEAT

WINDOW = 1.0
FLOOR = 0.001


class MasterHealth(object):
    """turn() per loop turn, due() and sample() per window; clock and CPU
    reader injectable for tests."""

    def __init__(self, monotonic=monotonic, cpu_time=process_cpu,
                 window=WINDOW, waited=run_delay, cores=None):
        self.monotonic = monotonic
        self.cpu_time = cpu_time
        self.window = window
        self.waited = waited
        self.cores = cpu_count() if cores is None else cores
        self._since = monotonic()
        self._cpu_since = cpu_time()
        self._waited_since = waited()
        self._reset()

    def _reset(self):
        self.turns = 0
        self.long = []
        self.short_max = 0.0

    def turn(self, busy):
        """A loop turn spent `busy` seconds away from receiving."""
        self.turns += 1
        if busy >= FLOOR:
            self.long.append(busy)
        elif busy > self.short_max:
            self.short_max = busy

    def due(self, now):
        return now - self._since >= self.window

    def sample(self, now, waiting):
        """The heartbeat of the window ending at `now` (see the module
        docstring)."""
        window = now - self._since
        cpu = self.cpu_time()
        long_ = sorted(self.long, reverse=True)

        def at(position):
            # The turn at a (1-based) rank of all turns, longest last;
            # below the long ones, the longest short one stands for it.
            i = self.turns - position
            return long_[i] if i < len(long_) else self.short_max
        lag = self.short_max
        if self.turns:
            first, second, whole = nearest_rank(self.turns, 99)
            lag = (at(first) + at(second)) / 2 if whole else at(first)
        heartbeat = {
            'type': HEARTBEAT, 'worker_id': MASTER_ID, 'window': window,
            'cpu': (cpu - self._cpu_since) / window if window > 0 else 0.0,
            'loop_lag': lag, 'waiting': waiting}
        if self.cores:
            heartbeat['cores'] = self.cores
        waited, since = self.waited(), self._waited_since
        self._waited_since = waited
        if waited is not None and since is not None:
            heartbeat['run_delay'] = max(0.0, waited - since)
        self._since = now
        self._cpu_since = cpu
        self._reset()
        return heartbeat

"""Each worker's wall-clock offset to the master's, from round trips.

Now and then (at most every PROBE_INTERVAL) the master adds a CLOCK
record (protocol.clock_probe) carrying its monotonic clock to a message of
jobs; the worker that gets it returns it in its next heartbeat with how
long it held it (its own monotonic clock) and, as every heartbeat, its
wall clock at sending.  With t0 the master's clock at sending, t3 at
receipt, `held` the worker's hold and W its wall clock:

    round trip  rtt = (t3 - t0) - held
    offset      (W - held) - (master's wall clock at t0 + rtt / 2)

as NTP does; the estimate kept per worker is that of the probe with the
shortest round trip (the one queues delayed least), known to within
rtt / 2.  Every time is read on one host's clock; the master's wall clock
at t0 is its wall clock at t3 less (t3 - t0) on its monotonic clock.
"""
from __future__ import absolute_import, division, print_function

import time

from ssbench.compat import monotonic
from ssbench.results import clockrecords
from ssbench.wire import protocol

PROBE_INTERVAL = 0.1


class ClockOffsets(object):
    """Probes to send and, per worker, the best estimate so far."""

    def __init__(self, clock=monotonic, wall=time.time,
                 interval=PROBE_INTERVAL):
        self.clock = clock
        self.wall = wall
        self.interval = interval
        self.best = {}          # worker id -> (rtt, offset)
        self.samples = {}       # worker id -> probes returned
        self._next = None

    def probe(self):
        """A CLOCK record to send with the next message, or None when one
        went out less than `interval` ago."""
        now = self.clock()
        if self._next is not None and now < self._next:
            return None
        self._next = now + self.interval
        return protocol.clock_probe(now)

    def heartbeat(self, record):
        """Take in a heartbeat (checked by messagecheck); one with a
        clock_probe gives an estimate."""
        probe = record.get('clock_probe')
        if probe is None:
            return
        now, wall = self.clock(), self.wall()
        sent, held = probe
        rtt = (now - sent) - held
        if sent > now or rtt < 0:
            return              # not a probe of this master's clock
        worker_id = record.get('worker_id')
        offset = (record['completed_at'] - held) - (
            wall - (now - sent) + rtt / 2.0)
        self.samples[worker_id] = self.samples.get(worker_id, 0) + 1
        best = self.best.get(worker_id)
        if best is None or rtt < best[0]:
            self.best[worker_id] = (rtt, offset)

    def offset(self, worker_id):
        """The worker's offset as best estimated so far (seconds its wall
        clock is ahead of the master's), or None before any probe came
        back from it."""
        best = self.best.get(worker_id)
        return None if best is None else best[1]

    def records(self):
        """One control record per worker heard from (see
        ssbench.results.clockrecords)."""
        return [clockrecords.record(worker_id, offset, rtt,
                                    self.samples[worker_id])
                for worker_id, (rtt, offset) in sorted(
                    self.best.items(), key=lambda item: str(item[0]))]

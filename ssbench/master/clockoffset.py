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

A worker's wall clock may step during a run (an NTP step, a VM resumed):
every result it stamps from then on moves by the step.  An estimate is
an interval, offset +- rtt / 2; one that lies more than STEP seconds
beyond the interval of the estimate in force cannot be the same offset,
so it starts a new *period* of that worker's clock (said at once by
`on_step`: a warning and a run event).  records() gives one record per
period, each with the worker's wall-clock times of its first and last
estimates, so that the reports put each result on the master's clock by
the offset in force when it was taken (ssbench.results.clockrecords).
"""
from __future__ import absolute_import, division, print_function

import logging
import time

from ssbench.compat import monotonic
from ssbench.results import clockrecords, eventrecords
from ssbench.wire import protocol

log = logging.getLogger(__name__)

PROBE_INTERVAL = 0.1
#: The least step of a worker's clock said and corrected (seconds beyond
#: the two estimates' error): far above an NTP slew (microseconds a
#: second) and a probe's error (half its round trip, milliseconds).
STEP = 1.0


class ClockOffsets(object):
    """Probes to send and, per worker, the best estimate so far."""

    def __init__(self, monotonic=monotonic, wall_clock=time.time,
                 interval=PROBE_INTERVAL, on_step=None):
        self.monotonic = monotonic
        self.wall_clock = wall_clock
        self.interval = interval
        #: on_step(worker_id, offset before, offset after, the worker's
        #: wall clock then) when a worker's clock stepped.
        self.on_step = on_step
        # worker id -> its periods, each [rtt, offset, samples, the
        # worker's wall clock at its first and at its last estimate]
        self.periods = {}
        self._next = None

    def probe(self):
        """A CLOCK record to send with the next message, or None when one
        went out less than `interval` ago."""
        now = self.monotonic()
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
        now, wall = self.monotonic(), self.wall_clock()
        sent, held = probe
        rtt = (now - sent) - held
        if sent > now or rtt < 0:
            return              # not a probe of this master's clock
        worker_id = record.get('worker_id')
        at = record['completed_at']
        offset = (at - held) - (wall - (now - sent) + rtt / 2.0)
        periods = self.periods.setdefault(worker_id, [])
        if periods:
            current = periods[-1]
            if abs(offset - current[1]) <= (rtt + current[0]) / 2.0 + STEP:
                current[2] += 1
                current[4] = at
                if rtt < current[0]:
                    current[0], current[1] = rtt, offset
                return
            if self.on_step is not None:
                self.on_step(worker_id, current[1], offset, at)
        periods.append([rtt, offset, 1, at, at])

    def offset(self, worker_id):
        """The worker's offset as best estimated so far (seconds its wall
        clock is ahead of the master's) in its current period, or None
        before any probe came back from it."""
        periods = self.periods.get(worker_id)
        return periods[-1][1] if periods else None

    def records(self):
        """The control records (ssbench.results.clockrecords) of every
        worker heard from: one, or one per period of a clock that
        stepped."""
        out = []
        for worker_id in sorted(self.periods, key=str):
            periods = self.periods[worker_id]
            for index, (rtt, offset, samples, first, last) in enumerate(
                    periods):
                rec = clockrecords.record(worker_id, offset, rtt, samples)
                if len(periods) > 1:
                    rec.update(period=index, first=first, last=last)
                out.append(rec)
        return out


def clock_stepped(events):
    """An on_step for ClockOffsets: a warning line, and a run event into
    `events` (a ssbench.master.runevents.RunEvents: kept in the stats
    file during the benchmark)."""
    def on_step(worker_id, before, after, at):
        text = ('wall clock stepped %+.3f s (offset %+.3f s -> %+.3f s, '
                'at %s UTC on its clock)' % (
                    after - before, before, after, time.strftime(
                        '%H:%M:%S', time.gmtime(at))))
        log.warning('worker %s: %s; the reports put each of its results '
                    'on the master\'s clock by the offset in force when it '
                    'was taken', worker_id, text)
        events(eventrecords.CLOCK_STEPPED, worker_id, text)
    return on_step

"""The open-loop schedule of --rate runs: when each job should start.

Jobs are due at `rate` per second in total, either evenly spaced
(uniform) or as a Poisson process (exponential gaps, from an injected
`random.Random`).  The master asks take(now, room) for the jobs due by
`now` that fit `room` (user_count less the jobs in flight); a job that
finds the cap full stays due at its intended time, so the time it waits
counts in its response time (no coordinated omission), and it is counted
in `cap_waits`.  With a `window` (SEND_WINDOW in real runs), take() hands
out nothing before the oldest job due has waited that long, so that jobs
go out together: at 20,000 jobs/s a message per job would cost the master
more than the rest of its work.  sent() records how late each job went
out (the send lag) in a LagHistogram.  Times are those of an injected
monotonic clock; epoch() turns them into the epoch seconds stored in
results.
"""
from __future__ import absolute_import, division, print_function

import math
from bisect import bisect_right

UNIFORM = 'uniform'
POISSON = 'poisson'
ARRIVALS = (UNIFORM, POISSON)
# The `kind` of the control record a --rate run stores at its end.
SCHEDULE_RECORD = 'schedule'

# Seconds a due job may wait for others to go out in the same message.
SEND_WINDOW = 0.001
# Send-lag histogram: 0.1 ms buckets up to LAG_LIMIT seconds; later lags
# share the last bucket (their exact maximum is kept).
LAG_RESOLUTION = 1e-4
LAG_LIMIT = 60.0
_LAST_BUCKET = int(LAG_LIMIT / LAG_RESOLUTION)


class LagHistogram(object):
    """Counts of lags (seconds) in LAG_RESOLUTION buckets, and the max."""

    def __init__(self):
        self.counts = {}
        self.count = 0
        self.total = 0.0
        self.max = 0.0

    def add(self, lag):
        lag = max(0.0, lag)
        bucket = int(min(lag, LAG_LIMIT) / LAG_RESOLUTION)
        self.counts[bucket] = self.counts.get(bucket, 0) + 1
        self.count += 1
        self.total += lag
        if lag > self.max:
            self.max = lag

    def percentile(self, pctile):
        """The upper edge of the bucket holding the `pctile`-th
        percentile (never above the max), or None when empty."""
        if not self.count:
            return None
        rank = max(1, int(math.ceil(self.count * pctile / 100.0)))
        seen = 0
        for bucket in sorted(self.counts):
            seen += self.counts[bucket]
            if seen >= rank:
                break
        if bucket >= _LAST_BUCKET:
            return self.max
        return min(self.max, (bucket + 1) * LAG_RESOLUTION)

    def summary(self, pctiles=(50, 90, 99, 99.9)):
        """A map of plain numbers: count, mean, max and p<N> (seconds)."""
        out = {'count': self.count, 'max': self.max,
               'mean': self.total / self.count if self.count else None}
        for pctile in pctiles:
            out['p%s' % (pctile,)] = self.percentile(pctile)
        return out


class Schedule(object):
    """Intended start times at `rate` jobs per second from `start` (a
    clock time); `epoch_offset` turns clock times into epoch seconds."""

    def __init__(self, rate, arrival=UNIFORM, rng=None, start=0.0,
                 epoch_offset=0.0, window=0.0):
        if not rate > 0:
            raise ValueError('rate must be > 0')
        if arrival not in ARRIVALS:
            raise ValueError('arrival must be one of %s' % (ARRIVALS,))
        if arrival == POISSON and rng is None:
            raise ValueError('Poisson arrivals need an rng')
        self.rate = float(rate)
        self.arrival = arrival
        self.rng = rng
        self.epoch_offset = epoch_offset
        self.window = window
        self.lag = LagHistogram()
        self.taken = 0          # jobs handed out
        self.cap_waits = 0      # jobs taken that were due while it was full
        # The latest intended time found due while the cap was full:
        # jobs up to it, once taken, count as cap waits.
        self._capped_until = float('-inf')
        # Since when the cap has been full (None: it has room).
        self._full_since = None
        self._last = ([], None, None)   # the last take() and its state
        self._due = []          # intended times drawn but not taken
        self._drawn = 0         # intended times drawn so far
        self._start = start
        self._next = start      # Poisson: the next time to draw

    def _draw(self):
        """Draw the intended time of the next job; returns it."""
        if self.arrival == UNIFORM:
            # start + n / rate: no float drift from summing gaps.
            when = self._start + self._drawn / self.rate
        else:
            when = self._next
            self._next += self.rng.expovariate(self.rate)
        self._drawn += 1
        self._due.append(when)
        return when

    def next_due(self):
        """The intended time of the next job."""
        return self._due[0] if self._due else self._draw()

    def next_send(self):
        """When take() hands out the next job, room allowing: its
        intended time plus the window."""
        return self.next_due() + self.window

    def take(self, now, room):
        """Intended times of the jobs due by `now`, at most `room` of
        them, oldest first; those left over wait for room (cap_waits)."""
        due = self._due
        while not due or due[-1] <= now:
            if self._draw() > now:
                break
        ready = 0
        for when in due:
            if when > now:
                break
            ready += 1
        room = max(0, room)
        count = min(ready, room)
        if count and due[0] + self.window > now:
            return []
        taken = due[:count]
        self.cap_waits += self._waited(taken)
        self._last = (taken, self._capped_until, self._full_since)
        if ready > count and due[ready - 1] > self._capped_until:
            self._capped_until = due[ready - 1]
        if count < room:
            self._full_since = None
        elif self._full_since is None or count:
            self._full_since = now
        del due[:count]
        self.taken += count
        return taken

    def _waited(self, taken, capped_until=None, full_since=None):
        """How many of `taken` waited for room: found due while the cap
        was full at an earlier call, or due after the cap filled up."""
        if not taken:
            return 0
        if capped_until is None:
            capped_until, full_since = self._capped_until, self._full_since
        waited = bisect_right(taken, capped_until)
        if full_since is not None:
            waited = max(waited, len(taken) - bisect_right(taken,
                                                           full_since))
        return waited

    def unused(self, count):
        """Give back the last `count` times of the last take(): the jobs
        ran out before them."""
        if count <= 0:
            return
        taken, capped_until, full_since = self._last
        self.cap_waits -= (self._waited(taken, capped_until, full_since) -
                           self._waited(taken[:len(taken) - count],
                                        capped_until, full_since))
        self.taken -= count

    def epoch(self, when):
        """Epoch seconds of clock time `when`."""
        return when + self.epoch_offset

    def sent(self, jobs, now):
        """Record the send lag of `jobs` (their `intended_start`, epoch
        seconds) sent at clock time `now`."""
        add = self.lag.add
        now = now + self.epoch_offset
        for job in jobs:
            add(now - job['intended_start'])

    def summary(self):
        """What the schedule did, as plain numbers (for a control
        record): rate, arrival, jobs sent, cap waits and the send lag."""
        return {'rate': self.rate, 'arrival': self.arrival,
                'sent': self.lag.count, 'cap_waits': self.cap_waits,
                'send_lag': self.lag.summary()}

    def record(self):
        """summary() as a stats-file control record (SPEC section 4: a
        map without `completed_at`, its kind under `kind`)."""
        record = self.summary()
        record['kind'] = SCHEDULE_RECORD
        return record

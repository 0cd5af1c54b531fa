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
more than the rest of its work.  stamp() and sent() record how late each
job went out (the send lag) in a Tally.  Times are those of an
injected monotonic clock; epoch() turns them into the epoch seconds
stored in results.

Intended times are made when taken, never ahead: the schedule holds a
cursor (the next job's time) and at most the few times unused() gave
back, so its memory and the cost of a take() do not depend on the rate,
the run's length or how many jobs wait for room.  A timed run
(`duration`) ends at its deadline: close() then counts the jobs that were
due but not sent, arithmetically, with how long each had waited by then
(a Tally); intended = sent + unsent.
"""
from __future__ import absolute_import, division, print_function

import math
from bisect import bisect_right

from ssbench.measure.loghist import LogHist
from ssbench.measure.rank import percentile_name

UNIFORM = 'uniform'
POISSON = 'poisson'
ARRIVALS = (UNIFORM, POISSON)
# The `kind` of the control record a --rate run stores at its end.
SCHEDULE_RECORD = 'schedule'

# Seconds a due job may wait for others to go out in the same message.
SEND_WINDOW = 0.001
# A Poisson backlog is counted draw by draw up to this many jobs; the
# rest of it (a rate near the flag's bound over a long run) is drawn as
# one count, from the normal approximation of its Poisson law.
POISSON_DRAWS = 100000
# Summaries give these percentiles.
PCTILES = (50, 90, 99, 99.9)


class Tally(object):
    """Seconds (a negative value counts as zero): their count, total,
    exact max and the one log histogram (ssbench.measure.loghist), so
    percentiles within loghist.RELATIVE_ERROR in memory that does not
    grow with the count."""

    def __init__(self):
        self.hist = LogHist()
        self.count = 0
        self.total = 0.0

    @property
    def max(self):
        """The largest value counted (0.0 before any)."""
        return 0.0 if self.hist.max is None else self.hist.max

    def add(self, value, count=1):
        """Count `value` `count` times."""
        self.hist.count(value, count)
        self.count += count
        if value > 0:
            self.total += value * count

    def add_even(self, high, step, count):
        """Count the `count` values high, high - step, ... (all >= 0)
        bin by bin, not one by one."""
        if count <= 0:
            return
        self.hist.count_even(high, step, count)
        self.count += count
        low = max(0.0, high - (count - 1) * step)
        self.total += count * (max(0.0, high) + low) / 2.0

    def percentile(self, pctile):
        """The nearest-rank percentile (never above the max), or None
        when empty."""
        return self.hist.percentiles((pctile,))[0]

    def summary(self, pctiles=PCTILES):
        """A map of plain numbers: count, mean, max and p<N> (seconds)."""
        out = {'count': self.count, 'max': self.max,
               'mean': self.total / self.count if self.count else None}
        for pctile, value in zip(pctiles, self.hist.percentiles(pctiles)):
            out[percentile_name(pctile)] = value
        return out


class Schedule(object):
    """Intended start times at `rate` jobs per second from `start` (a
    clock time); `epoch_offset` turns clock times into epoch seconds.
    With `duration` (seconds), jobs are due only before start +
    duration, the deadline of a timed run."""

    def __init__(self, rate, arrival=UNIFORM, rng=None, start=0.0,
                 epoch_offset=0.0, window=0.0, duration=None):
        if not rate > 0:
            raise ValueError('rate must be > 0')
        if arrival not in ARRIVALS:
            raise ValueError('arrival must be one of %s' % (ARRIVALS,))
        if arrival == POISSON and rng is None:
            raise ValueError('Poisson arrivals need an rng')
        if duration is not None and not duration > 0:
            raise ValueError('duration must be > 0')
        self.rate = float(rate)
        self.arrival = arrival
        self.rng = rng
        self.epoch_offset = epoch_offset
        self.window = window
        self.deadline = None if duration is None else start + duration
        self.lag = Tally()
        self.unsent = Tally()   # due, never sent: wait by the end
        self.taken = 0          # jobs handed out
        self.cap_waits = 0      # jobs taken that were due while it was full
        self.closed_at = None   # clock time of close()
        # The latest time at which jobs were found due while the cap was
        # full: jobs intended up to it, once taken, count as cap waits.
        self._capped_until = float('-inf')
        # Since when the cap has been full (None: it has room).
        self._full_since = None
        self._last = ([], None, None)   # the last take() and its state
        self._held = []         # times unused() gave back, oldest first
        self._start = start
        self._index = 0         # uniform: the next job's number
        # Uniform: jobs numbered below this are due before the deadline.
        self._limit = None if duration is None else \
            self._count_before(self.deadline, strict=True)
        self._next = start      # Poisson: the next job's time

    def _count_before(self, when, strict=False):
        """Uniform: how many jobs are due at or before `when` (before it,
        if `strict`), the very times take() hands out."""
        if when < self._start:
            return 0
        count = int(math.floor((when - self._start) * self.rate)) + 1
        start, rate = self._start, self.rate
        # Float rounding: agree with start + n / rate, the times made.
        while start + count / rate < when or (
                not strict and start + count / rate == when):
            count += 1
        while count and (start + (count - 1) / rate > when or (
                strict and start + (count - 1) / rate == when)):
            count -= 1
        return count

    def next_due(self):
        """The intended time of the next job."""
        if self._held:
            return self._held[0]
        if self.arrival == UNIFORM:
            # start + n / rate: no float drift from summing gaps.
            return self._start + self._index / self.rate
        return self._next

    def next_send(self):
        """When take() hands out the next job, room allowing: its
        intended time plus the window (for a timed run, at the latest
        the deadline, when the run ends)."""
        when = self.next_due() + self.window
        if self.deadline is not None and when > self.deadline:
            return self.deadline
        return when

    def over(self, now):
        """True once a timed run's deadline has come."""
        return self.deadline is not None and now >= self.deadline

    def _due_by(self, now):
        """True when the next job is due by `now` (and before any
        deadline)."""
        when = self.next_due()
        return when <= now and (self.deadline is None or
                                when < self.deadline)

    def take(self, now, room):
        """Intended times of the jobs due by `now`, at most `room` of
        them, oldest first; those left over wait for room (cap_waits).
        Nothing once a timed run's deadline has come."""
        if self.over(now):
            return []
        room = max(0, room)
        due = self._due_by(now)
        if room and due and self.next_due() + self.window > now:
            return []
        taken = self._take(now, room) if room and due else []
        count = len(taken)
        self.cap_waits += self._waited(taken)
        self._last = (taken, self._capped_until, self._full_since)
        if count == room and self._due_by(now):
            # Jobs are left due while the cap is full.
            self._capped_until = max(self._capped_until, now)
        if count < room:
            self._full_since = None
        elif self._full_since is None or count:
            self._full_since = now
        self.taken += count
        return taken

    def _take(self, now, room):
        """Up to `room` times due by `now`, made as they are taken."""
        taken = []
        held = self._held
        while held and len(taken) < room and held[0] <= now:
            taken.append(held.pop(0))
        room -= len(taken)
        if not room or held:
            return taken
        if self.arrival == UNIFORM:
            due = self._count_before(now)
            if self._limit is not None:
                due = min(due, self._limit)
            index = self._index
            count = max(0, min(room, due - index))
            start, rate = self._start, self.rate
            taken.extend(start + n / rate
                         for n in range(index, index + count))
            self._index = index + count
            return taken
        expovariate, rate = self.rng.expovariate, self.rate
        when = self._next
        deadline = self.deadline
        while room and when <= now and (deadline is None or
                                        when < deadline):
            taken.append(when)
            when += expovariate(rate)
            room -= 1
        self._next = when
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
        kept = taken[:len(taken) - count]
        self.cap_waits -= (self._waited(taken, capped_until, full_since) -
                           self._waited(kept, capped_until, full_since))
        self.taken -= count
        self._held[:0] = taken[len(kept):]

    def close(self, now, dropped=()):
        """End the schedule at clock time `now` (a timed run: at the
        latest its deadline).  For a timed run, every job due by then and
        not sent is counted in `unsent` with how long it had waited:
        those never taken, and `dropped`, the intended times of jobs
        taken but never sent.  Only the first call counts."""
        if self.closed_at is not None:
            return
        end = now if self.deadline is None else min(now, self.deadline)
        self.closed_at = end
        if self.deadline is None:
            return
        unsent = self.unsent
        for when in dropped:
            unsent.add(end - when)
        for when in self._held:
            if when <= end:
                unsent.add(end - when)
        del self._held[:]
        if self.arrival == UNIFORM:
            due = min(self._count_before(end), self._limit)
            count = due - self._index
            unsent.add_even(end - self.next_due(), 1 / self.rate, count)
            self._index += max(0, count)
            return
        when, rate = self._next, self.rate
        expovariate = self.rng.expovariate
        for _ in range(POISSON_DRAWS):
            if when >= end:
                break
            unsent.add(end - when)
            when += expovariate(rate)
        else:
            if when < end:
                mean = rate * (end - when)
                count = max(0, int(round(self.rng.gauss(
                    mean, math.sqrt(mean)))))
                if count:
                    unsent.add_even(end - when, (end - when) / count,
                                    count)
        self._next = when

    def epoch(self, when):
        """Epoch seconds of clock time `when`."""
        return when + self.epoch_offset

    def stamp(self, jobs, now):
        """Set each job's `send_lag`: how late it goes out at clock time
        `now`, from its `intended_start` (epoch seconds of this clock)."""
        now = now + self.epoch_offset
        for job in jobs:
            job['send_lag'] = max(0.0, now - job['intended_start'])

    def sent(self, jobs):
        """Record the send lag of `jobs` (stamped) once they went out."""
        add = self.lag.add
        for job in jobs:
            add(job['send_lag'])

    def summary(self):
        """What the schedule did, as plain numbers (for a control
        record): rate, arrival, jobs sent, cap waits and the send lag;
        for a closed schedule also the jobs intended (sent + unsent),
        the seconds it ran and the intended and achieved rates; for a
        timed run the jobs due but not sent and their waits."""
        sent = self.lag.count
        out = {'rate': self.rate, 'arrival': self.arrival, 'sent': sent,
               'cap_waits': self.cap_waits, 'send_lag': self.lag.summary()}
        if self.closed_at is None:
            return out
        seconds = self.closed_at - self._start
        intended = sent + self.unsent.count
        out.update({
            'intended': intended, 'seconds': seconds,
            'intended_rate': (intended / seconds if self.deadline
                              is not None and seconds > 0 else self.rate),
            'achieved_rate': sent / seconds if seconds > 0 else None})
        if self.deadline is not None:
            out['unsent'] = self.unsent.count
            out['unsent_wait'] = self.unsent.summary()
        return out

    def record(self):
        """summary() as a stats-file control record (docs/internals.rst,
        "Records": a map without `completed_at`, its kind under `kind`)."""
        record = self.summary()
        record['kind'] = SCHEDULE_RECORD
        return record

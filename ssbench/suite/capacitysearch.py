"""--find-max-rate: the highest open-loop rate that still meets the
objectives (--slo), found in a bounded number of steps.

The search offers START jobs per second, then rises by FACTOR while each
step meets the objectives; once one misses (or the first one did, then
it falls by FACTOR until one meets), it bisects between the highest rate
that met and the lowest that missed until they are within RESOLUTION of
each other.  At most MAX_STEPS steps are run, whatever happens.

A rate is met only if the step carried it: it sent at least 1 - SHORTFALL
of the jobs due (the schedule's accounting: a job due by the end of -r
and never sent counts against it), whatever its objectives say, since a
job never sent has no latency for them to judge.  Why a step fell short
decides what it says, by the client's health (ssbench.results
.healthrecords):

- saturated (a worker or the master at its own limit): the step is run
  once more at the same rate, and saturated again, the search ends, short
  or not: what it found is the client's limit, not the cluster's.  Once
  is not enough: a step of a few seconds is judged saturated by one
  window in which a busy host stalled the client's loop;
- host busy (the client's processes waited for a CPU others kept),
  short, and the objectives held: the search ends the same way: the
  client host could not offer the rate, which says nothing about the
  cluster; going on would bisect towards the host's limit and call it
  the cluster's.  A cluster that cannot keep up makes jobs wait for a
  free -u slot, and that wait is in their response times, so the
  objectives miss too: a busy host's step that is short and missed them
  (the end-to-end search has such steps past the fake's capacity) is a
  miss, as below;
- otherwise short: the cluster (or -u) did not take the rate, a miss.

A busy host that still sent its jobs goes on counting (its latencies
include the waits for its CPU, which the caller says).

A step with too few results to judge a percentile objective (the p99 of
5 results is their maximum: ssbench.report.compute.tailsize says how
many each needs) is neither met nor missed: the search rises from it as
from a met rate (a higher rate gives more results in the same -r), and
bisects between it and the lowest rate that missed as between a met one
and a missed one; but it is never the answer.  A search whose highest
rates below the lowest missed one all had too few results ends with
'too few': no rate met, however long it ran; a longer -r would judge
them.

CapacitySearch is pure: it says which rate to run next and takes each
step's outcome; the suite runs the steps.
"""
from __future__ import absolute_import, division, print_function

import collections

FACTOR = 2.0
RESOLUTION = 0.05
MAX_STEPS = 16
# The share of the jobs due a step may leave unsent and still have
# carried its rate.  Healthy steps send every job due (all those of the
# end-to-end search, on both interpreters, on a busy host, busy steps
# included); what one can lose is the jobs due while the master's loop
# is held up at the very end of -r: 5% is 0.2 s of the shortest step the
# tests run (4 s), twenty times the master's own loop-lag limit.  It is
# also the default resolution: a shortfall below it could move the
# answer by no more than the search's own precision.
SHORTFALL = 0.05

Outcome = collections.namedtuple(
    'Outcome', 'rate met achieved limited offered short too_few')


def fell_short(achieved, offered, shortfall=SHORTFALL):
    """Whether a step that sent `achieved` of the `offered` jobs/s due
    did not carry that rate (False when either is unknown)."""
    if achieved is None or not offered:
        return False
    return achieved < (1 - shortfall) * offered


class CapacitySearch(object):
    """The state of one search; next_rate() and record() in turn."""

    def __init__(self, start, resolution=RESOLUTION, factor=FACTOR,
                 max_steps=MAX_STEPS, ceiling=None):
        if not start > 0 or not 0 < resolution < 1 or not factor > 1:
            raise ValueError('a search needs a start above 0, a '
                             'resolution in (0, 1) and a factor above 1')
        self.start = start
        self.resolution = resolution
        self.factor = factor
        self.max_steps = max_steps
        self.ceiling = ceiling
        self.outcomes = []
        self.highest_met = None
        self.lowest_missed = None
        self.highest_too_few = None
        self.client_step = None     # the Outcome that ended it so

    def next_rate(self):
        """The rate of the next step, or None when the search is over."""
        if self.done():
            return None
        if not self.outcomes:
            return self._capped(self.start)
        if self.outcomes[-1].limited:
            return self.outcomes[-1].rate       # once more (record())
        lower = self._lower()
        if self.lowest_missed is None:
            return self._capped(lower * self.factor)
        if lower is None:
            return self.lowest_missed / self.factor
        return (lower + self.lowest_missed) / 2

    def _lower(self):
        """The highest rate that met or had too few results, or None."""
        rates = [rate for rate in (self.highest_met, self.highest_too_few)
                 if rate is not None]
        return max(rates) if rates else None

    def _capped(self, rate):
        return rate if self.ceiling is None else min(rate, self.ceiling)

    def record(self, rate, met, achieved=None, limited=False,
               offered=None, busy=False, too_few=False):
        """Take the outcome of the step at `rate`: whether it met the
        objectives (or, `too_few`, had too few results to judge them and
        missed none), the jobs/s it sent (`achieved`) of those due
        (`offered`, `rate` if None), whether the client was its limit
        (saturated: the first time in a row at a rate, the step is
        neither met nor missed and next_rate() runs that rate again) and
        whether its host was busy (see the module docstring); the
        Outcome."""
        offered = rate if offered is None else offered
        short = fell_short(achieved, offered)
        too_few = too_few and not short
        outcome = Outcome(rate, met and not short and not too_few,
                          achieved, limited, offered, short, too_few)
        first = not (self.outcomes and self.outcomes[-1].limited and
                     self.outcomes[-1].rate == rate)
        self.outcomes.append(outcome)
        if limited and first:
            return outcome
        if limited or (busy and short and (met or too_few)):
            self.client_step = outcome
        elif too_few:
            if self.highest_too_few is None or rate > self.highest_too_few:
                self.highest_too_few = rate
        elif outcome.met:
            if self.highest_met is None or rate > self.highest_met:
                self.highest_met = rate
        elif self.lowest_missed is None or rate < self.lowest_missed:
            self.lowest_missed = rate
        return outcome

    @property
    def client_limit(self):
        """The jobs/s the client sent in the step that ended the search
        as its limit (the step's rate when that is unknown), else None."""
        step = self.client_step
        if step is None:
            return None
        return step.achieved if step.achieved is not None else step.rate

    def done(self):
        """Whether the search is over (see why())."""
        return self.why() is not None

    def why(self):
        """Why the search is over, or None while it goes on."""
        if self.client_step is not None:
            return 'client'
        lower = self._lower()
        judged = self.highest_met is not None and \
            self.highest_met == lower
        if lower is not None and self.lowest_missed is not None and \
                self.lowest_missed - lower <= self.resolution * lower:
            return 'resolved' if judged else 'too few'
        if self.lowest_missed is None and self.ceiling is not None and \
                lower is not None and lower >= self.ceiling:
            return 'ceiling' if judged else 'too few'
        if len(self.outcomes) >= self.max_steps:
            return 'steps'
        return None

    def summary(self):
        """The one line the search ends with."""
        why = self.why()
        if why == 'client':
            step = self.client_step
            if not step.limited:
                return ('the client host could not offer %s req/s: it was '
                        'busy (other processes kept its CPU) and %s; give '
                        'the master and workers cores or hosts of their '
                        'own' % (_rate(step.rate), shortfall(step)))
            return ("the client's limit, not the cluster's: %s req/s; add "
                    "workers or hosts" % (_rate(self.client_limit),))
        met = 'none' if self.highest_met is None else \
            '%s req/s' % (_rate(self.highest_met),)
        missed = 'none' if self.lowest_missed is None else \
            '%s req/s' % (_rate(self.lowest_missed),)
        short = [o for o in self.outcomes
                 if o.short and o.rate == self.lowest_missed]
        if short:
            missed += ' (%s)' % (shortfall(short[-1]),)
        line = ('highest rate that met the objectives: %s; lowest that '
                'missed them: %s' % (met, missed))
        if self.highest_too_few is not None:
            line += ('; steps at up to %s req/s had too few results to '
                     'judge (a longer -r has more)' % (
                         _rate(self.highest_too_few),))
        if why == 'ceiling':
            line += ' (the search stopped at its ceiling)'
        elif why == 'steps':
            line += ' (the search stopped after %s, before its ' \
                'resolution of %g%%)' % (steps_text(self.max_steps),
                                         self.resolution * 100)
        return line


def steps_text(count):
    """'1 step', '3 steps'."""
    return '%d step%s' % (count, '' if count == 1 else 's')


def shortfall(outcome):
    """A step's shortfall in words: 'achieved 1100 of 1938 req/s
    offered'."""
    return 'achieved %s of %s req/s offered' % (
        _rate(outcome.achieved), _rate(outcome.offered))


def _rate(value):
    return '%.0f' % (value,) if value >= 100 else '%.3g' % (value,)

"""--find-max-rate: the highest open-loop rate that still meets the
objectives (--slo), found in a bounded number of steps.

The search offers START jobs per second, then rises by FACTOR while each
step meets the objectives; once one misses (or the first one did, then
it falls by FACTOR until one meets), it bisects between the highest rate
that met and the lowest that missed until they are within RESOLUTION of
each other.  A step whose client was the limit (the health verdicts of
ssbench.master.selfhealth) ends the search at once: what it found is the
client's limit, not the cluster's.  At most MAX_STEPS steps are run,
whatever happens.

CapacitySearch is pure: it says which rate to run next and takes each
step's outcome; the suite runs the steps.
"""
from __future__ import absolute_import, division, print_function

import collections

FACTOR = 2.0
RESOLUTION = 0.05
MAX_STEPS = 16

Outcome = collections.namedtuple('Outcome', 'rate met achieved limited')


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
        self.client_limit = None

    def next_rate(self):
        """The rate of the next step, or None when the search is over."""
        if self.done():
            return None
        if not self.outcomes:
            return self._capped(self.start)
        if self.lowest_missed is None:
            return self._capped(self.highest_met * self.factor)
        if self.highest_met is None:
            return self.lowest_missed / self.factor
        return (self.highest_met + self.lowest_missed) / 2

    def _capped(self, rate):
        return rate if self.ceiling is None else min(rate, self.ceiling)

    def record(self, rate, met, achieved=None, limited=False):
        """Take the outcome of the step at `rate`: whether it met the
        objectives, the rate it achieved, and whether the client was
        its limit."""
        self.outcomes.append(Outcome(rate, met, achieved, limited))
        if limited:
            self.client_limit = achieved if achieved is not None else rate
        elif met:
            if self.highest_met is None or rate > self.highest_met:
                self.highest_met = rate
        elif self.lowest_missed is None or rate < self.lowest_missed:
            self.lowest_missed = rate

    def done(self):
        """Whether the search is over (see why())."""
        return self.why() is not None

    def why(self):
        """Why the search is over, or None while it goes on."""
        if self.client_limit is not None:
            return 'client'
        if self.highest_met is not None and \
                self.lowest_missed is not None and \
                self.lowest_missed - self.highest_met <= \
                self.resolution * self.highest_met:
            return 'resolved'
        if self.lowest_missed is None and self.ceiling is not None and \
                self.highest_met is not None and \
                self.highest_met >= self.ceiling:
            return 'ceiling'
        if len(self.outcomes) >= self.max_steps:
            return 'steps'
        return None

    def summary(self):
        """The one line the search ends with."""
        why = self.why()
        if why == 'client':
            return ("the client's limit, not the cluster's: %s req/s; add "
                    "workers or hosts" % (_rate(self.client_limit),))
        met = 'none' if self.highest_met is None else \
            '%s req/s' % (_rate(self.highest_met),)
        missed = 'none' if self.lowest_missed is None else \
            '%s req/s' % (_rate(self.lowest_missed),)
        line = ('highest rate that met the objectives: %s; lowest that '
                'missed them: %s' % (met, missed))
        if why == 'ceiling':
            line += ' (the search stopped at its ceiling)'
        elif why == 'steps':
            line += ' (the search stopped after %d steps, before its ' \
                'resolution of %g%%)' % (self.max_steps,
                                         self.resolution * 100)
        return line


def _rate(value):
    return '%.0f' % (value,) if value >= 100 else '%.3g' % (value,)

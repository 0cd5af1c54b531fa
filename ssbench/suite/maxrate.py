"""`run-suite --find-max-rate`: open-loop steps chosen one after another
by ssbench.suite.capacitysearch until the highest rate that meets the
--slo objectives (and that the step carried: see that module) is known
to --resolution, or the client is the limit."""
from __future__ import absolute_import, division, print_function

import collections
import os
import logging

from ssbench.errors import UsageError
from ssbench.load import suitefile
from ssbench.load.scenario import MAX_RATE
from ssbench.suite.capacitysearch import (CapacitySearch, shortfall,
                                          steps_text)
from ssbench.suite.runner import SuiteRunner, load_step

log = logging.getLogger('ssbench')


def _one(args, attr, flag, needed=True):
    value = getattr(args, attr)
    if value is None:
        if needed:
            raise UsageError('--find-max-rate needs %s' % (flag,))
        return None
    if len(value) != 1:
        raise UsageError('--find-max-rate chooses the rates itself: give '
                         '%s one value, not a sweep' % (flag,))
    return value[0]


def search_suite(args, objectives):
    """(Suite without steps yet, the scenario file, the first rate): the
    search's plan, checked."""
    if objectives is None:
        raise UsageError('--find-max-rate needs --slo, the objectives a '
                         'rate must meet')
    if args.suite_file is not None or not args.scenario_file or \
            len(args.scenario_file) != 1:
        raise UsageError('--find-max-rate searches one scenario: give one '
                         '-f SCENARIO_FILE')
    if args.resume:
        raise UsageError('--find-max-rate cannot --resume: each of its '
                         'steps follows from the ones before')
    if args.until_steady:
        raise UsageError('--find-max-rate runs each step for its -r: '
                         '--until-steady would judge steps of different '
                         'lengths')
    start = _one(args, 'rate', '--rate JOBS_PER_S, the rate to start from')
    _one(args, 'run_seconds', '-r SECONDS, the length of each step')
    for attr, flag in (('user_count', '-u'), ('op_count', '-o'),
                       ('container_count', '-c'), ('policy', '-p'),
                       ('batch_size', '--batch-size')):
        _one(args, attr, flag, needed=False)
    path = args.scenario_file[0]
    name = os.path.splitext(os.path.basename(path))[0]
    return suitefile.Suite(name + '-max-rate', []), path, start


class SearchRunner(SuiteRunner):
    """A SuiteRunner whose steps the capacity search chooses."""

    def __init__(self, args, suite, folder, objectives, path, start):
        self.path = path
        self.capacity = CapacitySearch(
            start, resolution=args.resolution, max_steps=args.max_steps,
            ceiling=MAX_RATE)
        self.busy_steps = []
        first = self._step(args, suite, folder, 1, start)
        SuiteRunner.__init__(self, args, suite, folder, [first], {},
                             objectives)
        seconds = first.scenario.run_seconds
        log.info('Capacity search: from %g jobs/s, at most %s of '
                 '%g s each (with population and cleanup, about %.0f min '
                 'at most), to within %g%%', start,
                 steps_text(args.max_steps), seconds,
                 args.max_steps * (seconds + 30) / 60.0,
                 args.resolution * 100)

    def step_title(self, number):
        """'Search step 2': the search does not know its total."""
        return 'Search step %d' % number

    def size_text(self):
        return 'a capacity search of at most %s' % steps_text(
            self.capacity.max_steps)

    def _step(self, args, suite, folder, number, rate):
        plan = suitefile.StepPlan(number, self.path, collections.OrderedDict(
            [('rate', rate)]), shown=['rate'])
        return load_step(args, plan, folder, suite)

    def run_steps(self, suite_run, live, options, check_steps):
        outcome = None
        index = 0
        while True:
            if index:
                rate = self.capacity.next_rate()
                if rate is None:
                    break
                step = self._step(self.args, self.suite, self.folder,
                                  index + 1, _rounded(rate))
                check_steps([step])
                self.steps.append(step)
                self.entries.append(step.entry())
            step = self.steps[index]
            outcome = self._run_step(suite_run, live, options, step, index)
            entry = self.entries[index]
            if not entry['complete']:
                break
            self._record(step, entry)
            index += 1
        summary = self.capacity.summary()
        if self.busy_steps:
            summary += ('; the client host was busy in step%s %s: their '
                        'latencies include waits for its CPU' % (
                            's' if len(self.busy_steps) > 1 else '',
                            ', '.join('%d' % n for n in self.busy_steps)))
        self.search = {
            'summary': summary, 'why': self.capacity.why(),
            'busy_steps': self.busy_steps,
            'highest_met': self.capacity.highest_met,
            'lowest_missed': self.capacity.lowest_missed,
            'client_limit': self.capacity.client_limit}
        log.info('Capacity search: %s', self.search['summary'])
        self._save()
        return outcome

    def _record(self, step, entry):
        """Give the search a finished step's outcome: its objectives, the
        schedule's jobs sent and due per second, and the client's
        health."""
        figures = entry.get('figures') or {}
        schedule = figures.get('schedule') or {}
        health = figures.get('health')
        number = step.plan.number
        missed, too_few = entry.get('slo'), entry.get('slo_too_few')
        outcome = self.capacity.record(
            step.rate, not missed and not too_few,
            achieved=schedule.get('achieved_rate'),
            offered=schedule.get('intended_rate'),
            limited=health == 'saturated', busy=health == 'host busy',
            too_few=bool(too_few) and not missed)
        if outcome.short:
            log.warning('Step %d: %s (%s jobs due but not sent): not met',
                        number, shortfall(outcome), schedule.get('unsent'))
        if outcome.limited and not self.capacity.done():
            log.warning('Step %d: the client was saturated: the search runs '
                        '%g jobs/s once more', number, step.rate)
        if health == 'host busy' and self.capacity.client_step is not \
                outcome:
            # Not the client's limit, but its latencies include waits for
            # the client host's CPU: said with the outcome.
            self.busy_steps.append(number)


def _rounded(rate):
    """A rate as a person would write it: four significant digits."""
    value = float('%.4g' % (rate,))
    return int(value) if value == int(value) else value

from __future__ import absolute_import, division, print_function

import collections
import logging

import pytest

from ssbench.suite.maxrate import SearchRunner
from ssbench.suite.capacitysearch import CapacitySearch, steps_text
from ssbench.suite.runner import SuiteRunner

Plan = collections.namedtuple('Plan', 'number')
Step = collections.namedtuple('Step', 'rate plan')


@pytest.fixture
def runner():
    """A SearchRunner with only what _record() reads: no suite, no
    workers, no sockets."""
    runner = SearchRunner.__new__(SearchRunner)
    runner.capacity = CapacitySearch(start=1938)
    runner.busy_steps = []
    return runner


def entry(health='ok', sent=1938.0, due=1938.0, unsent=0, slo=()):
    return {'complete': True, 'slo': list(slo), 'figures': {
        'offered': 1938, 'health': health,
        'schedule': {'intended_rate': due, 'achieved_rate': sent,
                     'unsent': unsent},
        'operations': {'total': {'req_per_s': sent}}}}


def test_a_step_that_sent_its_jobs_and_held_its_objectives_met(runner):
    runner._record(Step(1938, Plan(1)), entry())
    assert runner.capacity.highest_met == 1938


def test_an_under_achieving_step_is_not_met_and_says_so(runner, caplog):
    with caplog.at_level(logging.WARNING, 'ssbench'):
        runner._record(Step(1938, Plan(3)),
                       entry(sent=1100.0, unsent=50280))
    assert runner.capacity.highest_met is None
    assert runner.capacity.lowest_missed == 1938
    assert 'Step 3: achieved 1100 of 1938 req/s offered (50280 jobs due ' \
        'but not sent): not met' in caplog.text


def test_a_busy_host_under_achieving_ends_the_search(runner):
    runner._record(Step(1938, Plan(2)),
                   entry(health='host busy', sent=1100.0, unsent=50280))
    assert runner.capacity.why() == 'client'
    assert runner.capacity.summary().startswith(
        'the client host could not offer 1938 req/s')
    # The summary says it already: not again as a busy step.
    assert runner.busy_steps == []


def test_a_busy_host_that_carried_its_rate_is_noted(runner):
    runner._record(Step(1938, Plan(2)), entry(health='host busy'))
    assert runner.capacity.highest_met == 1938
    assert runner.busy_steps == [2]


def test_a_saturated_client_is_its_limit_at_what_it_sent(runner, caplog):
    with caplog.at_level(logging.WARNING, 'ssbench'):
        runner._record(Step(1938, Plan(1)),
                       entry(health='saturated', sent=1600.0))
    assert 'Step 1: the client was saturated: the search runs 1938 ' \
        'jobs/s once more' in caplog.text
    assert runner.capacity.client_limit is None
    runner._record(Step(1938, Plan(2)),
                   entry(health='saturated', sent=1500.0))
    assert runner.capacity.client_limit == 1500.0
    assert 'Step 2: the client was saturated' not in caplog.text


def test_a_saturated_last_step_is_not_said_to_run_again(runner, caplog):
    runner.capacity = CapacitySearch(start=1938, max_steps=1)
    with caplog.at_level(logging.WARNING, 'ssbench'):
        runner._record(Step(1938, Plan(1)), entry(health='saturated'))
    assert runner.capacity.why() == 'steps'
    assert 'once more' not in caplog.text


def test_a_search_step_is_named_without_a_total_it_does_not_know(runner):
    runner.capacity = CapacitySearch(start=10, max_steps=1)
    assert runner.step_title(2) == 'Search step 2'
    assert runner.size_text() == 'a capacity search of at most 1 step'


def test_a_suite_step_is_named_with_the_suites_total():
    suite = SuiteRunner.__new__(SuiteRunner)
    suite.steps = ['one step']
    assert suite.step_title(1) == 'Step 1/1'
    assert suite.size_text() == '1 step'
    suite.steps = ['a', 'b', 'c']
    assert suite.size_text() == '3 steps'


@pytest.mark.parametrize('count, text', [(0, '0 steps'), (1, '1 step'),
                                         (2, '2 steps')])
def test_steps_text_says_step_for_one_alone(count, text):
    assert steps_text(count) == text

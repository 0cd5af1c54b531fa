from __future__ import absolute_import, division, print_function

import collections
import logging

import pytest

from ssbench.suite.maxrate import SearchRunner
from ssbench.suite.capacitysearch import CapacitySearch

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


def test_a_saturated_client_is_its_limit_at_what_it_sent(runner):
    runner._record(Step(1938, Plan(1)),
                   entry(health='saturated', sent=1500.0))
    assert runner.capacity.client_limit == 1500.0

"""The suite's run over shared workers, as the command line reads it."""
from __future__ import absolute_import, division, print_function

from ssbench.suite.sharedworkers import SuiteRun


class _Master(object):
    workers = {7: 'a worker'}


def test_workers_are_empty_before_the_first_step_then_its_masters():
    suite_run = SuiteRun(transport=None)
    assert suite_run.workers == {}
    suite_run.master = _Master()
    assert suite_run.workers == {7: 'a worker'}

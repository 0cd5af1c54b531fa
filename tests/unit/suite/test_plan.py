"""ssbench.suite.plan and folder: file names of a suite's folder
and steps."""
from __future__ import absolute_import, division, print_function

import os

from ssbench.suite import folder as suitefolder, plan as suiteplan
from ssbench.load.suitefile import StepPlan, Suite


class Args(object):
    suite_dir = None
    resume = False


def test_a_long_name_makes_a_file_name_a_file_system_takes():
    # A name of 300,000 characters made a folder name no file system
    # takes, and an error line echoing it twice.
    suite = Suite(u'A' * 300000, [])
    folder = suiteplan.suite_dir(Args(), suite, now=0)
    assert len(os.path.basename(folder)) < 120
    step = StepPlan(1, 'a.scenario', {'policy': u'p' * 5000},
                    shown=['policy'])
    assert len(os.path.basename(suiteplan.stats_path(folder, suite,
                                                     step))) < 255
    assert suitefolder.safe_name(u'read curve') == u'read_curve'

"""tools/quickstart (README.rst, Quick start) as a newcomer runs it:
each step said in one line before it starts, then a run against the
local Swift with two local workers that ends well.  Python 3 only: the
quick start builds and uses .venv/py3."""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600),
              pytest.mark.skipif(sys.version_info[0] < 3,
                                 reason='the quick start is Python 3')]


def test_quickstart_says_its_steps_and_runs(tmpdir):
    support.require_swift()
    stats = str(tmpdir.join('quick.stat'))
    ran = support.run([os.path.join(support.ROOT, 'tools', 'quickstart'),
                       '-o', '60', '-s', stats, '--progress', 'none'],
                      540)
    assert ran.status == 0, ran
    steps = [line for line in ran.err.splitlines()
             if line.startswith('quickstart: ')]
    assert len(steps) == 3, ran.err
    assert steps[0].startswith(('quickstart: using .venv/py3',
                                'quickstart: building .venv/py3'))
    assert steps[1].startswith(('quickstart: the local Swift runs',
                                'quickstart: starting the local Swift'))
    assert steps[2].startswith('quickstart: running '
                               'scenarios/very_small.scenario')
    # The steps come before what they announce.
    assert ran.err.index(steps[2]) < ran.err.index('INFO:SwiftStack')
    assert os.path.exists(stats + '.gz')
    assert 'Small test scenario' in ran.out

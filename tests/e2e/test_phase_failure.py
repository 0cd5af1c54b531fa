"""Whatever fails inside the benchmark phase, the results received so far
are kept: the stats file is finalized (gzipped), the master says where it
is and exits 1 with one line, no traceback."""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(240)]

SCENARIO = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')

# The real CLI, with the master's message handling made to fail (a bug, as
# far as the run can tell) once the benchmark is well under way.
FAILING_MASTER = """
import sys
from ssbench.master import phase
calls = [0]
receive = phase.Phase.receive
def failing(self, data, now):
    calls[0] += 1
    if calls[0] == 300 and self.pipeline.packed:    # the benchmark
        raise RuntimeError('injected failure')
    return receive(self, data, now)
phase.Phase.receive = failing
from ssbench.cli.master import main
sys.exit(main(sys.argv[1:]))
"""


def test_a_failure_in_the_benchmark_phase_keeps_the_results(tmpdir):
    stats = os.path.join(str(tmpdir), 'run.stat')
    ran = support.run(
        [sys.executable, '-c', FAILING_MASTER, 'run-scenario', '-f',
         SCENARIO, '--noop', '-u', '8', '-o', '1000000', '--workers', '2',
         '-s', stats] + support.zmq_args(), 180)
    assert ran.status == 1, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert errors == ['ERROR:benchmark phase failed: RuntimeError: '
                      'injected failure'], ran
    assert 'Traceback' not in ran.err
    assert 'Scenario run results saved to %s.gz' % stats in ran.err
    results = support.read_results(stats + '.gz')
    assert 0 < len(results) < 1000000
    assert not os.path.exists(stats)

"""A worker that connects after the run began gets its share (issue 50,
defect 17): the master runs with one hand-started worker, a second one is
started only once results of the first are in the stats file, and from
its first result on the two complete as many jobs each, in an open loop
(--rate) and in a closed one.  --noop: no Swift, every job answered at
once, the light load under which every job once went to the first
worker."""
from __future__ import absolute_import, division, print_function

import subprocess
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

BOUND = 120


@pytest.mark.parametrize('load', [
    ['-u', '50', '--rate', '100', '-o', '2000'],
    ['-u', '1', '-r', '15']], ids=['open loop', 'closed loop'])
def test_a_worker_started_late_gets_its_share(tmpdir, load):
    zmq = support.zmq_args()
    work_port, results_port = [int(zmq[zmq.index(flag) + 1]) for flag in (
        '--zmq-work-port', '--zmq-results-port')]
    scenario, _ = support.write_scenario(tmpdir)
    stats = str(tmpdir.join('late.stat'))
    workers = [support.start_worker(1, work_port, results_port,
                                    str(tmpdir.join('worker1.log')))]
    with open(str(tmpdir.join('out')), 'wb') as out, \
            open(str(tmpdir.join('err')), 'wb') as err:
        master = subprocess.Popen(
            [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
             '-f', scenario, '--noop', '-s', stats] + load + zmq,
            stdout=out, stderr=err, cwd=support.ROOT,
            preexec_fn=support.die_with_parent)
    try:
        support.wait_for_a_result(stats, master, BOUND)
        workers.append(support.start_worker(
            2, work_port, results_port, str(tmpdir.join('worker2.log'))))
        status = support.wait_exit(master, BOUND + 60)
    finally:
        support.stop_process(master)
        for worker in workers:
            support.stop_process(worker)
    err = support.read_text(str(tmpdir.join('err')))
    assert status == 0, err
    results = support.read_results(stats + '.gz')
    late = [r['completed_at'] for r in results if r['worker_id'] == 2]
    assert late, 'worker 2 got no job: %s' % support.read_text(
        str(tmpdir.join('worker2.log')))
    joined = min(late)
    later = [r['worker_id'] for r in results if r['completed_at'] >= joined]
    shares = [later.count(1), later.count(2)]
    # Jobs go to each in turn: as many each, give or take those that
    # were out as the second one came.
    assert len(later) >= 100 and min(shares) >= 0.4 * len(later), (
        shares, len(results))

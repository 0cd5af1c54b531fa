"""A worker whose wall clock steps an hour ahead in the middle of a run
(libfaketime reading its offset from a file at every call, the file
rewritten mid-run): the master says so at once, stores a clock_stepped
event and a clock record per period, and the report's span is the run's
12 s, not 3612 s."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import re
import threading

import pytest

from tests import fakes
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

LIBFAKETIME = '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1'
STEP = 3600


@pytest.fixture
def swift():
    server = fakes.FakeSwift()
    try:
        yield server
    finally:
        server.stop()


def step_when_running(stats, offset_file, done):
    """Once the benchmark writes its stats file and some seconds passed,
    step the faked clock by STEP."""
    def step():
        while not os.path.exists(stats):
            if done.wait(0.05):
                return
        if not done.wait(4):
            with io.open(offset_file, 'w') as fp:
                fp.write(u'+%d\n' % (STEP,))
    thread = threading.Thread(target=step)
    thread.daemon = True
    thread.start()
    return thread


@pytest.mark.skipif(not os.path.exists(LIBFAKETIME),
                    reason='no libfaketime (Debian package faketime)')
def test_a_worker_clock_stepped_mid_run_is_said_and_corrected(tmpdir,
                                                              swift):
    zmq = support.zmq_args()
    work_port, results_port = [int(zmq[zmq.index(flag) + 1]) for flag in (
        '--zmq-work-port', '--zmq-results-port')]
    offset_file = os.path.join(str(tmpdir), 'faketime')
    with io.open(offset_file, 'w') as fp:
        fp.write(u'+0\n')
    env = {'LD_PRELOAD': LIBFAKETIME, 'FAKETIME_TIMESTAMP_FILE': offset_file,
           'FAKETIME_NO_CACHE': '1', 'FAKETIME_DONT_FAKE_MONOTONIC': '1'}
    workers = [support.start_worker(
        worker_id, work_port, results_port,
        os.path.join(str(tmpdir), 'worker%d.log' % worker_id),
        env=env if worker_id == 1 else None) for worker_id in (1, 2)]
    stats = os.path.join(str(tmpdir), 'step.stat')
    json_path = os.path.join(str(tmpdir), 'step.json')
    scenario = support.write_scenario(
        tmpdir, sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 200}],
        initial_files={'tiny': 10}, crud_profile=[0, 1, 0, 0],
        container_count=1, container_concurrency=1)[0]
    done = threading.Event()
    stepper = step_when_running(stats, offset_file, done)
    try:
        ran = support.master(
            'run-scenario', '-f', scenario, '-u', '4', '-r', '12',
            '--rate', '40', '-s', stats, '--json', json_path,
            *(['-A', swift.auth_url, '-U', swift.user, '-K', swift.key] +
              zmq), timeout=240)
    finally:
        done.set()
        stepper.join(10)
        for worker in workers:
            support.stop_process(worker)
    assert ran.status == 0, ran
    assert re.search(r'worker 1: wall clock stepped \+(3599\.[89]|3600\.[01])'
                     r'\d* s', ran.err), ran.err
    span = int(re.search(r'Ran .* \((\d+)s\)', ran.out).group(1))
    assert 10 <= span <= 20, ran.out
    with io.open(json_path, encoding='utf-8') as fp:
        doc = json.load(fp)
    assert 10 <= doc['run']['duration'] <= 20
    (stepped,) = [e for e in doc['events'] if e['kind'] == 'clock_stepped']
    assert stepped['worker'] == 1
    worker = [w for w in doc['client']['clock']['workers']
              if w['worker_id'] == 1][0]
    assert [round(s['offset'] - worker['offset'])
            for s in worker['steps']] == [STEP]

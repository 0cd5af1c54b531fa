"""Fixtures shared by the end-to-end tests."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from tests.e2e import support


@pytest.fixture
def workers(tmpdir):
    """start(worker_id, work_port, results_port, *extra, **kwargs) ->
    Popen of a hand-started ssbench-worker logging to
    tmpdir/worker-ID.log (its .log_path); every worker started is
    stopped (by pid) at teardown."""
    started = []

    def start(worker_id, work_port, results_port, *extra, **kwargs):
        log_path = os.path.join(str(tmpdir), 'worker-%d.log' % worker_id)
        proc = support.start_worker(worker_id, work_port, results_port,
                                    log_path, extra=extra, **kwargs)
        proc.log_path = log_path
        started.append(proc)
        return proc
    yield start
    for proc in started:
        support.stop_process(proc)

"""workerjobs.Runners: a fixed set of greenlets taking jobs from a FIFO.

(The job handlers are tested through the Worker, in test_worker.py.)"""
from __future__ import absolute_import, division, print_function

import gevent
import gevent.event
import pytest

from ssbench.worker.execution import Runners

pytestmark = pytest.mark.timeout(30)


class Recorder(object):
    """A job function that holds each job until `gate` is set, and tracks
    concurrency."""

    def __init__(self):
        self.gate = gevent.event.Event()
        self.started = []
        self.done = []
        self.running = 0
        self.most = 0
        self.greenlets = set()

    def __call__(self, job):
        self.started.append(job)
        self.greenlets.add(gevent.getcurrent())
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            self.gate.wait()
        finally:
            self.running -= 1
        self.done.append(job)


def wait_for(predicate, timeout=5):
    with gevent.Timeout(timeout, False):
        while not predicate():
            gevent.sleep(0)
    return predicate()


def test_runs_every_job_in_order_with_at_most_size_at_once():
    record = Recorder()
    runners = Runners(3, record)
    for job in range(10):
        runners.put(job)           # never blocks, even with all busy
    assert record.started == []    # nothing ran before the caller yielded
    assert wait_for(lambda: record.started == [0, 1, 2])
    assert runners.waiting() == 7
    record.gate.set()
    assert wait_for(lambda: len(record.done) == 10)
    assert record.started == list(range(10))
    assert record.most == 3
    assert len(record.greenlets) == 3      # the same greenlets, reused
    runners.kill()


def test_no_greenlet_before_the_first_job():
    runners = Runners(5, Recorder())
    assert runners._greenlets == []
    runners.put('job')
    assert len(runners._greenlets) == 5
    runners.kill()


def test_kill_stops_runners_and_drops_waiting_jobs():
    record = Recorder()
    runners = Runners(1, record)
    for job in range(3):
        runners.put(job)
    assert wait_for(lambda: record.started == [0])
    runners.kill(timeout=5)
    record.gate.set()
    for _ in range(10):            # a killed runner would go on here
        gevent.sleep(0)
    assert record.started == [0] and record.done == []
    # After kill, putting starts fresh runners (for new jobs only).
    runners.put(9)
    assert wait_for(lambda: 9 in record.done)
    assert record.started == [0, 9] and record.done == [9]
    runners.kill()

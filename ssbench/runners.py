"""A fixed set of greenlets that run jobs one after another.

A gevent Pool spawns a greenlet per job: a new greenlet, its frame stack
and the pool's bookkeeping, which at one request per job is a visible part
of a worker's CPU.  Runners are spawned once (on the first job) and take
jobs from a FIFO; a job put while every runner is busy waits there, so
putting never blocks the caller.
"""
from __future__ import absolute_import, division, print_function

import gevent
import gevent.queue


class Runners(object):
    """`size` greenlets calling `func(job)` for each job put(), in order.

    `func` should not raise: an exception other than GreenletExit is
    reported by gevent and ends that runner, leaving one fewer.
    """

    def __init__(self, size, func):
        self.size = max(1, int(size))
        self._func = func
        self._queue = gevent.queue.Queue()
        self._greenlets = []

    def put(self, job):
        if not self._greenlets:
            self._greenlets = [gevent.spawn(self._run)
                               for _ in range(self.size)]
        self._queue.put(job)

    def waiting(self):
        """Jobs put that no runner has taken yet."""
        return self._queue.qsize()

    def _run(self):
        get = self._queue.get
        func = self._func
        while True:
            func(get())

    def kill(self, timeout=None):
        """Stop every runner; jobs still waiting are dropped."""
        greenlets, self._greenlets = self._greenlets, []
        self._queue = gevent.queue.Queue()
        gevent.killall(greenlets, timeout=timeout)

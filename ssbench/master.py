"""The master's flow control: keep at most user_count jobs out, collect results.

`Master.run_jobs()` is one loop reused for every phase (population,
benchmark, cleanup, kill-workers).  It never waits forever: every receive
has a timeout, and silence from all workers ends the phase with an error.
"""
from __future__ import absolute_import, division, print_function

import logging
import time

from ssbench import HEARTBEAT, PING, SUICIDE
from ssbench import protocol
from ssbench.compat import monotonic
from ssbench.errors import NoWorkersError

log = logging.getLogger(__name__)


class PhaseStats(object):
    """What a phase did: counts only, results themselves go elsewhere."""

    def __init__(self):
        self.sent = 0
        self.received = 0
        self.errors = 0

    def __repr__(self):
        return 'PhaseStats(sent=%d, received=%d, errors=%d)' % (
            self.sent, self.received, self.errors)


class Master(object):
    """Drives workers through a transport (see ssbench.transport)."""

    def __init__(self, transport, user_count, batch_size=1,
                 worker_timeout=30.0, poll_interval=0.5,
                 clock=monotonic):
        self.transport = transport
        self.user_count = max(1, int(user_count))
        self.batch_size = max(1, min(int(batch_size), self.user_count))
        self.worker_timeout = worker_timeout
        self.poll_interval = poll_interval
        self.clock = clock
        self.workers = {}        # worker_id -> last time we heard from it
        self.configuration = None

    # -- receiving ------------------------------------------------------

    def _note_worker(self, worker_id, now):
        if worker_id is not None and worker_id not in self.workers:
            log.debug('worker %s connected', worker_id)
        self.workers[worker_id] = now

    def _split(self, records, now):
        """Separate control records from results; note who is alive."""
        results = []
        for record in records:
            self._note_worker(record.get('worker_id'), now)
            if record.get('type') != HEARTBEAT:
                results.append(record)
            elif (self.configuration is not None and
                  not record.get('configured', True)):
                self.transport.send(protocol.pack([self.configuration]),
                                    timeout=0)
        return results

    def wait_for_workers(self, timeout):
        """Block until at least one worker is heard from, or raise."""
        deadline = self.clock() + timeout
        while not self.workers:
            left = deadline - self.clock()
            if left <= 0:
                raise NoWorkersError(
                    'no ssbench-worker connected within %.0f s; start '
                    'workers (or use --workers N) and check --zmq-host and '
                    'the ports' % timeout)
            data = self.transport.recv(min(left, self.poll_interval))
            if data is not None:
                results = self._split(protocol.unpack(data), self.clock())
                if results:
                    log.debug('ignoring %d stale results', len(results))
        return sorted(self.workers, key=lambda w: (str(type(w)), w))

    def configure(self, configuration):
        """Hand every worker its one-time configuration (auth, timeouts).

        PUSH sockets cannot address a worker, so one copy is sent per known
        worker (they go round-robin); a worker that still reports itself
        unconfigured in a heartbeat is sent another copy.
        """
        self.configuration = configuration
        for _ in self.workers:
            self.transport.send(protocol.pack([configuration]),
                                timeout=self.poll_interval)

    # -- the loop -------------------------------------------------------

    def run_jobs(self, jobs, on_result=None, on_raw=None, on_idle=None):
        """Send `jobs`, keeping at most user_count outstanding, until all
        results are back.  `on_result(result)` sees each result record,
        `on_raw(data, results)` each received message holding results
        (`data` is the bytes as received, or None when control records were
        mixed in), `on_idle()` runs once per loop turn.
        """
        stats = PhaseStats()
        jobs = iter(jobs)
        exhausted = False
        pending = None           # a packed batch the socket would not take
        active = 0
        last_heard = self.clock()
        transport = self.transport
        batch_size = self.batch_size
        user_count = self.user_count
        while True:
            while pending is None and not exhausted and active < user_count:
                room = min(batch_size, user_count - active)
                batch = []
                for job in jobs:
                    batch.append(job)
                    if len(batch) >= room:
                        break
                else:
                    exhausted = True
                if batch:
                    pending = (protocol.pack(batch), len(batch))
                    if transport.send(pending[0], timeout=0):
                        active += pending[1]
                        stats.sent += pending[1]
                        pending = None
            if exhausted and pending is None and active <= 0:
                return stats
            if pending is not None and active == 0:
                # Nothing out and nobody taking work: wait on the send.
                if transport.send(pending[0], timeout=self.poll_interval):
                    active += pending[1]
                    stats.sent += pending[1]
                    pending = None
                    last_heard = self.clock()
                data = None
            else:
                data = transport.recv(self.poll_interval)
            now = self.clock()
            while data is not None:
                last_heard = now
                records = protocol.unpack(data)
                results = self._split(records, now)
                if results:
                    active -= len(results)
                    stats.received += len(results)
                    for result in results:
                        if 'exception' in result:
                            stats.errors += 1
                        if on_result is not None:
                            on_result(result)
                    if on_raw is not None:
                        on_raw(data if len(results) == len(records) else None,
                               results)
                data = transport.recv_nowait()
            if pending is not None and active > 0:
                if transport.send(pending[0], timeout=0):
                    active += pending[1]
                    stats.sent += pending[1]
                    pending = None
            if on_idle is not None:
                on_idle()
            if now - last_heard > self.worker_timeout:
                raise NoWorkersError(
                    'no result or heartbeat from any worker for %.0f s with '
                    '%d jobs outstanding' % (self.worker_timeout,
                                             active + (pending[1] if pending
                                                       else 0)))


def store_raw(writer):
    """An on_raw callback that stores result messages verbatim, re-packing
    only the results when control records were mixed in."""
    def on_raw(data, results):
        if data is None:
            writer.write_batch(results)
        else:
            writer.write_raw(data)
    return on_raw


def kill_workers(transport, timeout=5.0, clock=monotonic):
    """Tell every worker reachable through `transport` to exit.

    Repeats PING then SUICIDE until a PING goes unanswered for `timeout`
    seconds; returns the ids of the workers told to exit.
    """
    killed = set()
    while True:
        if not transport.send(protocol.pack([protocol.ping_job()]),
                              timeout=timeout):
            return sorted(killed, key=str)   # no worker connected at all
        deadline = clock() + timeout
        answered = None
        while answered is None and clock() < deadline:
            data = transport.recv(min(0.25, max(0.0, deadline - clock())))
            if data is None:
                continue
            for record in protocol.unpack(data):
                if record.get('type') in (PING, HEARTBEAT):
                    answered = record.get('worker_id')
                    break
        if answered is None:
            return sorted(killed, key=str)
        log.info('Telling worker %s to exit', answered)
        killed.add(answered)
        transport.send(protocol.pack([protocol.suicide_job()]),
                       timeout=timeout)
        time.sleep(0.05)

"""The master's run loop: at most user_count jobs out, collect results.

`Master.run_jobs()` is one loop reused for every phase (population,
benchmark, cleanup); what one phase has in flight and how its messages are
sent and taken in is ssbench.master.phase, who the workers are and which
are alive ssbench.master.workerregistry.  It never waits forever: every
receive has a timeout, and silence from all workers ends the phase with an
error.  kill_workers() tells every worker to exit.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.wire import protocol
from ssbench.compat import monotonic
from ssbench.errors import NoWorkersError
from ssbench.wire.faultlog import Faults
from ssbench.master.phase import Phase
from ssbench.master.pipeline import Pipeline
from ssbench.master.selfhealth import WINDOW, MasterHealth
from ssbench.master.workerregistry import WorkerRegistry
from ssbench.wire.protocol import HEARTBEAT, PING
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire.resultbytes import ResultShapes
from ssbench.wire.transport import CONTROL_WAIT_MS

log = logging.getLogger(__name__)

# Seconds kill-workers waits for a first heartbeat (workers beat each 1 s).
KILL_HEARTBEAT_WAIT = 1.5
# Seconds between the run loop's looks at the work connection: heartbeats
# come once a second per worker, and the transport's recv() returns
# within CONTROL_WAIT_MS.
CONTROL_INTERVAL = CONTROL_WAIT_MS / 1000.0


class Master(WorkerRegistry):
    """Drives the workers of its registry through a transport (see
    ssbench.wire.transport)."""

    def __init__(self, transport, user_count, batch_size=1,
                 worker_timeout=10.0, poll_interval=0.5, drain_seconds=5.0,
                 monotonic=monotonic):
        WorkerRegistry.__init__(self, transport, worker_timeout,
                                poll_interval, monotonic)
        self.resize(user_count, batch_size)
        self.next_job_id = 1
        # A stop request (stop_requested) ends the current phase: it
        # collects in-flight results for drain_seconds and returns with
        # stats.interrupted set.
        self.drain_seconds = drain_seconds
        # A --rate run's ssbench.load.schedule.Schedule for the next
        # run_jobs(): jobs then go out when due (and room allows), each stamped
        # with its `intended_start`; None: closed loop.
        self.schedule = None
        # How often the sinks get the master's own health.
        self.health_window = WINDOW
        # The shapes of results seen, to check messages on their bytes;
        # compiled off the loop, which keeps sending meanwhile.
        self.shapes = ResultShapes(background=True)

    def resize(self, user_count, batch_size):
        """Keep at most `user_count` jobs out, sent `batch_size` at a time
        (at most user_count): a suite's next step may differ."""
        self.user_count = max(1, int(user_count))
        self.batch_size = max(1, min(int(batch_size), self.user_count))

    # -- the loop -------------------------------------------------------

    def run_jobs(self, jobs, sinks=()):
        """Send `jobs`, keeping at most user_count outstanding, until all
        results are back, handing results, loop turns and heartbeats to
        `sinks` (ssbench.master.pipeline): unless one needs every record,
        a message of plain successes of known shapes is checked on its
        bytes and not decoded (ssbench.wire.resultbytes).  Raises
        NoWorkersError when every worker is lost.  After `stop_requested`
        is set it sends nothing more and returns once the in-flight
        results are in or drain_seconds have passed.  Malformed input
        dropped meanwhile is summed up at the end.
        """
        self.pipeline = pipeline = Pipeline(sinks)
        try:
            return self._run_jobs(jobs, pipeline)
        finally:
            self.pipeline = Pipeline()
            self.faults.summary()

    def _run_jobs(self, jobs, pipeline):
        phase = Phase(self, jobs, pipeline)
        idlers = pipeline.idlers
        stats = phase.stats
        tracker = self.tracker
        outstanding = tracker.outstanding
        clock = self.monotonic
        recv = self.transport.recv
        receive = phase.receive
        fill = phase.fill
        take_controls = self.take_controls
        poll_interval = self.poll_interval
        next_check = clock() + poll_interval
        quiet_since = None
        drain_until = None
        health = MasterHealth(clock, window=self.health_window)
        turn = health.turn
        now = clock()
        take_controls(now)      # who is there, before the first jobs
        # The work connection (heartbeats) is looked at every
        # CONTROL_INTERVAL, not every turn: each look costs system calls.
        controls_at = now + CONTROL_INTERVAL

        while True:
            if self.stop_requested and drain_until is None:
                drain_until = clock() + self.drain_seconds
                phase.stop()
                if outstanding:
                    log.warning('Stopping: no more jobs are sent; waiting '
                                'up to %.0f s for %d in-flight results',
                                self.drain_seconds, len(outstanding))
                else:
                    log.warning('Stopping: no more jobs are sent')
            if drain_until is not None and (
                    not outstanding or clock() > drain_until or
                    self._gone_after_draining(phase)):
                stats.interrupted = True
                stats.unanswered = len(outstanding)
                if outstanding:
                    _say_unanswered(outstanding, clock())
                return stats
            fill()
            if phase.exhausted and not phase.pending and not outstanding:
                return stats
            if phase.pending and not outstanding:
                # Nothing out and nobody taking work: wait on the send,
                # or, with no worker to send to, for one.
                data = None if phase.send_pending(poll_interval) else \
                    recv(poll_interval)
            else:
                # One message per turn: the turn's fill() then refills at
                # once the worker that sent it, and a queued message is
                # taken without waiting (recv tries that first).
                turn(clock() - now)
                data = recv(phase.wait(poll_interval))
            now = clock()
            if data is not None:
                receive(data, now)
            if now >= controls_at:
                controls_at = now + CONTROL_INTERVAL
                take_controls(now)
                # Often enough that, while the auth server still hands out
                # a token about to expire, the next one reaches the
                # workers soon after it comes.
                if self.configuration is not None and \
                        self.configuration.renew_if_due():
                    self._broadcast(0)
            for idle in idlers:
                idle(now)
            if now >= next_check:
                next_check = now + poll_interval
                self._check_liveness(now, phase.deliver)
                self.events.flush()
                if pipeline.beats and health.due(now):
                    pipeline.heartbeat(health.sample(now, sum(
                        len(batch) for batch in phase.pending)))
                if not self.stop_requested and (
                        outstanding or phase.pending) and \
                        self._gone_after_draining(phase) and (
                            outstanding or phase.pending):
                    raise NoWorkersError('%s%s; the run cannot go on' % (
                        self._gone(), self._refusal_note()))
                if tracker.workers or (phase.exhausted and
                                       not phase.pending and
                                       not outstanding):
                    quiet_since = None
                elif tracker.lost_ids:
                    raise NoWorkersError(
                        'all workers lost (%s)%s; the run cannot go on' % (
                            tracker.lost_ids.describe(),
                            self._refusal_note()))
                elif quiet_since is None:
                    quiet_since = now
                elif now - quiet_since > self.worker_timeout:
                    raise NoWorkersError(
                        'no worker heard from for %.0f s with %d jobs '
                        'outstanding%s' % (self.worker_timeout,
                                           len(outstanding),
                                           self._refusal_note()))

    def _gone_after_draining(self, phase):
        """True when no worker can answer any more; whatever they sent
        before they went is taken in first (at most a message per job
        in flight, and a few more: a stray peer must not keep us here)."""
        if not self._gone():
            return False
        for _ in range(self.user_count + 100):
            data = self.transport.recv(0)
            if data is None:
                break
            phase.receive(data, self.monotonic())
        return True


def _say_unanswered(outstanding, now):
    """The requests a stopped run leaves out are its slowest: say so,
    with how long they had been out, rather than let the latencies
    reported look better than the cluster was."""
    ages = [now - entry[1] for entry in outstanding.values()]
    log.warning('%d requests still in flight when the run stopped are not '
                'in the results (out for %.1f to %.1f s by then): the '
                'latencies reported leave out the slowest requests',
                len(ages), min(ages), max(ages))


def kill_workers(transport, timeout=5.0, monotonic=monotonic):
    """Tell every worker heard through `transport` to exit.

    Workers are learnt from their heartbeats on the work connection
    (sent each second): each connection heard gets one message [PING,
    SUICIDE], addressed to it; the worker answers the PING with its id on
    the results port and exits.  Goes on until no worker was newly heard
    for KILL_HEARTBEAT_WAIT seconds and every worker told has answered,
    or `timeout` seconds passed since the last one was told; returns the
    ids of the workers that answered.
    """
    killed = set()
    told = set()
    clock = monotonic
    faults = Faults('on the results port', clock=clock)
    control_faults = Faults('on the work port', clock=clock)
    message = protocol.pack([protocol.ping_job(), protocol.suicide_job()])
    quiet_until = clock() + KILL_HEARTBEAT_WAIT
    answers_until = quiet_until
    while True:
        now = clock()
        if now >= quiet_until and (len(killed) >= len(told) or
                                   now >= answers_until):
            return sorted(killed, key=str)
        data = transport.recv(0.1)
        if data is not None:
            for record in protocol.decode(data, check_from_worker,
                                          faults)[0]:
                worker_id = record.get('worker_id')
                if record.get('type') == PING and worker_id not in killed:
                    log.info('Told worker %s to exit', worker_id)
                    killed.add(worker_id)
        for peer, raw in transport.controls():
            records = protocol.decode(raw, check_from_worker,
                                      control_faults)[0]
            if peer in told or not any(record.get('type') == HEARTBEAT
                                       for record in records):
                continue
            if transport.send_to(peer, message, 0):
                told.add(peer)
                now = clock()
                quiet_until = now + KILL_HEARTBEAT_WAIT
                answers_until = now + timeout

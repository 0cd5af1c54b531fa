"""The master's flow control: at most user_count jobs out, collect results.

`Master.run_jobs()` is one loop reused for every phase (population,
benchmark, cleanup, kill-workers); what one phase has in flight and how
its messages are sent and taken in is ssbench.master.phase.  It never waits
forever: every receive has a timeout, and silence from all workers ends
the phase with an error.
"""
from __future__ import absolute_import, division, print_function

import logging
import time

from ssbench.wire import protocol
from ssbench.compat import monotonic
from ssbench.errors import Interrupted, NoWorkersError
from ssbench.wire.faultlog import Faults
from ssbench.master.liveness import ORPHAN_GRACE_FACTOR, LivenessTracker
from ssbench.master.phase import Phase
from ssbench.master.selfhealth import WINDOW, MasterHealth
from ssbench.wire.protocol import HEARTBEAT, PING
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire.resultbytes import ResultShapes

log = logging.getLogger(__name__)

# Seconds kill-workers waits for a first heartbeat (workers beat each 1 s).
KILL_HEARTBEAT_WAIT = 1.5
# A refused worker heard from within this many seconds may still be
# connected (and take jobs): the start waits for it to go.
REFUSED_QUIET = 2.0


class Master(object):
    """Drives workers through a transport (see ssbench.wire.transport)."""

    def __init__(self, transport, user_count, batch_size=1,
                 worker_timeout=10.0, poll_interval=0.5, drain_seconds=5.0,
                 clock=monotonic):
        self.transport = transport
        self.user_count = max(1, int(user_count))
        self.batch_size = max(1, min(int(batch_size), self.user_count))
        self.poll_interval = poll_interval
        self.clock = clock
        self.tracker = LivenessTracker(worker_timeout)
        self.configuration = None
        self.next_job_id = 1
        self.drain_seconds = drain_seconds
        # Set (by a signal handler) to stop sending work: the current
        # phase then collects in-flight results for drain_seconds and
        # returns with stats.interrupted set.
        self.stop_requested = False
        # A --rate run's ssbench.load.schedule.Schedule for the next
        # run_jobs(): jobs then go out when due (and room allows), each stamped
        # with its `intended_start`; None: closed loop.
        self.schedule = None
        # None, or a callable given every HEARTBEAT record (with the
        # worker's health figures, see ssbench.worker.health), and the
        # master's own every health_window seconds (see selfhealth).
        self.on_heartbeat = None
        self.health_window = WINDOW
        # None, or a ssbench.master.clockoffset.ClockOffsets: messages
        # of jobs then carry clock probes, heartbeats return them.
        self.clocks = None
        # None, or a callable that returns why no worker can ever answer
        # again (e.g. every local worker process exited), else None: the
        # master then stops waiting at once instead of for timeouts.
        self.workers_gone = None
        # Ids of jobs recorded as lost, so that a late result is told
        # apart from a duplicate.
        self.lost_job_ids = set()
        # Malformed messages and records received: dropped and counted.
        self.faults = Faults('on the results port', clock=clock)
        # Worker id -> what its latest heartbeat said of it
        # (protocol.IDENTITY_KEYS and `configured`).
        self.identities = {}
        # Worker id -> when a worker of another protocol version was last
        # heard from; its records are dropped.
        self.refused = {}
        # The shapes of results seen, for run_jobs(on_done=...); compiled
        # off the loop, which keeps sending meanwhile.
        self.shapes = ResultShapes(background=True)

    @property
    def worker_timeout(self):
        return self.tracker.timeout

    @property
    def workers(self):
        return self.tracker.workers

    # -- receiving ------------------------------------------------------

    def results_of(self, records, now):
        """The results among records, noting who is alive; control
        records (heartbeats) are handled here."""
        results = []
        tracker = self.tracker
        refused = self.refused
        for record in records:
            if record.get('type') != HEARTBEAT:
                if refused and record.get('worker_id') in refused:
                    continue
                tracker.seen(record.get('worker_id'), now)
                results.append(record)
                continue
            if record.get('protocol') != protocol.PROTOCOL_VERSION:
                self._refuse(record, now)
                results.extend(self._held_by_refused(record))
                continue
            self.identities[record['worker_id']] = dict(
                (key, record.get(key)) for key in
                protocol.IDENTITY_KEYS + ('configured',))
            tracker.heartbeat(record.get('worker_id'),
                              record.get('in_flight'), now)
            if self.on_heartbeat is not None:
                self.on_heartbeat(record)
            if self.clocks is not None:
                self.clocks.heartbeat(record)
            if (self.configuration is not None and
                    self.configuration.wanted(record)):
                self._broadcast(0)
        return results

    def _refuse(self, record, now):
        """A heartbeat of another protocol version (or none): said once
        per worker; the worker is told by the protocol version of a
        CONFIGURE, one copy per peer (PUSH cannot address it)."""
        worker_id = record.get('worker_id')
        if worker_id not in self.refused:
            theirs = record.get('protocol')
            log.error('worker %s (%s) refused: it speaks wire protocol %s, '
                      'this master version %d', worker_id,
                      record.get('host') or 'host unknown',
                      'with no version' if theirs is None
                      else 'version %s' % (theirs,),
                      protocol.PROTOCOL_VERSION)
        self.refused[worker_id] = now
        message = protocol.pack([
            self.configuration.broadcast() if self.configuration is not None
            else protocol.configure_job()])
        for _ in range(len(self.tracker.workers) + len(self.refused)):
            self.transport.send(message, timeout=0)

    def _held_by_refused(self, record):
        """Error records of the jobs a refused worker says it holds (it
        may have been handed some before its first heartbeat): counted
        now, not after the wait for jobs nobody claims."""
        held = record.get('in_flight')
        if not isinstance(held, list):
            return []
        worker_id = record.get('worker_id')
        errors = []
        for job_id in held:
            entry = self.tracker.outstanding.pop(job_id, None)
            if entry is None:
                continue
            self.lost_job_ids.add(job_id)
            errors.append(protocol.result_error(
                entry[0], worker_id, 'worker %s refused' % (worker_id,),
                'worker %s speaks another wire protocol version than this '
                'master (%d); the job it held is counted as failed' % (
                    worker_id, protocol.PROTOCOL_VERSION), 0))
        if errors:
            log.error('%d job(s) held by refused worker %s counted as '
                      'errors', len(errors), worker_id)
        return errors

    def ready(self):
        """Ids of the workers heard from that are configured (when there
        is a configuration to hand out)."""
        need = self.configuration is not None
        return [worker_id for worker_id in self.tracker.live()
                if not need or
                self.identities.get(worker_id, {}).get('configured')]

    def _refused_nearby(self, now):
        """True while a refused worker was heard from lately."""
        return any(now - at < REFUSED_QUIET
                   for at in self.refused.values())

    def wait_for_workers(self, timeout, expect=None):
        """Block until at least one worker is heard from (`expect`: that
        many are configured, and no refused worker is still heard), or
        raise (NoWorkersError after `timeout`, Interrupted on a stop
        request)."""
        deadline = self.clock() + timeout
        while not self._started(expect):
            if self.stop_requested:
                raise Interrupted('interrupted while waiting for workers')
            gone = self._gone()
            if gone:
                raise NoWorkersError('%s before connecting' % gone)
            left = deadline - self.clock()
            if left <= 0 and expect is not None:
                if len(self.ready()) >= expect:
                    break       # a refused worker still heard: go on
                raise NoWorkersError(self._too_few(expect, timeout))
            if left <= 0:
                raise NoWorkersError(
                    'no ssbench-worker connected within %.0f s%s' % (
                        timeout, self._no_worker_hint()))
            data = self.transport.recv(min(left, self.poll_interval))
            if data is not None:
                records = protocol.decode(data, check_from_worker,
                                          self.faults)[0]
                results = self.results_of(records, self.clock())
                if results:
                    log.debug('ignoring %d stale results', len(results))
        return self.tracker.live()

    def _started(self, expect):
        if expect is None:
            return bool(self.tracker.workers)
        return len(self.ready()) >= expect and \
            not self._refused_nearby(self.clock())

    def _too_few(self, expect, timeout):
        """The one line of a start that did not get `expect` workers."""
        ready = self.ready()
        line = ('--expect-workers %d: %d worker(s) connected and '
                'configured within %.0f s (--worker-wait)' % (
                    expect, len(ready), timeout))
        if ready:
            line += ': ' + ', '.join(str(w) for w in ready)
        if self.refused:
            line += '; refused (another protocol version): %s' % ', '.join(
                str(w) for w in sorted(self.refused, key=str))
        if not ready:
            line += self._no_worker_hint()
        return line

    def _gone(self):
        return self.workers_gone() if self.workers_gone is not None \
            else None

    def _no_worker_hint(self):
        """What to check when no worker came: CURVE refusals if any."""
        refused = getattr(self.transport, 'curve_refusals', None) or {}
        if not refused:
            return ('; start workers (or use --workers N) and check '
                    '--zmq-host and the ports')
        keys = sorted(key or 'no CURVE key' for key in refused)
        return ('; the master refused %d CURVE handshake(s) from worker '
                'key(s) not in %s (%s): copy such a worker\'s public key '
                'there as NAME.key and restart the master, or give the '
                'worker that directory\'s worker.key_secret' % (
                    sum(refused.values()),
                    getattr(self.transport, 'curve_directory', None) or
                    '--zmq-curve-dir', ', '.join(keys)))

    def configure(self, configuration):
        """Hand every worker its configuration: `configuration` is a
        ssbench.master.workerconfig.WorkerConfig (timeouts, storage URLs, a
        token).

        PUSH sockets cannot address a worker, so one copy is sent per known
        worker (they go round-robin); heartbeats that show a worker
        unconfigured or holding an old token bring more copies.
        """
        self.configuration = configuration
        self._broadcast(self.poll_interval)

    def _broadcast(self, timeout):
        message = protocol.pack([self.configuration.broadcast()])
        for _ in self.tracker.live():
            self.transport.send(message, timeout=timeout)

    # -- the loop -------------------------------------------------------

    def run_jobs(self, jobs, on_results=None, on_raw=None, on_idle=None,
                 on_done=None):
        """Send `jobs`, keeping at most user_count outstanding, until all
        results are back.  `on_results(results)` sees each list of result
        records, `on_raw(data, results)` each received message
        holding results (`data` is the bytes as received, or the results
        re-packed when control records or malformed ones were mixed in;
        None for the error records of jobs lost with a worker), `on_idle()`
        runs once per loop turn.  With `on_done(jobs)`, a message of plain
        successes of known shapes is checked on its bytes and not decoded
        (ssbench.wire.resultbytes): on_done gets the jobs it answers (the
        maps sent), on_raw its bytes and None, on_results nothing of it;
        for callers that need no more of a success than its job.  Raises
        NoWorkersError when every worker is lost.  After `stop_requested`
        is set it sends nothing more and returns once the in-flight
        results are in or drain_seconds have passed.  Malformed input
        dropped meanwhile is summed up at the end.
        """
        try:
            return self._run_jobs(jobs, on_results, on_raw, on_idle,
                                  on_done)
        finally:
            self.faults.summary()

    def _run_jobs(self, jobs, on_results, on_raw, on_idle, on_done):
        phase = Phase(self, jobs, on_results, on_raw, on_done)
        stats = phase.stats
        tracker = self.tracker
        outstanding = tracker.outstanding
        clock = self.clock
        recv = self.transport.recv
        receive = phase.receive
        fill = phase.fill
        poll_interval = self.poll_interval
        next_check = clock() + poll_interval
        quiet_since = None
        drain_until = None
        health = MasterHealth(clock, window=self.health_window)
        turn = health.turn
        now = clock()

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
                # Nothing out and nobody taking work: wait on the send.
                phase.send_pending(poll_interval)
                data = None
            else:
                # One message per turn: the turn's fill() then refills at
                # once the worker that sent it, and a queued message is
                # taken without waiting (recv tries that first).
                turn(clock() - now)
                data = recv(phase.wait(poll_interval))
            now = clock()
            if data is not None:
                receive(data, now)
            if on_idle is not None:
                on_idle()
            if now >= next_check:
                next_check = now + poll_interval
                if self.configuration is not None and \
                        self.configuration.renew_if_due():
                    self._broadcast(0)
                self._check_liveness(now, phase.deliver)
                if self.on_heartbeat is not None and health.due(now):
                    self.on_heartbeat(health.sample(now, sum(
                        len(batch) for batch in phase.pending)))
                if not self.stop_requested and (
                        outstanding or phase.pending) and \
                        self._gone_after_draining(phase) and (
                            outstanding or phase.pending):
                    raise NoWorkersError('%s; the run cannot go on' %
                                         self._gone())
                if tracker.workers or (phase.exhausted and
                                       not phase.pending and
                                       not outstanding):
                    quiet_since = None
                elif tracker.lost_ids:
                    raise NoWorkersError(
                        'all workers lost (%s); the run cannot go on' %
                        ', '.join(str(w) for w in sorted(tracker.lost_ids,
                                                         key=str)))
                elif quiet_since is None:
                    quiet_since = now
                elif now - quiet_since > self.worker_timeout:
                    raise NoWorkersError(
                        'no worker heard from for %.0f s with %d jobs '
                        'outstanding' % (self.worker_timeout,
                                         len(outstanding)))

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
            phase.receive(data, self.clock())
        return True

    def _check_liveness(self, now, deliver):
        lost = self.tracker.check(now)
        if not lost:
            return
        records = []
        for worker_id, job in lost:
            self.lost_job_ids.add(job.get('job_id'))
            if worker_id is None:
                why = ('job lost: no worker claimed it', 'no live worker '
                       'listed the job in its heartbeats for %.0f s' % (
                           self.worker_timeout * ORPHAN_GRACE_FACTOR))
            else:
                why = ('worker %s lost' % (worker_id,),
                       'the master heard nothing from worker %s for %.0f s'
                       % (worker_id, self.worker_timeout))
            records.append(protocol.result_error(job, worker_id, why[0],
                                                 why[1], 0))
        log.error('%d job(s) counted as errors: lost with a worker or in '
                  'transit', len(records))
        deliver(records, None)


def _say_unanswered(outstanding, now):
    """The requests a stopped run leaves out are its slowest: say so,
    with how long they had been out, rather than let the latencies
    reported look better than the cluster was."""
    ages = [now - sent_at for _, sent_at in outstanding.values()]
    log.warning('%d requests still in flight when the run stopped are not '
                'in the results (out for %.1f to %.1f s by then): the '
                'latencies reported leave out the slowest requests',
                len(ages), min(ages), max(ages))


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

    Nothing is sent before a worker is heard from or KILL_HEARTBEAT_WAIT
    seconds have passed.  Each message is one batch [PING, SUICIDE]: PUSH
    hands it to a single worker, which answers the PING with its id and
    exits, so the answer names the worker that was told (separate
    messages would go to different workers, round-robin).  Repeats while
    some worker is heard from (a PING answer or a heartbeat) within
    `timeout` seconds; returns the ids of the workers told to exit.
    """
    killed = set()
    faults = Faults('on the results port', clock=clock)
    message = protocol.pack([protocol.ping_job(), protocol.suicide_job()])
    # Wait for a first heartbeat: our workers send one as soon as their
    # results connection is up, and one told to exit before that might
    # never name itself.  Workers that never beat are told all the same.
    transport.recv(min(timeout, KILL_HEARTBEAT_WAIT))
    while True:
        if not transport.send(message, timeout=timeout):
            return sorted(killed, key=str)   # no worker connected at all
        deadline = clock() + timeout
        heard = False
        while not heard and clock() < deadline:
            data = transport.recv(min(0.25, max(0.0, deadline - clock())))
            if data is None:
                continue
            records = protocol.decode(data, check_from_worker, faults)[0]
            for record in records:
                kind = record.get('type')
                if kind == PING:
                    worker_id = record.get('worker_id')
                    if worker_id not in killed:
                        log.info('Told worker %s to exit', worker_id)
                        killed.add(worker_id)
                    heard = True
                elif kind == HEARTBEAT:
                    heard = True
        if not heard:
            return sorted(killed, key=str)
        time.sleep(0.05)

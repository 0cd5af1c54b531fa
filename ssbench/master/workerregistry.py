"""The master's registry of workers: who is connected, what each says of
itself, who is alive, and the jobs lost with those who are not.

Heartbeats name a worker (its identity, whether it is configured, the jobs
it holds); a worker of another wire protocol version is refused and told.
`WorkerRegistry.wait_for_workers()` is the start gate of a run, and
configure() hands every worker its configuration.  The run loop over the
registry is ssbench.master.dispatch.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.wire import protocol
from ssbench.compat import monotonic
from ssbench.errors import Interrupted, NoWorkersError
from ssbench.wire.faultlog import Faults
from ssbench.master.liveness import ORPHAN_GRACE_FACTOR, LivenessTracker
from ssbench.wire.protocol import HEARTBEAT
from ssbench.wire.messagecheck import check_from_worker

log = logging.getLogger(__name__)

# A refused worker heard from within this many seconds may still be
# connected (and take jobs): the start waits for it to go.
REFUSED_QUIET = 2.0


class WorkerRegistry(object):
    """The workers heard from through a transport (see
    ssbench.wire.transport), as the base of ssbench.master.dispatch.Master.
    """

    def __init__(self, transport, worker_timeout=10.0, poll_interval=0.5,
                 clock=monotonic):
        self.transport = transport
        self.poll_interval = poll_interval
        self.clock = clock
        self.tracker = LivenessTracker(worker_timeout)
        self.configuration = None
        # Set (by a signal handler) to stop: the wait for workers ends at
        # once, and a phase sends no more work (ssbench.master.dispatch).
        self.stop_requested = False
        # None, or a callable given every HEARTBEAT record (with the
        # worker's health figures, see ssbench.worker.health), and the
        # master's own every health_window seconds (see selfhealth).
        self.on_heartbeat = None
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

    # -- liveness -------------------------------------------------------

    def _check_liveness(self, now, deliver):
        """The jobs of workers lost by `now`, and those no worker claims,
        go to `deliver` as error records."""
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

"""The master's registry of workers: who is admitted, what each says of
itself, who is alive, and the jobs lost with those who are not.

Heartbeats come on the work connection, each with the routing id of the
connection it came on; the first one of a connection asks to be admitted
(ssbench.master.admission says who is).  A refused connection is told why
(REFUSED) and never sent a job.  Heartbeats name a worker (its identity,
whether it is configured, the jobs it holds).  An unconfigured worker
whose heartbeat says it refused its CONFIGURE (`config_refused`) is
treated as a worker lost, at once: it gets no more jobs, those it has out
count as lost, it is told (REFUSED) and exits, and the run goes on with
the others; the line of a run left with no worker names the refusal.
`WorkerRegistry.wait_for_workers()` is the start gate of a run, and
configure() hands every admitted worker its configuration.  The run loop
over the registry is ssbench.master.dispatch.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.wire import protocol
from ssbench.compat import monotonic
from ssbench.errors import Interrupted, NoWorkersError
from ssbench.wire.faultlog import Faults
from ssbench.master.admission import Admission
from ssbench.master.liveness import ORPHAN_GRACE_FACTOR, LivenessTracker
from ssbench.master.pipeline import Pipeline
from ssbench.master.recentids import RecentIds
from ssbench.master.runevents import RunEvents
from ssbench.wire.protocol import HEARTBEAT
from ssbench.wire.messagecheck import check_from_worker

log = logging.getLogger(__name__)

# Refusals logged at most (each connection's once per REFUSAL_REPEAT);
# worker ids of refused workers kept for the --expect-workers line.
REFUSAL_LINES = 20
REFUSED_IDS = 20
# Ids of the latest jobs counted as lost, so that a late result of one is
# told apart from a duplicate (one of an older one counts as a result of
# no job in flight: not stored either).
LOST_JOB_IDS = 10000
# The cause (error_class) of a job counted as lost: its worker's (lost,
# replaced, or refusing its configuration), or nobody's (no worker
# claimed it); the reports' errors by cause name them so.
WORKER_LOST = 'worker lost'
JOB_LOST = 'job lost'


class WorkerRegistry(object):
    """The workers heard from through a transport (see
    ssbench.wire.transport), as the base of ssbench.master.dispatch.Master.
    """

    def __init__(self, transport, worker_timeout=10.0, poll_interval=0.5,
                 monotonic=monotonic):
        self.transport = transport
        self.poll_interval = poll_interval
        self.monotonic = monotonic
        self.tracker = LivenessTracker(worker_timeout)
        self.admission = Admission()
        # Run events (workers joined, lost, back; marks), kept in the
        # stats file while one is attached (the benchmark phase).
        self.events = self.admission.events = self.tracker.events = \
            RunEvents()
        self.configuration = None
        # Set (by a signal handler) to stop: the wait for workers ends at
        # once, and a phase sends no more work (ssbench.master.dispatch).
        self.stop_requested = False
        # The running phase's sinks (ssbench.master.pipeline): given
        # every HEARTBEAT record (with the worker's health figures, see
        # ssbench.worker.health), and the master's own every
        # health_window seconds (see selfhealth).
        self.pipeline = Pipeline()
        # None, or a ssbench.master.clockoffset.ClockOffsets: messages
        # of jobs then carry clock probes, heartbeats return them.
        self.clocks = None
        # None, or a callable that returns why no worker can ever answer
        # again (e.g. every local worker process exited), else None: the
        # master then stops waiting at once instead of for timeouts.
        self.workers_gone = None
        # Ids of jobs recorded as lost lately, so that a late result is
        # told apart from a duplicate.
        self.lost_job_ids = RecentIds(LOST_JOB_IDS)
        # (Peer, (exception, traceback)): a worker's earlier process with
        # jobs out, replaced by a new one or dropped for refusing its
        # configuration, and why; those jobs count as lost at the next
        # liveness check.
        self._dropped_peers = []
        # The line of the latest worker that refused its configuration.
        self.config_refusal = None
        # Malformed messages and records received: dropped and counted;
        # with the transport's (messages larger than a worker sends,
        # dropped before they are decoded) when it counts any.
        self.faults = getattr(transport, 'results_faults', None) or \
            Faults('on the results port', clock=monotonic)
        self.control_faults = getattr(transport, 'control_faults', None) \
            or Faults('on the work port', clock=monotonic)
        # Worker id -> what its latest heartbeat said of it
        # (protocol.IDENTITY_KEYS and `configured`); admitted workers'.
        self.identities = {}
        # Worker id -> why it was refused, for the first REFUSED_IDS.
        self.refused = {}
        self._refusals_said = 0

    @property
    def worker_timeout(self):
        return self.tracker.timeout

    @property
    def workers(self):
        return self.tracker.workers

    # -- receiving ------------------------------------------------------

    def take_controls(self, now):
        """Handle what workers sent on the work connection (heartbeats),
        without waiting; True when there was anything."""
        controls = self.transport.controls()
        for peer, data in controls:
            for record in protocol.decode(data, check_from_worker,
                                          self.control_faults)[0]:
                if record.get('type') == HEARTBEAT:
                    self._heartbeat(peer, record, now)
                else:
                    self.control_faults.add(
                        'record that is no heartbeat', record.get('type'),
                        claimed=record.get('worker_id'))
        return bool(controls)

    def _heartbeat(self, peer, record, now):
        admitted, reason = self.admission.heartbeat(peer, record, now)
        if admitted is None:
            if reason is not None:
                self._refuse(peer, record, reason)
            return
        if admitted.replaces is not None:
            self._replaced(admitted.replaces, admitted)
            admitted.replaces = None
        worker_id = admitted.worker_id
        refusal = record.get('config_refused')
        if refusal is not None and self.configuration is not None and \
                not record.get('configured'):
            self._config_refused(admitted, refusal, now)
            return
        self.identities[worker_id] = dict(
            (key, record.get(key)) for key in
            protocol.IDENTITY_KEYS + ('configured',))
        self.tracker.heartbeat(worker_id, record.get('in_flight'), now)
        self.pipeline.heartbeat(record)
        if self.clocks is not None:
            self.clocks.heartbeat(record)
        if (self.configuration is not None and
                self.configuration.wanted(record)):
            # A renewed token goes to every worker at once.
            self._broadcast(0)

    def _replaced(self, old, new):
        """Connection `new` took over the worker id of `old` (a Peer):
        the jobs sent to the earlier process are lost with it, counted at
        the next liveness check (once, and sooner than as jobs nobody
        claims)."""
        out = sum(1 for entry in self.tracker.outstanding.values()
                  if entry[2] is old)
        log.warning('%s replaced by a new connection of %s: %d job(s) it '
                    'had out counted as lost', old, new, out)
        if out:
            self._dropped_peers.append((old, (
                'worker %s lost' % (old.worker_id,),
                '%s was replaced by a new process of that id (pid %s) '
                'before answering' % (old, new.pid))))

    def _config_refused(self, admitted, reason, now):
        """`admitted` (a Peer) refused its CONFIGURE for `reason` (its
        heartbeat's config_refused) by `now`: lost, as one that died
        before it was configured, and told so."""
        worker_id = admitted.worker_id
        line = '%s refused its configuration: %s' % (admitted, reason)
        log.error('%s; it gets no more jobs', line)
        self.config_refusal = line
        told = 'it refused its configuration: %s' % (reason,)
        if len(self.refused) < REFUSED_IDS:
            self.refused[worker_id] = told
        self.admission.bar(admitted, told, now)
        self.identities.pop(worker_id, None)
        self.tracker.drop(worker_id, reason)
        self._dropped_peers.append((admitted, ('worker %s lost' % (
            worker_id,), line)))
        self.transport.send_to(admitted.peer, protocol.pack([
            protocol.refused(told)]), 0)

    def _refusal_note(self):
        """The end of the line of a run left with no worker: the latest
        configuration refused, if any."""
        if self.config_refusal is None:
            return ''
        return '; ' + self.config_refusal

    def _replaced_jobs(self):
        """The error records of the jobs out to the earlier processes of
        workers that came back, or that refused their configuration, no
        longer outstanding."""
        records = []
        outstanding = self.tracker.outstanding
        for old, why in self._dropped_peers:
            for job_id in [job_id for job_id, entry in outstanding.items()
                           if entry[2] is old]:
                job = outstanding.pop(job_id)[0]
                self.lost_job_ids.add(job_id)
                records.append(protocol.result_error(
                    job, old.worker_id, why[0], why[1], 0,
                    error_class=WORKER_LOST))
        self._dropped_peers = []
        return records

    def results_of(self, records, now):
        """The results among records received on the results port:
        heartbeats belong on the work connection, and are dropped here
        (a forger's, or a worker of another version's)."""
        results = []
        for record in records:
            if record.get('type') == HEARTBEAT:
                self.faults.add('heartbeat on the results port',
                                record.get('worker_id'),
                                claimed=record.get('worker_id'))
            else:
                results.append(record)
        return results

    def _refuse(self, peer, record, reason):
        """Tell connection `peer` it is not admitted, and say so (the
        first REFUSAL_LINES times)."""
        worker_id = record.get('worker_id')
        line = 'worker %s (%s) refused: %s' % (
            worker_id, record.get('host') or 'host unknown', reason)
        if self._refusals_said < REFUSAL_LINES:
            log.error('%s', line)
        elif self._refusals_said == REFUSAL_LINES:
            log.error('more workers refused: not logged one by one')
        self._refusals_said += 1
        if len(self.refused) < REFUSED_IDS:
            self.refused[worker_id] = reason
        # The worker's own line names it: the reason alone.
        self.transport.send_to(peer, protocol.pack([protocol.refused(
            reason)]), 0)

    def ready(self):
        """Ids of the workers heard from that are configured (when there
        is a configuration to hand out)."""
        need = self.configuration is not None
        return [worker_id for worker_id in self.tracker.live()
                if not need or
                self.identities.get(worker_id, {}).get('configured')]

    def wait_for_workers(self, timeout, expect=None):
        """Block until at least one worker is admitted (`expect`: that
        many are configured), or raise (NoWorkersError after `timeout`,
        Interrupted on a stop request)."""
        deadline = self.monotonic() + timeout
        while not self._started(expect):
            if self.stop_requested:
                raise Interrupted('interrupted while waiting for workers')
            gone = self._gone()
            if gone:
                raise NoWorkersError('%s before connecting%s' % (
                    gone, self._refusal_note()))
            left = deadline - self.monotonic()
            if left <= 0 and expect is not None:
                raise NoWorkersError(self._too_few(expect, timeout))
            if left <= 0:
                raise NoWorkersError(
                    'no ssbench-worker connected within %.0f s%s' % (
                        timeout, self._no_worker_hint()))
            data = self.transport.recv(min(left, self.poll_interval))
            if data is not None:
                records = protocol.decode(data, check_from_worker,
                                          self.faults)[0]
                results = self.results_of(records, self.monotonic())
                if results:
                    log.debug('ignoring %d stale results', len(results))
            self.take_controls(self.monotonic())
        return self.tracker.live()

    def _started(self, expect):
        if expect is None:
            return bool(self.tracker.workers)
        return len(self.ready()) >= expect

    def _too_few(self, expect, timeout):
        """The one line of a start that did not get `expect` workers."""
        ready = self.ready()
        line = ('--expect-workers %d: %d worker(s) connected and '
                'configured within %.0f s (--worker-wait)' % (
                    expect, len(ready), timeout))
        if ready:
            line += ': ' + ', '.join(str(w) for w in ready)
        if self.refused:
            line += '; refused: %s' % ', '.join(
                '%s (%s)' % (w, self.refused[w])
                for w in sorted(self.refused, key=str))
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
        """Hand every admitted worker its configuration: `configuration`
        is a ssbench.master.workerconfig.WorkerConfig (timeouts, storage
        URLs, a token).  Heartbeats that show a worker unconfigured or
        holding an old token bring it another copy."""
        self.configuration = configuration
        self._broadcast(self.poll_interval)

    def _broadcast(self, timeout):
        for admitted in list(self.admission.by_peer.values()):
            self._send_configuration(admitted, timeout)

    def _send_configuration(self, admitted, timeout):
        message = protocol.pack([self.configuration.broadcast()])
        if self.transport.send_to(admitted.peer, message,
                                  timeout=timeout) is None:
            self.admission.forget(admitted)     # its connection is gone

    # -- liveness -------------------------------------------------------

    def _check_liveness(self, now, deliver):
        """The jobs of workers lost by `now`, and those no worker claims,
        go to `deliver` as error records."""
        for admitted in self.admission.check(now):
            log.warning('%s stalled: no heartbeat for %.0f s; no new job '
                        'goes to it, and its %d job(s) out leave room for '
                        'others', admitted, self.admission.stall,
                        admitted.out)
        lost = self.tracker.check(now)
        admission = self.admission
        for worker_id in list(admission.by_id):
            if worker_id not in self.tracker.workers:
                admission.forget_id(worker_id)
                self.identities.pop(worker_id, None)
        records = self._replaced_jobs()
        if not lost and not records:
            return
        admission.recount(self.tracker.outstanding.values())
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
            records.append(protocol.result_error(
                job, worker_id, why[0], why[1], 0,
                error_class=WORKER_LOST if worker_id is not None
                else JOB_LOST))
        log.error('%d job(s) counted as errors: lost with a worker or in '
                  'transit', len(records))
        deliver(records, None)

"""The worker's reader loop: pull job batches, run them in greenlets.

One reader greenlet (run()) pulls every message already queued, answers
no-op and control jobs inline and hands Swift jobs to `concurrency`
runner greenlets (ssbench.worker.execution.StoreJobs runs them).  Their
results leave through the worker's outbox (ssbench.worker.outbox: batching,
flushing, heartbeats and the master's liveness).

Results of jobs that reached Swift also carry `status` (the final HTTP
status), `reconnects` (stale keep-alive connections replaced, not retries),
on failures `error_class` (the cause when no response came) and on reads
`size` (the body bytes read).  No-op results keep the original keys only.

Control jobs: PING is answered like a no-op; SUICIDE stops the worker;
CONFIGURE (protocol.configure_job) hands over timeouts and, to a worker
started without credentials of its own, the storage URLs and a token:
never a key or password (see ssbench.swift.tokens for how a token the master
renews reaches every worker).
A CONFIGURE names the master's wire protocol version; a worker of another
version (or given none) exits with one line, taking no job; its
heartbeats say which version it speaks (protocol.identity).  A master that
does not admit this worker (see ssbench.master.admission) sends REFUSED
with its reason: the worker logs it and exits non-zero.
A CONFIGURE this worker cannot take (its message check drops it, or its
settings are unusable here) leaves it unconfigured: one line says why,
and its heartbeats carry the reason (`config_refused`, no secret in it)
until a CONFIGURE is taken, so that the master need not wait for it.
"""
from __future__ import absolute_import, division, print_function

import logging
import os
import tempfile
import time

import gevent

from ssbench.wire import protocol
from ssbench.compat import monotonic, text_type
from ssbench.errors import SsbenchError
from ssbench.wire.faultlog import Faults
from ssbench.worker.health import HealthMonitor
from ssbench.wire.protocol import (CLOCK, CONFIGURE, HEARTBEAT, PING,
                                   REFUSED, SUICIDE)
from ssbench.store.client import (DEFAULT_BLOCK_SIZE, DEFAULT_CONNECT_TIMEOUT,
                                  DEFAULT_NETWORK_TIMEOUT, DEFAULT_RETRIES)
from ssbench.swift.client import SwiftClient
from ssbench.swift.tokens import HandedTokens
from ssbench.wire.messagecheck import check_from_master, refusal_reason
from ssbench.worker.execution import CONFIGURE_WAIT, StoreJobs
from ssbench.worker.outbox import SUICIDE_LINGER, Outbox

log = logging.getLogger(__name__)

DRAIN_MAX = 256          # messages handled before giving others a turn
# The key of a --rate job's send lag (decoded maps have text keys).
_K_SEND_LAG = text_type('send_lag')


def _dump_profile(profiler, path):
    profiler.dump_stats(path)


class MasterGone(SsbenchError):
    exit_status = 1


class Refused(SsbenchError):
    """The master speaks another wire protocol version, or does not admit
    this worker."""
    exit_status = 1


class Worker(Outbox):
    """One worker process's logic, over a transport (see
    ssbench.wire.transport).

    `auth` (AuthOptions with credentials) comes from the worker's own flags
    or environment; without it the worker waits for a CONFIGURE job and
    uses the token it carries.  `swift_factory(auth, concurrency=,
    retries=, connect_timeout=, network_timeout=[, tokens=])` builds the
    Swift client (injectable for tests).  Swift jobs run in `self.jobs`
    (ssbench.worker.execution.StoreJobs), whose results come back through
    _add_result() into the outbox (ssbench.worker.outbox.Outbox).
    """

    def __init__(self, worker_id, transport, concurrency=64, batch_size=1,
                 retries=DEFAULT_RETRIES, auth=None,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT,
                 block_size=DEFAULT_BLOCK_SIZE, master_timeout=0,
                 profile_count=0, profile_path=None, save_profile=None,
                 flush_interval=1.0, heartbeat_interval=1.0,
                 configure_wait=CONFIGURE_WAIT, swift_factory=SwiftClient,
                 clock=monotonic, local_run=None):
        self.worker_id = worker_id
        self.transport = transport
        self.own_auth = auth if auth is not None and \
            auth.has_credentials() else None
        self.profile_count = profile_count
        # None: a new private file in the temporary directory.
        self.profile_path = profile_path
        # save_profile(profiler, path) writes a path the user named
        # (ssbench.results.safefiles.save_profile: through a rename); the
        # default dumps into the private file, new and ours.
        self.save_profile = save_profile or _dump_profile
        # Host, pid, version, concurrency: in every heartbeat; and a
        # local worker's run token, by which its master knows it.
        self.identity = protocol.identity(concurrency)
        if local_run is not None:
            self.identity['local_run'] = local_run

        self.handed = HandedTokens(self._ask_for_token, configure_wait)
        self.jobs = StoreJobs(
            worker_id, self._add_result, swift_factory, self.handed,
            self._ask_for_token, own_auth=self.own_auth,
            concurrency=concurrency, retries=retries,
            connect_timeout=connect_timeout, network_timeout=network_timeout,
            block_size=block_size, configure_wait=configure_wait,
            clock=clock)
        # CPU, loop lag and jobs waiting, in every heartbeat.
        self.health = HealthMonitor(clock=clock)
        Outbox.__init__(self, batch_size, flush_interval, heartbeat_interval,
                        master_timeout, clock)
        # What a no-op result adds to its job, in result_ok()'s key order.
        self._noop_fields = protocol.result_ok({}, worker_id, 0.0, 0.0,
                                               None, 0, 0.0)
        del self._noop_fields['completed_at']
        self.stopping = False
        self.told_to_exit = False
        # Why the master's protocol version is not ours, once told.
        self.refused = None
        # Why the latest CONFIGURE could not be taken (None: it was, or
        # none came): in every heartbeat while set.
        self.config_refused = None
        # Malformed messages received: dropped and counted.
        self.faults = Faults('from the master', clock=clock)
        self._profiler = None

    # -- the reader ---------------------------------------------------

    def run(self, poll_interval=0.25):
        """Work until SUICIDE (returns) or the master is gone (raises
        MasterGone); always closes the transport."""
        if self.profile_count:
            self._start_profile()
        writer = gevent.spawn(self._write_loop)
        monitor = gevent.spawn(self.health.run)
        # Without the writer no result or heartbeat would leave: stop.
        writer.link_exception(self._writer_failed)
        transport = self.transport
        try:
            while not self.stopping:
                data = transport.recv(poll_interval)
                if data is None:
                    if self.master_gone:
                        raise MasterGone(
                            'no master for %g s (--master-timeout): '
                            'exiting' % self.master_timeout)
                    continue
                self._last_contact = self.clock()
                count = 0
                while data is not None:
                    self.handle_message(data)
                    count += 1
                    if self.stopping or count >= DRAIN_MAX:
                        break
                    data = transport.recv_nowait()
                if self._ready() and not self._flush(0):
                    self._wake.set()    # the writer retries
                if count >= DRAIN_MAX:
                    # Job greenlets and the writer run whenever recv()
                    # waits; messages that keep coming must not starve them.
                    gevent.sleep(0)
            if self.refused is not None:
                raise Refused(self.refused)
            error = self.writer_error
            if error is not None:
                raise SsbenchError(
                    'worker %s: sending results failed (%s: %s): exiting' %
                    (self.worker_id, type(error).__name__, error))
        finally:
            self.stopping = True
            writer.kill()
            monitor.kill()
            self.jobs.stop(timeout=1)
            if self.holding:
                # Their requests were cut short: no result will come, and
                # the master counts them as lost.
                log.warning('worker %s: %d job(s) still running or waiting '
                            'when it stopped: no result for them',
                            self.worker_id, len(self.holding))
            if self.outbox:
                self._final_flush()
            self.faults.summary()
            self._stop_profile()
            self.jobs.close()
            # Told to exit: the last results (the PING answer that names
            # this worker to kill-workers) may still sit in ZMQ's queue.
            transport.close(linger=SUICIDE_LINGER if self.told_to_exit
                            else 0)

    def handle_message(self, data):
        jobs = protocol.decode(data, check_from_master, self.faults,
                               self._dropped)[0]
        if not jobs:
            return
        # No-op jobs, the whole point of --noop runs, are answered here in
        # bulk; anything else goes through handle_job().
        outbox = self.outbox
        fields = self._noop_fields
        head = protocol.result_head
        worker_id = self.worker_id
        now = time.time
        clock = self.clock
        # A --rate job's result says how long this worker had it (see
        # ssbench.results.recordview): from here, on its own clock.
        received = clock()
        answered = 0
        for job in jobs:
            if self.stopping:
                break
            if job.get('noop'):
                result = head(job, worker_id)
                result.update(fields)
                result['completed_at'] = now()
                if _K_SEND_LAG in job:
                    result['worker_time'] = clock() - received
                outbox.append(result)
                answered += 1
            else:
                self.handle_job(job, received)
        if answered:
            self.pending += answered
            # run() flushes after handling what it received: no need to
            # wake the writer greenlet for these.
            self._added(answered, wake=False)

    def handle_job(self, job, received=None):
        """Answer no-op and control jobs inline, spawn the others; a
        --rate job's result gets its worker_time from `received`."""
        kind = job.get('type')
        if job.get('noop') or kind == PING:
            self.pending += 1
            self._add_result(protocol.result_ok(job, self.worker_id, 0.0,
                                                0.0, None, 0))
        elif self.jobs.handles(kind):
            self.pending += 1
            job_id = job.get('job_id')
            if job_id is not None:
                self.holding.add(job_id)
            self.jobs.submit(job, received if _K_SEND_LAG in job
                             else None)
        elif kind == SUICIDE:
            log.info('worker %s told to exit', self.worker_id)
            self.told_to_exit = True
            self.stopping = True
        elif kind == CONFIGURE:
            theirs = job.get('protocol')
            if theirs != protocol.PROTOCOL_VERSION:
                self._refuse(theirs)
                return
            try:
                self.jobs.configure(job)
            except Exception as exc:  # well-formed, yet unusable
                self.faults.add('unusable CONFIGURE', job, exc)
                # The exception's text may quote what it could not use.
                self._refuse_config('unusable CONFIGURE (%s)' %
                                    type(exc).__name__)
            else:
                self.config_refused = None
        elif kind == HEARTBEAT:
            pass
        elif kind == REFUSED:
            self.refused = 'worker %s refused by the master: %s' % (
                self.worker_id, job['reason'])
            self.stopping = True
        elif kind == CLOCK:
            # Returned in the next heartbeat with how long it was held.
            self._probe = (job['sent'], self.clock() if received is None
                           else received)
        else:
            self.pending += 1
            self._add_result(protocol.result_error(
                job, self.worker_id, 'unknown job type %r' % (kind,), '', 0,
                error_class='ValueError'))

    def _dropped(self, record, fault):
        """A record the message check dropped (already counted): a
        CONFIGURE among them leaves this worker unconfigured."""
        if isinstance(record, dict) and record.get('type') == CONFIGURE:
            self._refuse_config(refusal_reason(fault))

    def _refuse_config(self, reason):
        """Take no CONFIGURE for `reason`: said once per reason, and in
        every heartbeat from the next one, which goes out now."""
        if reason != self.config_refused:
            log.error('worker %s refused a CONFIGURE from the master: %s',
                      self.worker_id, reason)
        self.config_refused = reason
        self._ask_for_token()

    def _refuse(self, theirs):
        """The master speaks another protocol (a CONFIGURE without one is
        dropped as malformed by the message check): stop, taking no job."""
        self.refused = (
            'worker %s refused: the master speaks wire protocol version %s, '
            'this worker %s; run workers of the master\'s ssbench version'
            % (self.worker_id, theirs, protocol.PROTOCOL_VERSION))
        self.stopping = True

    def _start_profile(self):
        import cProfile
        if self.profile_path is None:
            fd, self.profile_path = tempfile.mkstemp(
                prefix='ssbench-worker-%s-' % (self.worker_id,),
                suffix='.prof')
            os.close(fd)
        log.info('worker %s profiles its first %d jobs into %s',
                 self.worker_id, self.profile_count, self.profile_path)
        self._profiler = cProfile.Profile()
        self._profiler.enable()

    def _stop_profile(self):
        profiler, self._profiler = self._profiler, None
        if profiler is not None:
            profiler.disable()
            try:
                self.save_profile(profiler, self.profile_path)
            except SsbenchError as exc:    # the jobs go on without it
                log.error('worker %s: %s', self.worker_id, exc)
                return
            log.info('profile of the first %d jobs written to %s',
                     self.jobs_done, self.profile_path)

"""The worker: pull job batches, run them in greenlets, push results.

One reader greenlet (run()) pulls every message already queued, answers
no-op and control jobs inline and hands Swift jobs to `concurrency`
runner greenlets (ssbench.worker.execution.SwiftJobs runs them).  Results
collect in an outbox; whatever is ready at the same moment goes out as one
message once `batch_size` results are waiting, and a partial batch goes out
after `flush_interval` (~1 s) with no new result.  A writer greenlet does the
asynchronous flushing and sends a heartbeat (a one-element control batch)
every `heartbeat_interval`.

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
heartbeats say which version it speaks (protocol.identity).

Master liveness (`master_timeout` > 0): the results socket only accepts a
message while a master is connected, so the worker treats the master as
gone when for `master_timeout` seconds it has received nothing from it and
could not deliver a single heartbeat.  A master that is alive but idle
keeps its connection, so it never trips this; 0 (the default) disables it,
so a standalone worker waits for any number of runs as the original did.
"""
from __future__ import absolute_import, division, print_function

import logging
import os
import tempfile
import time
from numbers import Integral

import gevent
import gevent.event

from ssbench.wire import protocol
from ssbench.compat import monotonic, text_type
from ssbench.errors import SsbenchError
from ssbench.wire.faultlog import Faults
from ssbench.worker.health import HealthMonitor
from ssbench.wire.protocol import (CLOCK, CONFIGURE, HEARTBEAT, PING,
                                   SUICIDE)
from ssbench.swift.client import (DEFAULT_BLOCK_SIZE, DEFAULT_CONNECT_TIMEOUT,
                                  DEFAULT_NETWORK_TIMEOUT, DEFAULT_RETRIES,
                                  SwiftClient)
from ssbench.swift.tokens import HandedTokens
from ssbench.wire.messagecheck import check_from_master
from ssbench.worker.execution import CONFIGURE_WAIT, SwiftJobs

log = logging.getLogger(__name__)

COALESCE_MAX = 1000      # results per message at most (beyond batch_size)
HEARTBEAT_RETRY = 0.02   # first retry of an undelivered heartbeat, doubling
DRAIN_MAX = 256          # messages handled before giving others a turn
# Seconds a worker told to exit gives its unsent results to leave (the
# PING answer among them); closing returns as soon as they are gone.
SUICIDE_LINGER = 5.0
# The key of a --rate job's send lag (decoded maps have text keys).
_K_SEND_LAG = text_type('send_lag')


def _dump_profile(profiler, path):
    profiler.dump_stats(path)


class MasterGone(SsbenchError):
    exit_status = 1


class Refused(SsbenchError):
    """The master speaks another wire protocol version."""
    exit_status = 1


class Worker(object):
    """One worker process's logic, over a transport (see
    ssbench.wire.transport).

    `auth` (AuthOptions with credentials) comes from the worker's own flags
    or environment; without it the worker waits for a CONFIGURE job and
    uses the token it carries.  `swift_factory(auth, concurrency=,
    retries=, connect_timeout=, network_timeout=[, tokens=])` builds the
    Swift client (injectable for tests).  Swift jobs run in `self.jobs`
    (ssbench.worker.execution.SwiftJobs), whose results come back through
    _add_result().
    """

    def __init__(self, worker_id, transport, concurrency=64, batch_size=1,
                 retries=DEFAULT_RETRIES, auth=None,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT,
                 block_size=DEFAULT_BLOCK_SIZE, master_timeout=0,
                 profile_count=0, profile_path=None, save_profile=None,
                 flush_interval=1.0, heartbeat_interval=1.0,
                 configure_wait=CONFIGURE_WAIT, swift_factory=SwiftClient,
                 clock=monotonic):
        self.worker_id = worker_id
        self.transport = transport
        self.batch_size = max(1, int(batch_size))
        self.own_auth = auth if auth is not None and \
            auth.has_credentials() else None
        self.master_timeout = master_timeout
        self.profile_count = profile_count
        # None: a new private file in the temporary directory.
        self.profile_path = profile_path
        # save_profile(profiler, path) writes a path the user named
        # (ssbench.results.safefiles.save_profile: through a rename); the
        # default dumps into the private file, new and ours.
        self.save_profile = save_profile or _dump_profile
        self.flush_interval = flush_interval
        self.heartbeat_interval = heartbeat_interval
        self.clock = clock
        # Host, pid, version, concurrency: in every heartbeat.
        self.identity = protocol.identity(concurrency)

        self.handed = HandedTokens(self._ask_for_token, configure_wait)
        self.jobs = SwiftJobs(
            worker_id, self._add_result, swift_factory, self.handed,
            self._ask_for_token, own_auth=self.own_auth,
            concurrency=concurrency, retries=retries,
            connect_timeout=connect_timeout, network_timeout=network_timeout,
            block_size=block_size, configure_wait=configure_wait,
            clock=clock)
        # CPU, loop lag and jobs waiting, in every heartbeat.
        self.health = HealthMonitor(clock=clock)
        self.outbox = []
        self.pending = 0           # jobs taken whose result is not sent yet
        # Ids of the jobs taken whose result is not in the outbox yet.
        # Heartbeats list them and those of the outbox, so that the master
        # knows exactly which jobs die with this worker (PUSH does not
        # tell it).  Jobs answered inline go straight to the outbox.
        self.holding = set()
        # What a no-op result adds to its job, in result_ok()'s key order.
        self._noop_fields = protocol.result_ok({}, worker_id, 0.0, 0.0,
                                               None, 0, 0.0)
        del self._noop_fields['completed_at']
        self.jobs_done = 0
        self.stopping = False
        self.master_gone = False
        self.told_to_exit = False
        # Why the master's protocol version is not ours, once told.
        self.refused = None
        self.writer_error = None
        # Malformed messages received: dropped and counted.
        self.faults = Faults('from the master', clock=clock)
        self._sending = False
        self._flush_scheduled = False
        self._wake = gevent.event.Event()
        self._heartbeat_soon = False
        self._last_result_at = 0.0
        self._last_contact = clock()
        self._profiler = None
        self._probe = None     # (master's sent, our clock at receipt)

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
                if len(self.outbox) >= self.batch_size and \
                        not self._flush(0):
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

    def _writer_failed(self, writer):
        """The writer greenlet died of an exception: run() stops."""
        log.debug('the writer greenlet failed',
                  exc_info=getattr(writer, 'exc_info', None))
        self.writer_error = writer.exception
        self.stopping = True

    def _final_flush(self):
        """Send what the outbox holds before exiting; say so when some of
        it cannot go."""
        # Told to exit: the PING answer in there names this worker to
        # kill-workers, so give the results connection time.
        timeout = SUICIDE_LINGER if self.told_to_exit else 1.0
        error = None
        try:
            self._flush(timeout, force=True)
        except Exception as exc:  # the results socket is broken
            error = exc
        if self.outbox:
            log.error('worker %s: %d result(s) not sent before exiting, '
                      'lost: %s', self.worker_id, len(self.outbox),
                      'no master took them within %g s' % timeout
                      if error is None else '%s: %s' % (
                          type(error).__name__, error))

    def handle_message(self, data):
        jobs = protocol.decode(data, check_from_master, self.faults)[0]
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
        elif kind == HEARTBEAT:
            pass
        elif kind == CLOCK:
            # Returned in the next heartbeat with how long it was held.
            self._probe = (job['sent'], self.clock() if received is None
                           else received)
        else:
            self.pending += 1
            self._add_result(protocol.result_error(
                job, self.worker_id, 'unknown job type %r' % (kind,), '', 0,
                error_class='ValueError'))

    def _refuse(self, theirs):
        """The master speaks another protocol (a CONFIGURE without one is
        dropped as malformed by the message check): stop, taking no job."""
        self.refused = (
            'worker %s refused: the master speaks wire protocol version %s, '
            'this worker %s; run workers of the master\'s ssbench version'
            % (self.worker_id, theirs, protocol.PROTOCOL_VERSION))
        self.stopping = True

    # -- results ------------------------------------------------------

    def _ask_for_token(self):
        """Have the next heartbeat, which says whether this worker is
        configured and whether its token was rejected, go out now."""
        self._heartbeat_soon = True
        self._wake.set()

    def _add_result(self, result):
        self.outbox.append(result)
        self.holding.discard(result.get('job_id'))
        self._added(1)

    def _added(self, count, wake=True):
        """Bookkeeping after `count` results joined the outbox."""
        self._last_result_at = self.clock()
        self.jobs_done += count
        if self._profiler is not None and \
                self.jobs_done >= self.profile_count:
            self._stop_profile()
        if wake and len(self.outbox) >= self.batch_size and \
                not self._flush_scheduled:
            # Flush once the event loop has run every greenlet that is
            # ready, so that results finishing together go as one
            # message, without a trip through the writer greenlet.
            self._flush_scheduled = True
            gevent.get_hub().loop.run_callback(self._flush_now)

    def _flush_now(self):
        """Runs in the hub: a non-blocking flush, else the writer retries
        (and meets any transport error itself)."""
        self._flush_scheduled = False
        if self.stopping or self._sending:
            return
        try:
            delivered = self._flush(0)
        except Exception:  # the hub must not see it; the writer will
            delivered = False
        if not delivered:
            self._wake.set()

    def _flush(self, timeout, force=False):
        """Send what the outbox holds (all of it, coalesced, when at least
        batch_size results wait or `force`); False if the socket refused."""
        if self._sending:
            return True       # another greenlet is sending; it loops
        outbox = self.outbox
        cap = max(self.batch_size, COALESCE_MAX)
        self._sending = True
        try:
            while outbox and (force or len(outbox) >= self.batch_size):
                batch = outbox[:cap]
                # A no-op job is echoed back as it came: a value msgpack
                # cannot encode again costs its result, not the batch.
                data = protocol.pack_records(batch, self.faults)[0]
                if not self.transport.send(data, timeout):
                    return False
                del outbox[:len(batch)]
                self.pending -= len(batch)
                self._last_contact = self.clock()
            return True
        finally:
            self._sending = False

    def held(self):
        """Ids of the jobs this worker holds: running, waiting for a slot,
        or done with their result not sent yet."""
        held = set(self.holding)
        for result in self.outbox:
            job_id = result.get('job_id')
            # A no-op job's id is not checked: list integers only, as the
            # master expects.
            if isinstance(job_id, Integral) and not isinstance(job_id, bool):
                held.add(job_id)
        return sorted(held)

    def _heartbeat(self):
        """Send a heartbeat now; False if the socket refused it."""
        grant = self.handed.grant if self.own_auth is None else None
        record = protocol.heartbeat(
            self.worker_id, self.held(), self.jobs.configured.is_set(),
            grant and grant.generation,
            grant is not None and self.handed.rejected == grant.generation)
        record.update(self.identity)
        record.update(self.health.sample(self.jobs.waiting()))
        probe, self._probe = self._probe, None
        if probe is not None:
            record['clock_probe'] = [probe[0], self.clock() - probe[1]]
        if self.transport.send(protocol.pack([record]), 0):
            self._last_contact = self.clock()
            return True
        return False

    def _write_loop(self):
        next_beat = self.clock()
        retry = HEARTBEAT_RETRY
        while not self.stopping:
            now = self.clock()
            if now >= next_beat or self._heartbeat_soon:
                self._heartbeat_soon = False
                if self._heartbeat():
                    retry = HEARTBEAT_RETRY
                    next_beat = now + self.heartbeat_interval
                else:
                    # Not connected (yet): the master waits for a first
                    # heartbeat before it starts, so try again soon.
                    next_beat = now + min(retry, self.heartbeat_interval)
                    retry *= 2
                if (self.master_timeout and
                        now - self._last_contact > self.master_timeout):
                    log.warning('no master for %g s', self.master_timeout)
                    self.master_gone = True
                    return
            delivered = True
            if self.outbox:
                idle = now - self._last_result_at >= self.flush_interval
                delivered = self._flush(0.5, force=idle)
            wait = next_beat - self.clock()
            if self.outbox:
                if not delivered:
                    wait = min(wait, 0.1)
                else:
                    wait = min(wait, self._last_result_at +
                               self.flush_interval - self.clock())
            # Never spin: a due (or overdue) deadline still sleeps 10 ms.
            self._wake.wait(max(0.01, wait))
            self._wake.clear()

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

"""A worker's sending half: the outbox of results, and the writer
greenlet that flushes it and sends heartbeats.

Results collect in the outbox; whatever is ready at the same moment goes out
as one message once `batch_size` results are waiting.  A worker that holds
no job any more (none running, none waiting for a slot) sends what it has
at once: nothing would fill the batch, and the master, which sends no more
jobs than it has room for, may be waiting for exactly these.  A worker
with jobs in flight sends a partial batch after `flush_interval` (~1 s)
with no new result.  The writer
greenlet does the asynchronous flushing and sends a heartbeat (a one-element
control batch) every `heartbeat_interval`, listing the jobs the worker holds.

Master liveness (`master_timeout` > 0): the work connection only accepts a
heartbeat while a master is connected, so the worker treats the master as
gone when for `master_timeout` seconds it has received nothing from it and
could not deliver a single heartbeat.  A master that is alive but idle
keeps its connection, so it never trips this; 0 (the default) disables it,
so a standalone worker waits for any number of runs as the original did.
"""
from __future__ import absolute_import, division, print_function

import logging
from numbers import Integral

import gevent
import gevent.event

from ssbench.wire import protocol
from ssbench.wire.wirelimits import RESULTS_SPLIT

# The worker's log, where these lines always were.
log = logging.getLogger('ssbench.worker.mainloop')

# Results per batch at most (beyond batch_size); a batch leaves as one
# message, or as several back to back when it packs larger than the
# master takes (RESULTS_SPLIT bytes).
COALESCE_MAX = 1000
HEARTBEAT_RETRY = 0.02   # first retry of an undelivered heartbeat, doubling
# Seconds a worker told to exit gives its unsent results to leave (the
# PING answer among them); closing returns as soon as they are gone.
SUICIDE_LINGER = 5.0


class Outbox(object):
    """The sending half of ssbench.worker.mainloop.Worker, its base class.

    The worker provides worker_id, transport, faults, stopping,
    told_to_exit, config_refused, the Swift jobs (jobs, handed, own_auth),
    health, identity and its profile (_profiler, profile_count,
    _stop_profile()).
    """

    def __init__(self, batch_size, flush_interval, heartbeat_interval,
                 master_timeout, clock):
        self.batch_size = max(1, int(batch_size))
        self.flush_interval = flush_interval
        self.heartbeat_interval = heartbeat_interval
        self.master_timeout = master_timeout
        self.clock = clock
        self.outbox = []
        self.pending = 0           # jobs taken whose result is not sent yet
        # Ids of the jobs taken whose result is not in the outbox yet.
        # Heartbeats list them and those of the outbox, so that the master
        # knows exactly which jobs die with this worker.  Jobs answered
        # inline go straight to the outbox.
        self.holding = set()
        self.jobs_done = 0
        self.master_gone = False
        self.writer_error = None
        self._sending = False
        self._due = 0              # results of a batch begun, still to go
        self._flush_scheduled = False
        self._wake = gevent.event.Event()
        self._heartbeat_soon = False
        self._last_result_at = 0.0
        self._last_contact = clock()
        self._probe = None     # (master's sent, our clock at receipt)

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

    def _ask_for_token(self):
        """Have the next heartbeat, which says whether this worker is
        configured and whether its token was rejected, go out now."""
        self._heartbeat_soon = True
        self._wake.set()

    def _add_result(self, result):
        self.outbox.append(result)
        self.holding.discard(result.get('job_id'))
        self._added(1)

    def _idle(self):
        """True when every job taken has its result in the outbox (or
        sent): no job runs or waits for a slot here."""
        return self.pending <= len(self.outbox)

    def _ready(self):
        """True when the outbox should go now: a full batch, or any
        result of a worker that holds no job any more."""
        return len(self.outbox) >= self.batch_size or \
            (bool(self.outbox) and self._idle())

    def _added(self, count, wake=True):
        """Bookkeeping after `count` results joined the outbox."""
        self._last_result_at = self.clock()
        self.jobs_done += count
        if self._profiler is not None and \
                self.jobs_done >= self.profile_count:
            self._stop_profile()
        if wake and not self._flush_scheduled and self._ready():
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
        batch_size results wait, the worker is idle, or `force`); False if
        the socket refused."""
        if self._sending:
            return True       # another greenlet is sending; it loops
        outbox = self.outbox
        cap = max(self.batch_size, COALESCE_MAX)
        self._sending = True
        try:
            while outbox and (force or self._due or self._ready()):
                if not self._due:
                    self._due = min(len(outbox), cap)
                # A no-op job is echoed back as it came: a value msgpack
                # cannot encode again costs its result, not the batch.
                data, used = protocol.pack_prefix(
                    outbox[:self._due], RESULTS_SPLIT, self.faults)
                if data is not None:
                    if not self.transport.send(data, timeout):
                        return False
                    self._last_contact = self.clock()
                del outbox[:used]
                self.pending -= used
                self._due -= used
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
            grant is not None and self.handed.rejected == grant.generation,
            self.config_refused)
        record.update(self.identity)
        record.update(self.health.sample(self.jobs.waiting()))
        probe, self._probe = self._probe, None
        if probe is not None:
            record['clock_probe'] = [probe[0], self.clock() - probe[1]]
        # On the work connection: the master learns which connection this
        # worker is (the first heartbeat asks to be admitted).
        if self.transport.send_control(protocol.pack([record]), 0):
            self._last_contact = self.clock()
            return True
        return False

    def _write_loop(self):
        """The writer greenlet: a heartbeat when due and a flush of the
        outbox (a partial batch once no result came for flush_interval),
        until the worker stops or the master is gone."""
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
                quiet = now - self._last_result_at >= self.flush_interval
                delivered = self._flush(0.5, force=quiet)
            wait = next_beat - self.clock()
            if self.outbox:
                # Left over though ready: refused, or another greenlet's
                # send is under way; look again soon.
                if not delivered or self._ready():
                    wait = min(wait, 0.1)
                else:
                    wait = min(wait, self._last_result_at +
                               self.flush_interval - self.clock())
            # Never spin: a due (or overdue) deadline still sleeps 10 ms.
            self._wake.wait(max(0.01, wait))
            self._wake.clear()

"""One phase of a run: what a Master.run_jobs() call has in flight.

Phase sends jobs into whatever room there is (in messages sized for the
live workers, each to the least loaded admitted worker, see
ssbench.master.admission), takes in each message of results (a result
counts only when its job was sent to the worker it names; anything else,
heartbeats included, is dropped and counted) and hands each message of
results to the phase's pipeline (ssbench.master.pipeline), counting them
in PhaseStats.  The master's loop
(ssbench.master.dispatch) decides when each step runs and when the phase ends.
"""
from __future__ import absolute_import, division, print_function

import logging
from functools import partial
from itertools import islice, repeat, takewhile
from operator import is_not, itemgetter

from ssbench.load.jobgen import FORCE, WAIT
from ssbench.master.pipeline import Message, Pipeline
from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire.wirelimits import JOBS_SPLIT

log = logging.getLogger(__name__)

_NOBODY = object()     # a worker id no record carries
_PEER = itemgetter(2)   # of an outstanding entry, (job, sent at, Peer)
# Jobs that fit at once go out in at least this many messages, so that a
# worker can start on one while the master still sends.
MIN_MESSAGES = 2


class PhaseStats(object):
    """What a phase did: counts only, results themselves go elsewhere."""

    def __init__(self):
        self.sent = 0
        self.received = 0
        self.errors = 0
        self.interrupted = False
        # Messages of results taken on their bytes, and decoded.
        self.scanned = 0
        self.decoded = 0
        # Turns the jobs waited for objects in use (jobgen.WAIT), leaving
        # room unused; jobs that took one anyway (jobgen.FORCE).
        self.held_back = 0
        self.forced = 0
        # Jobs still out when an interrupted phase stopped waiting.
        self.unanswered = 0

    def __repr__(self):
        return 'PhaseStats(sent=%d, received=%d, errors=%d%s)' % (
            self.sent, self.received, self.errors,
            ', interrupted' if self.interrupted else '')


_NOT_WAIT = partial(is_not, WAIT)


class Phase(object):
    """The state of one run_jobs() call, and its per-message steps."""

    def __init__(self, master, jobs, pipeline=None):
        self.master = master
        self.jobs = iter(jobs)
        self.pipeline = pipeline = pipeline or Pipeline()
        # Unless a sink needs every record, plain successes are taken on
        # their bytes, with the values of the keys the sinks count.
        self.shapes = None if pipeline.decode else master.shapes
        if self.shapes is not None:
            self.shapes.capture(pipeline.fields)
        self.stats = PhaseStats()
        self.exhausted = False
        # The jobs wait for results to free objects (jobgen.WAIT): the
        # loop waits for a message, not for the next job's time.
        self.blocked = False
        self.pending = []      # [jobs of one message] the socket refused
        self.transport = master.transport
        self.tracker = master.tracker
        self.outstanding = master.tracker.outstanding
        self.schedule = master.schedule

    def message_cap(self):
        """Most jobs one message carries: a live worker's share of
        user_count (user_count / max(live workers, MIN_MESSAGES)), or
        one --batch-size batch when that is more.

        One ZMQ message per --batch-size jobs would cost the master (and
        the workers) most of their time when room for many jobs opens at
        once, so the master packs more into a message: the wire is ours,
        and workers take any number of jobs per message.  It stops short
        of one message for everything so that every live worker gets
        some of it, and so that a worker can start on one
        message while the master still handles the results of another.
        """
        parts = max(MIN_MESSAGES, len(self.tracker.workers))
        return max(self.master.batch_size,
                   -(-self.master.user_count // parts))

    def _messages(self, batch):
        """Split jobs sent in one go into messages of at most
        message_cap() jobs: whole batches (the last one short when room or
        jobs ran out) when a batch is a worker's share or more, else as
        even as can be.  Messages of whole batches when the share is not
        one (-u 24, --batch-size 8, two workers: 16 and 8 jobs) kept one
        worker waiting on the other: even ones (12 and 12) carry 1.15 of
        their rate in a --noop run, and a worker sends its results once
        a batch is complete or it holds no job, however they came."""
        size = self.master.batch_size
        count = len(batch)
        cap = self.message_cap()
        if count <= cap:
            return [batch]
        if cap <= size:
            return [batch[start:start + size]
                    for start in range(0, count, size)]
        parts = -(-count // cap)
        per, extra = divmod(count, parts)
        messages = []
        start = 0
        for index in range(parts):
            end = start + per + (index < extra)
            messages.append(batch[start:end])
            start = end
        return messages

    def deliver(self, results, data=None):
        """Count decoded results and hand them to the pipeline as a
        Message of `data` (their bytes as received, or None: re-packed
        when a sink needs bytes)."""
        pipeline = self.pipeline
        if data is None and pipeline.packed:
            data, results = protocol.pack_records(results,
                                                  self.master.faults)
        stats = self.stats
        stats.received += len(results)
        for result in results:
            if 'exception' in result:
                stats.errors += 1
        if results and pipeline.takers:
            pipeline.results(Message(data, results))

    def fill(self):
        """Send jobs into whatever room there is (unless the socket still
        holds back earlier ones)."""
        if self.pending:
            if self.outstanding:
                self.send_pending(0)
            return
        if self.exhausted:
            return
        master = self.master
        # Jobs held by stalled workers leave room for others.
        room = master.user_count - len(self.outstanding) + \
            master.admission.stalled_out
        schedule = self.schedule
        if schedule is not None:
            now = master.monotonic()
            if schedule.over(now):
                # A timed run's deadline: what is still due goes unsent
                # and is counted so.
                self.exhausted = True
                schedule.close(now)
                return
            intended = schedule.take(now, room)
            room = len(intended)
        if room <= 0:
            return
        self.blocked = False
        batch = list(islice(takewhile(_NOT_WAIT, self.jobs), room))
        if len(batch) < room:
            if self._at_wait():
                self.stats.held_back += 1
                batch = self._after_wait(batch)
            else:
                self.exhausted = True
            if schedule is not None:
                schedule.unused(room - len(batch))
                if self.exhausted:
                    schedule.close(master.monotonic())
        if not batch:
            return
        job_id = master.next_job_id
        for job in batch:
            job['job_id'] = job_id
            job_id += 1
        master.next_job_id = job_id
        if schedule is not None:
            epoch = schedule.epoch
            for job, when in zip(batch, intended):
                job['intended_start'] = epoch(when)
        self.pending.extend(self._messages(batch))
        self.send_pending(0)

    def _at_wait(self):
        """True if the jobs stopped at a jobgen.WAIT, not at their end (a
        generator that has not returned still has its frame)."""
        return getattr(self.jobs, 'gi_frame', None) is not None

    def _after_wait(self, batch):
        """The jobs' generator waits for objects in use to be freed.  With
        nothing out, nothing will free them: it is told to take one anyway
        (jobgen.FORCE), so that a run never waits forever."""
        if batch or self.outstanding or self.pending:
            self.blocked = True
            return batch
        try:
            job = self.jobs.send(FORCE)
        except StopIteration:
            self.exhausted = True
            return batch
        if job is WAIT:     # a generator of another kind: wait for it
            self.blocked = True
            return batch
        self.stats.forced += 1
        return [job]

    def wait(self, longest):
        """How long the loop may wait for a message: `longest`, or in a
        --rate run until the next job is due if there is room for it,
        and never past a timed run's deadline."""
        schedule = self.schedule
        if schedule is None or self.exhausted or self.pending or \
                self.blocked:
            return longest
        if len(self.outstanding) - self.master.admission.stalled_out < \
                self.master.user_count:
            until = schedule.next_send()
        elif schedule.deadline is not None:
            until = schedule.deadline
        else:
            return longest
        return min(longest, max(0.0, until - self.master.monotonic()))

    def stop(self):
        """Send nothing more: the jobs not sent yet are dropped (in a
        --rate run, counted as unsent by the schedule)."""
        self.exhausted = True
        schedule = self.schedule
        if schedule is not None:
            offset = schedule.epoch_offset
            schedule.close(self.master.monotonic(), [
                job['intended_start'] - offset
                for batch in self.pending for job in batch])
        del self.pending[:]

    def send_pending(self, timeout):
        """Send queued messages in order, each to the admitted worker
        Admission.choose() picks; False if one could not go (no admitted
        worker that is not stalled, or its queue full for `timeout`
        seconds)."""
        pending = self.pending
        send_to = self.transport.send_to
        clock = self.master.monotonic
        schedule = self.schedule
        clocks = self.master.clocks
        admission = self.master.admission
        while pending:
            peer = admission.choose()
            if peer is None:
                return False
            batch = pending[0]
            if schedule is not None:
                # Each job carries how late it left, on this clock.
                schedule.stamp(batch, clock())
            probe = clocks.probe() if clocks is not None else None
            message = batch if probe is None else batch + [probe]
            data = protocol.pack(message)
            if len(data) > JOBS_SPLIT and len(batch) > 1:
                # Within what a worker takes (ssbench.wire.wirelimits):
                # in halves, each sent (and split) in turn.
                half = len(batch) // 2
                pending[0:1] = [batch[:half], batch[half:]]
                continue
            sent = send_to(peer.peer, data, timeout)
            if sent is None:
                # Its connection is gone: the next worker gets the batch.
                admission.forget(peer)
                continue
            if not sent:
                return False
            del pending[0]
            peer.out += len(batch)
            self.tracker.sent(batch, clock(), peer)
            if schedule is not None:
                schedule.sent(batch)
            self.stats.sent += len(batch)
        return True

    def receive(self, data, now):
        """Account for one received message and deliver its results."""
        shapes = self.shapes
        if shapes is not None:
            scanned = shapes.scan(data)
            if scanned is not None and self._take_scanned(scanned, data,
                                                          now):
                return
        records, intact = protocol.decode(data, check_from_worker,
                                          self.master.faults)
        if shapes is not None and records:
            shapes.learn(records)
        if not intact:
            data = None
        pop = self.outstanding.pop
        seen = self.tracker.seen
        worker_id = _NOBODY
        stale = None
        control = False
        for record in records:
            if record.get('type') == HEARTBEAT:
                control = True
                continue
            job_id = record.get('job_id')
            entry = pop(job_id, None)
            if entry is None or entry[2].worker_id != \
                    record.get('worker_id'):
                # Proves nobody alive: a result of no job out, or of a
                # job sent to another worker, may be anyone's.
                if entry is not None:
                    self.outstanding[job_id] = entry
                if stale is None:
                    stale = []
                stale.append(record)
                continue
            self._answered(entry[2], 1)
            if record.get('worker_id') != worker_id:
                worker_id = record.get('worker_id')
                seen(worker_id, now)
        results = records
        if control:
            results = self.master.results_of(records, now)
            data = None
        if stale is not None:
            results = self._drop_stale(results, stale)
            data = None
        if results:
            self.stats.decoded += 1
            self.deliver(results, data)

    def _take_scanned(self, scanned, data, now):
        """Account for a message of successes checked on its bytes:
        False (nothing done) unless every job is out, once, sent to the
        worker the message names, for the full way to tell what is
        wrong."""
        job_ids, worker_id, captured = scanned
        outstanding = self.outstanding
        # In C loops: this runs for most results of a run.
        entries = list(map(outstanding.pop, job_ids, repeat(None)))
        if None not in entries:
            peer = entries[0][2]
            if peer.worker_id != worker_id or \
                    list(map(_PEER, entries)).count(peer) != len(entries):
                peer = None
        else:
            peer = None
        if peer is None:
            # A job not out, twice in the message, or sent to another
            # worker: put back what was taken, and let the full way tell
            # which.
            for job_id, entry in zip(job_ids, entries):
                if entry is not None:
                    outstanding[job_id] = entry
            return False
        self._answered(peer, len(entries))
        self.tracker.seen(worker_id, now)
        self.stats.scanned += 1
        self.stats.received += len(entries)
        takers = self.pipeline.takers
        if takers:
            message = Message(data, entries=entries,
                              faults=self.master.faults, captured=captured)
            for take in takers:     # this runs for most results of a run
                take(message)
        return True

    def _answered(self, peer, count):
        """`count` jobs sent to `peer` (a Peer) were answered."""
        peer.out -= count
        if peer.stalled:
            self.master.admission.stalled_out -= count

    def _drop_stale(self, results, stale):
        """Results of jobs already counted as lost (or of no job out to
        the worker they name: a duplicate, or a stray peer) are not
        stored."""
        master = self.master
        late = [r for r in stale if r.get('job_id') in master.lost_job_ids]
        if late:
            log.warning('%d result(s) arrived for jobs already counted as '
                        'lost; not stored', len(late))
        if len(late) < len(stale):
            # A duplicate, or a peer that guesses: one log line per
            # interval, however many come.
            for record in stale:
                if record.get('job_id') not in master.lost_job_ids:
                    master.faults.add('result of no job in flight',
                                      record.get('job_id'),
                                      claimed=record.get('worker_id'))
        stale_ids = set(id(record) for record in stale)
        return [r for r in results if id(r) not in stale_ids]

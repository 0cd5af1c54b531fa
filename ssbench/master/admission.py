"""Which connections on the work port are workers, and which has room.

A worker's connection (its routing id on the master's ROUTER) is admitted
on its first heartbeat when that speaks this master's wire protocol, it
names no local run (`local_run`) but this master's own local workers' (a
worker of `--workers N` left behind by an earlier master is refused), its
worker id is not held by another admitted connection heard from lately,
and fewer than MAX_WORKERS are admitted.  Any other connection is refused:
it is told why once (again at most every REFUSAL_REPEAT seconds) and never
sent a job.  Only admitted workers get jobs, each message to the least
loaded (the fewest jobs held for its concurrency), the one that waited
longest among equals: a worker admitted late gets its share from then on,
even under a load that never fills one worker; a worker silent for
STALL_SECONDS is stalled: it gets nothing new, and the jobs it holds no
longer count against the run's user_count.  A new connection naming the id
of a stalled (or lost) worker takes the id over: a worker killed and
started again under its id is admitted once its earlier process has been
silent for STALL_SECONDS (sooner, it is refused, naming the holder); the
Peer it gets `replaces` the earlier one, whose jobs out the registry
counts as lost.  Pure bookkeeping: clock values are passed in.
"""
from __future__ import absolute_import, division, print_function

from ssbench.wire import protocol

# Workers admitted at most: each costs the master a little memory and a
# line when it is lost, and a peer forging heartbeats must not cost more.
MAX_WORKERS = 1024
# Seconds without a heartbeat (workers send one each second) after which
# a worker gets no new job and its jobs stop holding the run's room.
STALL_SECONDS = 2.0
# A connection that keeps asking is told (and its refusal logged) at most
# this often.
REFUSAL_REPEAT = 10.0
# Connections whose refusal is remembered at most (for REFUSAL_REPEAT);
# beyond, refusals are only counted.
MAX_REFUSALS = 4096
# A worker never chosen comes before any chosen once.
_NEVER_CHOSEN = 1 << 62


class Peer(object):
    """One admitted worker connection."""

    __slots__ = ('peer', 'worker_id', 'host', 'pid', 'concurrency', 'out',
                 'beat_at', 'stalled', 'replaces', 'turn')

    def __init__(self, peer, record, now, turn=0):
        self.peer = peer
        self.worker_id = record.get('worker_id')
        self.host = record.get('host')
        self.pid = record.get('pid')
        concurrency = record.get('concurrency')
        self.concurrency = max(1, concurrency) if isinstance(
            concurrency, int) else 1
        self.out = 0            # jobs sent to it and not answered
        self.beat_at = now
        self.stalled = False
        self.replaces = None    # the Peer whose id it took over, if any
        # When it was last chosen (Admission.choose); before that, its
        # place in the order of admission less _NEVER_CHOSEN.
        self.turn = turn

    def __repr__(self):
        return 'worker %s (%s, pid %s)' % (
            self.worker_id, self.host or 'host unknown',
            'unknown' if self.pid is None else self.pid)


def _no_event(event, worker_id=None, text=None):
    """The event sink of an Admission given none."""


class Admission(object):
    """The admitted worker connections, and the refused ones lately.

    `events` (a ssbench.master.runevents.RunEvents) hears of each
    connection admitted."""

    events = staticmethod(_no_event)

    def __init__(self, limit=MAX_WORKERS, stall=STALL_SECONDS,
                 repeat=REFUSAL_REPEAT, remember=MAX_REFUSALS):
        self.limit = limit
        self.stall = stall
        self.repeat = repeat
        self.remember = remember
        self.by_peer = {}       # routing id -> Peer
        self.by_id = {}         # worker id -> Peer
        # Jobs held by stalled workers: not counted against user_count.
        self.stalled_out = 0
        self._told = {}         # routing id -> when last told it is refused
        # Routing id -> why a connection once admitted is no longer (it
        # refused its configuration); at most `remember` of them.
        self.barred = {}
        self.refusals = 0       # heartbeats refused, all told
        self._turns = 0         # choose() calls that found a worker
        # The token of this master's local workers (LocalWorkers.token),
        # None without them.
        self.local_run = None
        self._admitted = 0      # connections admitted, all told

    def heartbeat(self, peer, record, now):
        """(Peer, None) for a heartbeat of an admitted connection (now
        admitted, or already), else (None, reason) when `peer` is refused,
        the reason None when it was told lately (say nothing)."""
        known = self.by_peer.get(peer)
        if known is not None:
            if record.get('worker_id') != known.worker_id:
                return None, self._refusal(
                    peer, now, 'this connection is worker %s, not %s' % (
                        known.worker_id, record.get('worker_id')))
            known.beat_at = now
            if known.stalled:
                known.stalled = False
                self.stalled_out -= known.out
            return known, None
        reason = self.barred.get(peer) or self._why_not(record, now)
        if reason is not None:
            return None, self._refusal(peer, now, reason)
        self._admitted += 1
        admitted = Peer(peer, record, now,
                        turn=self._admitted - _NEVER_CHOSEN)
        held = self.by_id.get(admitted.worker_id)
        if held is not None:
            self.forget(held)       # stalled: the new connection takes over
            admitted.replaces = held
        self.by_peer[peer] = admitted
        self.by_id[admitted.worker_id] = admitted
        self._told.pop(peer, None)
        self.events('worker_joined', admitted.worker_id, 'pid %s on %s' % (
            admitted.pid, admitted.host))
        return admitted, None

    def _why_not(self, record, now):
        theirs = record.get('protocol')
        if theirs != protocol.PROTOCOL_VERSION:
            return 'it speaks wire protocol %s, this master version %d' % (
                'with no version' if theirs is None else
                'version %s' % (theirs,), protocol.PROTOCOL_VERSION)
        local_run = record.get('local_run')
        if local_run is not None and local_run != self.local_run:
            return ('it is a local worker (--workers) of another master\'s '
                    'run, left behind when that master ended')
        held = self.by_id.get(record.get('worker_id'))
        if held is not None and now - held.beat_at <= self.stall:
            return 'worker id %s is held by %s' % (held.worker_id, held)
        if len(self.by_peer) >= self.limit:
            return 'the master admits at most %d workers' % self.limit
        return None

    def _refusal(self, peer, now, reason):
        """`reason`, or None when `peer` was told lately (or too many
        refused connections are remembered to tell it again later)."""
        self.refusals += 1
        told = self._told
        last = told.get(peer)
        if last is not None and now - last < self.repeat:
            return None
        if last is None and len(told) >= self.remember:
            for key, when in list(told.items()):
                if now - when >= self.repeat:
                    del told[key]
            if len(told) >= self.remember:
                return None
        told[peer] = now
        return reason

    def forget(self, admitted):
        """`admitted` (a Peer) is gone: lost, or replaced."""
        if self.by_peer.get(admitted.peer) is admitted:
            del self.by_peer[admitted.peer]
        if self.by_id.get(admitted.worker_id) is admitted:
            del self.by_id[admitted.worker_id]
        if admitted.stalled:
            self.stalled_out -= admitted.out
            admitted.stalled = False

    def bar(self, admitted, reason, now):
        """`admitted` (a Peer) is refused from now on for `reason`, told
        it at `now`."""
        self.forget(admitted)
        if len(self.barred) < self.remember:
            self.barred[admitted.peer] = reason
        self._told[admitted.peer] = now

    def forget_id(self, worker_id):
        """The worker of that id was declared lost."""
        admitted = self.by_id.get(worker_id)
        if admitted is not None:
            self.forget(admitted)

    def check(self, now):
        """Mark workers silent for `stall` seconds stalled; the newly
        stalled ones."""
        stalled = []
        for admitted in self.by_peer.values():
            if not admitted.stalled and now - admitted.beat_at > self.stall:
                admitted.stalled = True
                self.stalled_out += admitted.out
                stalled.append(admitted)
        return stalled

    def choose(self):
        """The admitted worker, not stalled, the least loaded (jobs held
        for its concurrency) and, among equals, chosen longest ago (None
        if there is none).

        0.3.9's PUSH socket dealt jobs round the connected workers; the
        most room alone sent every job of a light load (one out at a
        time) to the same worker, and none to one admitted late.
        """
        best = None
        for admitted in self.by_peer.values():
            if admitted.stalled:
                continue
            if best is None:
                best = admitted
                continue
            # out / concurrency compared without division: exact.
            mine = admitted.out * best.concurrency
            theirs = best.out * admitted.concurrency
            if mine < theirs or mine == theirs and \
                    admitted.turn < best.turn:
                best = admitted
        if best is not None:
            self._turns += 1
            best.turn = self._turns
        return best

    def recount(self, entries):
        """Set each worker's jobs out from the outstanding `entries`
        ((job, sent_at, Peer) each), after jobs were given up."""
        for admitted in self.by_peer.values():
            admitted.out = 0
        for entry in entries:
            entry[2].out += 1
        self.stalled_out = sum(admitted.out for admitted in
                               self.by_peer.values() if admitted.stalled)

"""Which jobs are out, which worker holds them, and which workers are lost.

Workers list the ids of the jobs they hold in every heartbeat (about once
a second); each job also names the admitted worker it was sent to
(ssbench.master.admission.Peer), which is who may answer it.  A worker
silent for `timeout` seconds is lost: the jobs its last heartbeat listed
are lost with it.  Jobs no live worker claims (they sat in a dead worker's
socket queue) are declared lost once every live worker has sent a
heartbeat well after the job was sent without listing it.  Jobs can also
vanish with no worker lost (a peer that pulls jobs but never heartbeats,
or a libzmq that drops a message during a failed CURVE handshake); those
are declared lost after a longer grace, so that a run never waits forever.
"""
from __future__ import absolute_import, division, print_function

import logging
from itertools import repeat
from operator import itemgetter

from ssbench.master.recentids import RecentIds

log = logging.getLogger(__name__)

# With no worker lost, an unclaimed job is given this many timeouts before
# it is declared lost: it may just be queued behind a busy worker.
ORPHAN_GRACE_FACTOR = 3
_JOB_ID = itemgetter('job_id')

# A heartbeat must be this much newer than a job's send time before its
# silence about the job counts: time for the job to reach the worker.
CLAIM_MARGIN = 1.0
# Ids of lost workers remembered (to say one is back, and to name them
# when all are lost); older ones are only counted.
LOST_WORKER_IDS = 100


class _Worker(object):
    __slots__ = ('worker_id', 'last_seen', 'beat_at', 'holds')

    def __init__(self, worker_id, now):
        self.worker_id = worker_id
        self.last_seen = now
        self.beat_at = None       # time of the latest heartbeat with ids
        self.holds = frozenset()


def _no_event(event, worker_id=None, text=None):
    """The event sink of a LivenessTracker given none."""


class LivenessTracker(object):
    """Pure bookkeeping (clock values are passed in) for Master.

    `events` (a ssbench.master.runevents.RunEvents) hears of each worker
    lost, and of each one back after being lost."""

    events = staticmethod(_no_event)

    def __init__(self, timeout):
        self.timeout = timeout
        self.workers = {}          # worker_id -> _Worker, live ones
        self.lost_ids = RecentIds(LOST_WORKER_IDS)  # declared lost
        self.outstanding = {}      # job_id -> (job, sent_at, Peer)
        self._last_lost = None

    # -- events -----------------------------------------------------------

    def sent(self, jobs, now, peer):
        """`jobs` went to `peer` (an admitted worker) at `now`."""
        # In C loops: the master calls this for every job it sends.
        self.outstanding.update(zip(map(_JOB_ID, jobs),
                                    zip(jobs, repeat(now), repeat(peer))))

    def seen(self, worker_id, now):
        """Any message from a worker proves it alive."""
        worker = self.workers.get(worker_id)
        if worker is None:
            if worker_id in self.lost_ids:
                log.warning('worker %s is back after being declared lost',
                            worker_id)
                self.lost_ids.discard(worker_id)
                self.events('worker_back', worker_id, None)
            worker = self.workers[worker_id] = _Worker(worker_id, now)
        worker.last_seen = now
        return worker

    def heartbeat(self, worker_id, job_ids, now):
        worker = self.seen(worker_id, now)
        if isinstance(job_ids, (list, tuple)):
            worker.holds = frozenset(job_ids)
            worker.beat_at = now

    def drop(self, worker_id, why):
        """Declare `worker_id` lost now, for `why` (it will not work);
        the jobs out to it are the caller's to give up."""
        self.workers.pop(worker_id, None)
        self.lost_ids.add(worker_id)
        self._last_lost = worker_id
        self.events('worker_lost', worker_id, why)

    def done(self, job_id):
        """A result came back; False if the job was already given up."""
        return self.outstanding.pop(job_id, None) is not None

    # -- verdicts ---------------------------------------------------------

    def live(self):
        return sorted(self.workers, key=str)

    def check(self, now):
        """Declare silent workers lost; return [(worker_id, job)] of jobs
        to record as lost (they are no longer outstanding)."""
        lost = []
        for worker in list(self.workers.values()):
            if now - worker.last_seen <= self.timeout:
                continue
            del self.workers[worker.worker_id]
            self.lost_ids.add(worker.worker_id)
            self._last_lost = worker.worker_id
            log.error('worker %s lost: nothing heard from it for %.0f s',
                      worker.worker_id, now - worker.last_seen)
            self.events('worker_lost', worker.worker_id, None)
            for job_id in sorted(worker.holds):
                entry = self.outstanding.pop(job_id, None)
                if entry is not None:
                    lost.append((worker.worker_id, entry[0]))
        lost.extend(self._orphans(now))
        return lost

    def _orphans(self, now):
        """Outstanding jobs no live worker claims, judged only by
        heartbeats sent long enough after the job was."""
        beats = [w for w in self.workers.values() if w.beat_at is not None]
        if len(beats) != len(self.workers):
            return []       # some worker never listed its jobs: no verdict
        oldest_beat = min([w.beat_at for w in beats] or [now])
        claimed = set()
        for worker in beats:
            claimed.update(worker.holds)
        grace = self.timeout
        if self._last_lost is None:
            grace *= ORPHAN_GRACE_FACTOR
        orphans = []
        for job_id, (job, sent_at, _) in list(self.outstanding.items()):
            if sent_at + CLAIM_MARGIN <= oldest_beat and \
                    now - sent_at > grace and job_id not in claimed:
                del self.outstanding[job_id]
                orphans.append((self._last_lost, job))
        return orphans

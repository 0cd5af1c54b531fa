from __future__ import absolute_import, division, print_function

from ssbench.master.liveness import LivenessTracker


def job(i):
    return {'job_id': i, 'type': 'get_object'}


def test_silent_worker_is_lost_with_the_jobs_it_listed():
    t = LivenessTracker(timeout=5)
    t.sent([job(1), job(2), job(3)], 0, None)
    t.heartbeat('a', [1, 2], now=1)
    t.heartbeat('b', [3], now=1)
    t.heartbeat('b', [3], now=6.5)
    assert t.check(now=6.5) == [('a', job(1)), ('a', job(2))]
    assert t.live() == ['b'] and set(t.lost_ids) == set(['a'])
    assert list(t.outstanding) == [3]


def test_a_dropped_worker_is_lost_at_once_its_jobs_left_to_the_caller():
    t = LivenessTracker(timeout=5)
    seen = []
    t.events = lambda *event: seen.append(event)
    t.sent([job(1)], 0, None)
    t.heartbeat('a', [1], now=1)
    t.heartbeat('b', [], now=1)
    t.drop('a', 'it refused its configuration')
    assert t.live() == ['b'] and set(t.lost_ids) == set(['a'])
    assert seen == [('worker_lost', 'a', 'it refused its configuration')]
    assert list(t.outstanding) == [1]


def test_results_done_are_not_lost():
    t = LivenessTracker(timeout=5)
    t.sent([job(1), job(2)], 0, None)
    t.heartbeat('a', [1, 2], now=1)
    assert t.done(1) is True
    assert t.check(now=7) == [('a', job(2))]
    assert t.done(2) is False     # late result for a job given up


def test_orphans_need_fresh_heartbeats_from_every_live_worker():
    t = LivenessTracker(timeout=5)
    t.heartbeat('a', [], now=0)
    t.heartbeat('b', [], now=0)
    t.sent([job(1)], 0.5, None)      # went to a's queue, never listed
    t.heartbeat('b', [], now=1.0)  # too soon after the send to judge
    assert t.check(now=6) == []    # a is lost; b's beat is not fresh
    t.heartbeat('b', [], now=6.2)
    assert t.check(now=6.3) == [('a', job(1))]


def test_claimed_jobs_are_not_orphans():
    t = LivenessTracker(timeout=5)
    t.heartbeat('a', [], now=0)
    t.sent([job(1)], 0.5, None)
    t.heartbeat('b', [1], now=2)
    t.heartbeat('b', [1], now=7)
    assert t.check(now=7) == []
    assert list(t.outstanding) == [1]


def test_unclaimed_jobs_are_lost_after_a_longer_grace_without_a_lost_worker():
    """A job nobody ever claims (pulled by a peer that never heartbeats,
    or dropped by libzmq) must not keep a run waiting forever."""
    t = LivenessTracker(timeout=5)
    t.heartbeat('a', [], now=0)
    t.sent([job(1)], 0, None)
    t.heartbeat('a', [], now=9)
    assert t.check(now=9) == []          # within 3 x timeout: maybe queued
    t.heartbeat('a', [], now=15.5)
    assert t.check(now=15.5) == [(None, job(1))]
    assert t.live() == ['a'] and t.outstanding == {}


def test_queued_but_claimed_jobs_survive_the_grace():
    t = LivenessTracker(timeout=5)
    t.sent([job(1)], 0, None)
    t.heartbeat('a', [1], now=20)
    assert t.check(now=20) == []


def test_all_workers_lost_orphans_everything_old_enough():
    t = LivenessTracker(timeout=5)
    t.heartbeat('a', [1], now=0)
    t.sent([job(1), job(2)], 0, None)
    lost = t.check(now=6)
    assert lost == [('a', job(1)), ('a', job(2))]
    assert t.outstanding == {}


def test_worker_heard_again_is_live_again():
    t = LivenessTracker(timeout=5)
    t.heartbeat('a', [], now=0)
    t.check(now=6)
    t.seen('a', now=7)
    assert t.live() == ['a'] and not t.lost_ids


def test_count_only_heartbeats_keep_a_worker_alive_without_claims():
    t = LivenessTracker(timeout=5)
    t.heartbeat('a', 3, now=0)
    assert t.workers['a'].beat_at is None
    t.heartbeat('a', 3, now=4)
    assert t.check(now=8) == []

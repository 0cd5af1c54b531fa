"""Who the master admits on the work port, where work goes, and when a
worker counts as stalled (ssbench.master.admission)."""
from __future__ import absolute_import, division, print_function

from ssbench.master.admission import (MAX_WORKERS, REFUSAL_REPEAT,
                                      STALL_SECONDS, Admission)
from ssbench.wire import protocol
from tests.clocks import FakeClock


def beat(worker_id, host='h', pid=1, concurrency=4, **more):
    record = protocol.heartbeat(worker_id, [])
    record.update(host=host, pid=pid, concurrency=concurrency)
    record.update(more)
    return record


def test_a_worker_of_this_protocol_is_admitted_on_its_first_heartbeat():
    admission = Admission()
    admitted, reason = admission.heartbeat(b'a', beat(1), 0.0)
    assert reason is None and admitted.worker_id == 1
    assert admission.by_peer[b'a'] is admitted is admission.by_id[1]
    # Later heartbeats of the connection: the same worker.
    assert admission.heartbeat(b'a', beat(1), 1.0) == (admitted, None)
    assert admitted.beat_at == 1.0


def test_another_protocol_is_refused_and_told_once_per_repeat():
    admission = Admission()
    record = beat(1, protocol=protocol.PROTOCOL_VERSION + 1)
    admitted, reason = admission.heartbeat(b'a', record, 0.0)
    assert admitted is None and 'wire protocol version %d' % (
        protocol.PROTOCOL_VERSION + 1) in reason
    assert admission.heartbeat(b'a', record, 1.0) == (None, None)
    assert admission.heartbeat(b'a', record, REFUSAL_REPEAT)[1] == reason
    assert admission.refusals == 3 and not admission.by_peer


def test_an_id_held_by_a_live_worker_is_refused_naming_who_holds_it():
    admission = Admission()
    admission.heartbeat(b'a', beat(3, host='one', pid=10), 0.0)
    admitted, reason = admission.heartbeat(b'b', beat(3, host='two',
                                                      pid=20), 1.0)
    assert admitted is None
    assert reason == 'worker id 3 is held by worker 3 (one, pid 10)'
    assert list(admission.by_peer) == [b'a']


def test_a_stalled_holder_gives_its_id_to_a_new_connection():
    admission = Admission()
    old, _ = admission.heartbeat(b'a', beat(3), 0.0)
    new, reason = admission.heartbeat(b'b', beat(3), STALL_SECONDS + 0.5)
    assert reason is None and admission.by_id[3] is new
    assert b'a' not in admission.by_peer and old is not new
    # The registry counts the jobs of the earlier one as lost.
    assert new.replaces is old and old.replaces is None


def test_at_most_a_bounded_number_of_workers_are_admitted():
    admission = Admission(limit=2)
    assert admission.heartbeat(b'a', beat(1), 0.0)[0] is not None
    assert admission.heartbeat(b'b', beat(2), 0.0)[0] is not None
    admitted, reason = admission.heartbeat(b'c', beat(3), 0.0)
    assert admitted is None and reason == \
        'the master admits at most 2 workers'
    assert Admission().limit == MAX_WORKERS


def test_refusals_remembered_are_bounded():
    admission = Admission(remember=3)
    wrong = dict(beat(1), protocol=None)
    said = [admission.heartbeat(b'p%d' % n, wrong, 0.0)[1]
            for n in range(10)]
    # Three told; the others only counted, until the memory frees.
    assert sum(1 for r in said if r) == 3 and admission.refusals == 10
    assert len(admission._told) == 3
    assert admission.heartbeat(b'new', wrong, REFUSAL_REPEAT)[1]
    assert len(admission._told) == 1


def test_a_connection_that_changes_its_id_is_refused():
    admission = Admission()
    admission.heartbeat(b'a', beat(1), 0.0)
    admitted, reason = admission.heartbeat(b'a', beat(2), 0.1)
    assert admitted is None and 'is worker 1, not 2' in reason
    assert 2 not in admission.by_id


def test_work_goes_to_the_least_loaded_worker_for_its_concurrency():
    admission = Admission()
    small, _ = admission.heartbeat(b'a', beat(1, concurrency=2), 0.0)
    big, _ = admission.heartbeat(b'b', beat(2, concurrency=8), 0.0)
    assert admission.choose() is small          # equals: admitted first
    small.out = 1
    assert admission.choose() is big            # 0/8 < 1/2
    big.out = 3
    assert admission.choose() is big            # 3/8 < 1/2
    big.out = 4
    assert admission.choose() is small          # 4/8 = 1/2, waited longer
    small.out, big.out = 2, 9
    assert admission.choose() is small          # 2/2 < 9/8: least behind


def test_equals_take_turns_and_a_late_worker_gets_the_next_job():
    """Issue 50 (17): one job out at a time went to the same worker."""
    admission = Admission()
    one, _ = admission.heartbeat(b'a', beat(1), 0.0)
    assert [admission.choose() for turn in range(3)] == [one] * 3
    two, _ = admission.heartbeat(b'b', beat(2), 5.0)
    three, _ = admission.heartbeat(b'c', beat(3), 6.0)
    assert [admission.choose() for turn in range(6)] == [two, three, one] * 2


def test_a_concurrency_of_zero_counts_as_one():
    admission = Admission()
    zero, _ = admission.heartbeat(b'a', beat(1, concurrency=0), 0.0)
    assert zero.concurrency == 1 and admission.choose() is zero


def test_a_silent_worker_is_stalled_and_its_jobs_leave_room():
    clock = FakeClock(0.0)
    admission = Admission()
    one, _ = admission.heartbeat(b'a', beat(1), clock.now)
    two, _ = admission.heartbeat(b'b', beat(2), clock.now)
    one.out, two.out = 3, 1
    clock.advance(STALL_SECONDS)
    admission.heartbeat(b'b', beat(2), clock.now)
    assert admission.check(clock.now) == []     # not yet: within the bound
    clock.advance(0.5)
    assert admission.check(clock.now) == [one]
    assert one.stalled and admission.stalled_out == 3
    assert admission.choose() is two            # nothing new for it
    assert admission.check(clock.now) == []     # said once
    # It beats again: back in, its jobs count again.
    admission.heartbeat(b'a', beat(1), clock.now)
    assert not one.stalled and admission.stalled_out == 0


def test_every_worker_stalled_means_nobody_to_send_to():
    admission = Admission()
    admission.heartbeat(b'a', beat(1), 0.0)
    admission.check(STALL_SECONDS + 1)
    assert admission.choose() is None


def test_a_forgotten_stalled_worker_leaves_no_count_behind():
    admission = Admission()
    one, _ = admission.heartbeat(b'a', beat(1), 0.0)
    one.out = 4
    admission.check(STALL_SECONDS + 1)
    assert admission.stalled_out == 4
    admission.forget_id(1)
    assert admission.stalled_out == 0 and not admission.by_id


def test_recount_sets_each_workers_jobs_out():
    admission = Admission()
    one, _ = admission.heartbeat(b'a', beat(1), 0.0)
    two, _ = admission.heartbeat(b'b', beat(2), 0.0)
    one.out, two.out = 9, 9
    admission.check(STALL_SECONDS + 1)
    admission.heartbeat(b'b', beat(2), STALL_SECONDS + 1)
    admission.recount([({}, 0.0, one), ({}, 0.0, two), ({}, 0.0, one)])
    assert (one.out, two.out, admission.stalled_out) == (2, 1, 2)


def test_a_barred_connection_is_refused_for_its_reason_told_already():
    admission = Admission()
    admitted = admission.heartbeat(b'a', beat(1), 0.0)[0]
    admission.bar(admitted, 'it refused its configuration: x', 1.0)
    assert not admission.by_peer and not admission.by_id
    # Told as it was barred: not again until REFUSAL_REPEAT has passed.
    assert admission.heartbeat(b'a', beat(1), 2.0) == (None, None)
    assert admission.heartbeat(b'a', beat(1), 1.0 + REFUSAL_REPEAT) == (
        None, 'it refused its configuration: x')
    # A new process of that id, on a new connection, is admitted.
    assert admission.heartbeat(b'b', beat(1), 12.0)[0].worker_id == 1


def test_barred_connections_remembered_are_bounded():
    admission = Admission(remember=2)
    for peer in (b'a', b'b', b'c'):
        admission.bar(admission.heartbeat(peer, beat(1), 0.0)[0], 'x', 0.0)
    assert sorted(admission.barred) == [b'a', b'b']


def test_a_local_worker_of_another_run_is_refused():
    """Issue 50 (6): a worker of --workers left behind by an earlier
    master is not taken for one of this run's, nor for a remote one."""
    admission = Admission()
    admitted, reason = admission.heartbeat(b'a', beat(0, local_run='aa'),
                                           0.0)
    assert admitted is None and reason == (
        "it is a local worker (--workers) of another master's run, left "
        "behind when that master ended")
    admission.local_run = 'bb'
    assert admission.heartbeat(b'b', beat(0, local_run='aa'), 0.0)[0] is None
    assert admission.heartbeat(b'c', beat(0, local_run='bb'), 0.0)[0]
    # A worker started by hand names no run: admitted as ever.
    assert admission.heartbeat(b'd', beat(7), 0.0)[0]
    assert sorted(admission.by_id) == [0, 7]

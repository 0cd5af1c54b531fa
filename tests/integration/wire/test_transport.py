"""Real ZeroMQ sockets on free loopback ports."""
from __future__ import absolute_import, division, print_function

import os
import shutil
import socket
import time

import pytest
import zmq

from ssbench.errors import TransportError
from ssbench.wire.curve.keys import CurveError, CurveKeys, create_curve_keys
from ssbench.wire import protocol
from ssbench.wire.transport import (CONTROL_BATCH_BYTES, CONTROL_WAIT_MS,
                                    MasterSockets, WorkerSockets, resolve)
from ssbench.wire.wirelimits import (
    COMMANDS_ONLY, CONTROL_RCVHWM, LARGEST_HEARTBEAT, LARGEST_JOB,
    MAX_CONTROL_MESSAGE,
    MAX_MASTER_MESSAGE, MAX_RESULTS_MESSAGE, RESULTS_RCVHWM, RESULTS_SPLIT,
    WORKER_RCVHWM)
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(30)


def ipv6_available():
    if not socket.has_ipv6:
        return False
    try:
        sock = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
        try:
            sock.bind(('::1', 0))
        finally:
            sock.close()
    except (socket.error, OSError):
        return False
    return True


_WORKERS = []


def worker_sockets(*args, **kwargs):
    """WorkerSockets, remembered so that send_job() has them say hello."""
    worker = WorkerSockets(*args, **kwargs)
    _WORKERS.append(worker)
    return worker


def send_job(master, data, timeout):
    """Send `data` to the first worker the master heard on the work
    connection (every open worker of the test says hello, as its
    heartbeats would); False when none was heard within `timeout`."""
    workers = [w for w in _WORKERS if w._context is not None]
    del _WORKERS[:]
    heard = master.__dict__.setdefault('heard', [])
    deadline = time.time() + timeout
    while True:
        for worker in workers:
            quietly(worker.send_control, b'hello', 0)
        heard.extend(peer for peer, _ in master.controls()
                     if peer not in heard)
        for peer in heard:
            if master.send_to(peer, data, 0):
                return True
        if time.time() >= deadline:
            return False
        # A green master's ZAP handler runs while it polls.
        master.poll(0.02)


def recv_result(master, timeout):
    """The next result, the hellos on the work connection set aside
    (the master's recv() returns early for them)."""
    deadline = time.time() + timeout
    while True:
        data = master.recv(max(0, deadline - time.time()))
        master.controls()
        if data is not None or time.time() >= deadline:
            return data


def pair(bind_ip='127.0.0.1', host='127.0.0.1'):
    master = MasterSockets(bind_ip, 0, 0, green=False)
    worker = worker_sockets(host, master.work_port, master.results_port,
                            green=False)
    return master, worker


def roundtrip(master, worker):
    assert send_job(master, b'job', 5)
    assert worker.recv(timeout=5) == b'job'
    assert worker.send(b'result', timeout=5)
    assert recv_result(master, 5) == b'result'


def test_roundtrip_ipv4():
    master, worker = pair()
    try:
        assert master.work_port > 0 and master.results_port > 0
        assert master.work_port != master.results_port
        roundtrip(master, worker)
        assert master.recv_nowait() is None
        assert worker.recv_nowait() is None
    finally:
        worker.close()
        master.close()


@pytest.mark.skipif(not ipv6_available(), reason='no IPv6 loopback here')
@pytest.mark.parametrize('bind_ip', ['::1', '::', '[::1]'])
def test_roundtrip_ipv6(bind_ip):
    master, worker = pair(bind_ip, '::1')
    try:
        roundtrip(master, worker)
    finally:
        worker.close()
        master.close()


def test_hostname_prefers_ipv4():
    assert resolve('localhost', 'x') == ('127.0.0.1', False)
    master, worker = pair('localhost', 'localhost')
    try:
        roundtrip(master, worker)
    finally:
        worker.close()
        master.close()


def test_recv_times_out():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    try:
        start = time.time()
        assert master.recv(0.02) is None
        assert 0.015 <= time.time() - start < 2
        # Longer waits end at CONTROL_WAIT_MS, for the caller to look at
        # the work connection.
        start = time.time()
        assert master.recv(5) is None
        assert 0.8 * CONTROL_WAIT_MS / 1000.0 <= time.time() - start < 2
        assert master.recv(0) is None
        assert master.recv_nowait() is None
        assert master.poll(0.05) is False
    finally:
        master.close()


def test_master_recv_honours_each_calls_timeout():
    # The master's recv() lets libzmq wait (RCVTIMEO, set only when the
    # timeout changes), for at most CONTROL_WAIT_MS: a short timeout must
    # not stick to later calls.
    import threading
    master, worker = pair()
    try:
        assert master.recv(0) is None
        start = time.time()
        assert master.recv(5) is None
        assert time.time() - start >= 0.8 * CONTROL_WAIT_MS / 1000.0
        assert master.recv(0) is None
        later = threading.Timer(0.3, worker.send, (b'late', 5))
        later.start()
        assert wait_for(lambda: master.recv(5), 10, 'the late message') \
            == b'late'
        later.join()
        assert master.recv(0) is None
    finally:
        worker.close()
        master.close()


def test_send_to_a_peer_not_connected_says_so():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    try:
        assert master.send_to(b'nobody', b'x', 0) is None
        assert master.send_to(b'nobody', b'x', 0.2) is None
        assert master.controls() == []
    finally:
        master.close()


def test_each_worker_is_addressed_by_its_connection():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    ports = (master.work_port, master.results_port)
    one = WorkerSockets('127.0.0.1', *ports, green=False)
    two = WorkerSockets('127.0.0.1', *ports, green=False)
    try:
        assert one.send_control(b'one', 5) and two.send_control(b'two', 5)
        # The master's recv() of results returns as soon as the work
        # connection holds something, not after its timeout.
        start = time.time()
        assert master.recv(5) is None and time.time() - start < 4
        heard = {}
        wait_for(lambda: heard.update((data, peer) for peer, data in
                                      master.controls()) or len(heard) == 2,
                 10, 'both workers heard')
        assert master.send_to(heard[b'two'], b'for two', 5) is True
        assert two.recv(5) == b'for two'
        assert one.recv(0.2) is None
    finally:
        for end in (one, two, master):
            end.close()


def test_worker_results_need_a_master():
    # Nobody listens on the results port: a send cannot be queued.
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    port = master.results_port
    master.close()
    worker = worker_sockets('127.0.0.1', port, port, green=False)
    try:
        assert worker.send(b'x', timeout=0) is False
        assert worker.recv(0.05) is None
    finally:
        worker.close()


def test_port_in_use():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    try:
        with pytest.raises(TransportError) as info:
            MasterSockets('127.0.0.1', master.work_port, 0, green=False)
        message = str(info.value)
        assert 'work socket' in message
        assert str(master.work_port) in message
        assert 'in use' in message
        assert '\n' not in message
    finally:
        master.close()


# --- CURVE (key files and the ZAP rules: tests/unit/wire/curve/test_keys.py)

def curve_dirs(tmpdir):
    """(master's dir, rogue's dir): the rogue has the master's public key
    but a worker key pair of its own, unknown to the master."""
    good = str(tmpdir.join('good'))
    rogue = str(tmpdir.join('rogue'))
    create_curve_keys(good)
    create_curve_keys(rogue)
    shutil.copy(os.path.join(good, 'master.key'),
                os.path.join(rogue, 'master.key'))
    return good, rogue


# libzmq 4.3.2 (pyzmq 19, Python 2.7) attaches a bound socket's pipe before
# the handshake: a job sent then is lost (never delivered).  4.3.5 doesn't.
KEEPS_UNSENT_JOBS = zmq.zmq_version_info() >= (4, 3, 5)


def quietly(call, *args):
    """call(*args), None when it raises CurveError (a refused worker)."""
    try:
        return call(*args)
    except CurveError:
        return None


def settle(ends, seconds=0.5):
    """Let handshakes happen (and fail) while every end polls."""
    deadline = time.time() + seconds
    while time.time() < deadline:
        for end in ends:
            quietly(end.poll, 0.02)


@pytest.mark.parametrize('green', [False, True], ids=['thread', 'green'])
def test_curve_admits_only_listed_workers(tmpdir, green):
    good_dir, rogue_dir = curve_dirs(tmpdir)
    master = MasterSockets('127.0.0.1', 0, 0, green=green,
                           curve=CurveKeys(good_dir))
    ports = (master.work_port, master.results_port)
    rogue = worker_sockets('127.0.0.1', *ports, green=green,
                           curve=CurveKeys(rogue_dir))
    good = None
    try:
        settle([master, rogue])
        # Alone, the rogue is no peer: no job can go out, none arrives.
        assert send_job(master, b'job-x', 0.3) is False
        assert quietly(rogue.recv, 0.2) is None
        rogue.send(b'injected', timeout=0.2)
        assert master.recv(0.5) is None
        good = worker_sockets('127.0.0.1', *ports, green=green,
                              curve=CurveKeys(good_dir))
        for index in range(10):
            assert send_job(master, b'job-%d' % index, 5)
        got = [good.recv(5) for _ in range(10)]
        assert got == [b'job-%d' % index for index in range(10)]
        assert quietly(rogue.recv, 0.3) is None
        assert good.send(b'result', timeout=5)
        assert recv_result(master, 5) == b'result'
        assert master.recv(0.3) is None           # still nothing injected
        refusals = master.curve_refusals
        rogue_key = open(os.path.join(rogue_dir, 'worker.key')).read()
        assert len(refusals) == 1
        assert list(refusals)[0] in rogue_key
        assert list(refusals.values())[0] >= 2    # both of its sockets
    finally:
        for end in (good, rogue, master):
            if end is not None:
                end.close()


def test_curve_carries_the_largest_messages_each_end_sends(tmpdir):
    # CURVE makes each frame longer on the wire, which libzmq counts
    # against the receiver's bound: within the margin.
    good_dir, _ = curve_dirs(tmpdir)
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(good_dir))
    worker = worker_sockets('127.0.0.1', master.work_port,
                            master.results_port, green=False,
                            curve=CurveKeys(good_dir))
    try:
        largest_job = b'j' * LARGEST_JOB
        assert send_job(master, largest_job, 5)
        assert worker.recv(5) == largest_job
        largest = b'r' * RESULTS_SPLIT
        assert worker.send(largest, timeout=5)
        assert recv_result(master, 5) == largest
        beat = b'h' * LARGEST_HEARTBEAT
        assert worker.send_control(beat, timeout=5)
        taken = []
        wait_for(lambda: taken.extend(
            data for _, data in master.controls() if data == beat) or
            taken, 5, 'the largest heartbeat')
    finally:
        worker.close()
        master.close()


def test_curve_refuses_plain_and_wrong_master_workers(tmpdir):
    good_dir = str(tmpdir.join('good'))
    other_dir = str(tmpdir.join('other'))      # keys of another master
    create_curve_keys(good_dir)
    create_curve_keys(other_dir)
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(good_dir))
    ports = (master.work_port, master.results_port)
    plain = worker_sockets('127.0.0.1', *ports, green=False)
    wrong = worker_sockets('127.0.0.1', *ports, green=False,
                           curve=CurveKeys(other_dir))
    try:
        settle([master, plain, wrong])
        sent = send_job(master, b'job', 0.3)
        assert sent is False or not KEEPS_UNSENT_JOBS
        # (libzmq may queue a send before the handshake fails.)
        plain.send(b'plain', timeout=0.3)
        wrong.send(b'wrong', timeout=0.3)
        assert master.recv(0.5) is None
        assert plain.recv(0.1) is None
        assert quietly(wrong.recv, 0.1) is None
    finally:
        for end in (plain, wrong, master):
            end.close()


@pytest.mark.parametrize('green', [False, True], ids=['thread', 'green'])
def test_curve_refusal_logged_by_master_and_fatal_to_worker(
        tmpdir, caplog, green):
    import logging
    caplog.set_level(logging.INFO)
    good_dir, rogue_dir = curve_dirs(tmpdir)
    master = MasterSockets('127.0.0.1', 0, 0, green=green,
                           curve=CurveKeys(good_dir))
    rogue = worker_sockets('127.0.0.1', master.work_port,
                           master.results_port, green=green,
                           curve=CurveKeys(rogue_dir))

    def refused():
        master.poll(0.02)
        rogue.recv(0.1)            # raises CurveError once refused
    try:
        with pytest.raises(CurveError) as info:
            wait_for(refused, 10, 'the worker told it was refused',
                     interval=0)
        settle([master], 0.2)
    finally:
        rogue.close()
        master.close()
    message = str(info.value)
    assert info.value.exit_status == 2
    assert 'refused this worker\'s CURVE key' in message
    assert os.path.join(rogue_dir, 'worker.key') in message
    lines = [r.getMessage() for r in caplog.records
             if 'refused a worker' in r.getMessage()]
    assert len(lines) == 1                     # once per key, not per try
    assert good_dir in lines[0]
    rogue_key = open(os.path.join(rogue_dir, 'worker.key')).read()
    assert lines[0].split('public key ')[1].split()[0] in rogue_key


def test_curve_wrong_master_key_is_logged_on_both_ends(tmpdir, caplog):
    # Looks like a peer hanging up, as a proxy without its master does:
    # the worker keeps trying (quietly after one line) and gets nothing.
    import logging
    caplog.set_level(logging.INFO)
    good_dir = str(tmpdir.join('good'))
    other_dir = str(tmpdir.join('other'))      # keys of another master
    create_curve_keys(good_dir)
    create_curve_keys(other_dir)
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(good_dir))
    wrong = worker_sockets('127.0.0.1', master.work_port,
                           master.results_port, green=False,
                           curve=CurveKeys(other_dir))

    def failing():
        master.poll(0.02)
        assert wrong.recv(0.1) is None
        return 'keep failing' in caplog.text
    try:
        wait_for(failing, 10, "the worker's 'keep failing' line", interval=0)
        settle([master, wrong], 1.2)
    finally:
        wrong.close()
        master.close()
    lines = [r.getMessage() for r in caplog.records]
    failing = [m for m in lines if 'keep failing' in m]
    assert len(failing) == 2                  # once per socket
    assert os.path.join(other_dir, 'master.key') in failing[0]
    hints = [m for m in lines if 'a handshake on the' in m]
    assert len(hints) == 1 and 'another master\'s master.key' in hints[0]


def test_curve_worker_gives_up_on_a_plain_master(tmpdir, caplog):
    good_dir = str(tmpdir.join('good'))
    create_curve_keys(good_dir)
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    worker = worker_sockets('127.0.0.1', master.work_port,
                            master.results_port, green=False,
                            curve=CurveKeys(good_dir))

    def given_up():
        master.poll(0.02)
        worker.poll(0.1)           # raises CurveError once it gives up
    try:
        with pytest.raises(CurveError) as info:
            wait_for(given_up, 20, 'the worker gave up', interval=0)
    finally:
        worker.close()
        master.close()
    assert 'does the master there run with --zmq-curve-dir?' in str(
        info.value)


def test_curve_master_hints_at_plain_workers(tmpdir, caplog):
    good_dir = str(tmpdir.join('good'))
    create_curve_keys(good_dir)
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(good_dir))
    plain = worker_sockets('127.0.0.1', master.work_port,
                           master.results_port, green=False)

    def hinted():
        settle([master, plain], 0.6)
        return 'a handshake on' in caplog.text
    try:
        wait_for(hinted, 10, "the master's hint at a plain worker",
                 interval=0)
    finally:
        plain.close()
        master.close()
    hints = [r.getMessage() for r in caplog.records
             if 'a handshake on the' in r.getMessage()]
    assert len(hints) == 1 and 'a worker without --zmq-curve-dir' in hints[0]


def test_curve_fails_closed_without_its_authenticator(tmpdir):
    # libzmq admits every CURVE client when no ZAP handler answers, unless
    # told to enforce ZAP: with the handler gone, nobody gets in.
    good_dir, rogue_dir = curve_dirs(tmpdir)
    master = MasterSockets('127.0.0.1', 0, 0, green=True,
                           curve=CurveKeys(good_dir))
    master._zap.stop_green()
    ends = [worker_sockets('127.0.0.1', master.work_port,
                           master.results_port, green=True,
                           curve=CurveKeys(path))
            for path in (good_dir, rogue_dir)]
    try:
        settle([master] + ends)
        assert send_job(master, b'job', 0.3) is False \
            or not KEEPS_UNSENT_JOBS
        for end in ends:
            end.send(b'injected', timeout=0.2)
            assert quietly(end.recv, 0.2) is None
        assert master.recv(0.5) is None
    finally:
        for end in ends + [master]:
            end.close()


def test_curve_extra_worker_keys_are_accepted(tmpdir):
    good_dir, rogue_dir = curve_dirs(tmpdir)
    shutil.copy(os.path.join(rogue_dir, 'worker.key'),
                os.path.join(good_dir, 'host2.key'))
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(good_dir))
    second = worker_sockets('127.0.0.1', master.work_port,
                            master.results_port, green=False,
                            curve=CurveKeys(rogue_dir))
    try:
        roundtrip(master, second)
        assert master.curve_refusals == {}
    finally:
        second.close()
        master.close()


# Seconds a close may take before it counts as hanging on its pending
# messages (ZeroMQ's default linger is for ever).
CLOSE_BOUND = 10


@pytest.mark.parametrize('green', [False, True], ids=['thread', 'green'])
def test_curve_close_is_quick(tmpdir, green):
    good_dir = str(tmpdir.join('keys'))
    create_curve_keys(good_dir)
    master = MasterSockets('127.0.0.1', 0, 0, green=green,
                           curve=CurveKeys(good_dir))
    worker = worker_sockets('127.0.0.1', master.work_port,
                            master.results_port, green=green,
                            curve=CurveKeys(good_dir))
    roundtrip(master, worker)
    start = time.time()
    worker.close()
    master.close()
    master.close()
    # A close that lingered on unsent messages would block for ever; the
    # bound is far above what any load on the machine takes.
    assert time.time() - start < CLOSE_BOUND


def test_curve_master_can_be_rebuilt_on_the_same_ports(tmpdir):
    # The ZAP endpoint belongs to one context: a second master (kill-workers
    # after a run, tests) binds its own without a clash.
    good_dir = str(tmpdir.join('keys'))
    create_curve_keys(good_dir)
    first = MasterSockets('127.0.0.1', 0, 0, green=False,
                          curve=CurveKeys(good_dir))
    ports = (first.work_port, first.results_port)
    other = MasterSockets('127.0.0.1', 0, 0, green=False,
                          curve=CurveKeys(good_dir))
    other.close()
    first.close()
    again = MasterSockets('127.0.0.1', ports[0], ports[1], green=False,
                          curve=CurveKeys(good_dir))
    worker = worker_sockets('127.0.0.1', *ports, green=False,
                            curve=CurveKeys(good_dir))
    try:
        roundtrip(again, worker)
    finally:
        worker.close()
        again.close()


def test_close_is_quick_and_idempotent():
    master, worker = pair()
    worker.send(b'pending', timeout=1)
    start = time.time()
    worker.close()
    master.close()
    master.close()
    assert time.time() - start < CLOSE_BOUND


def test_green_sockets():
    import gevent
    master = MasterSockets('127.0.0.1', 0, 0, green=True)
    worker = worker_sockets('127.0.0.1', master.work_port,
                            master.results_port, green=True)
    try:
        got = []
        waiter = gevent.spawn(lambda: got.append(worker.recv(timeout=5)))
        gevent.sleep(0.05)
        assert send_job(master, b'job', 5)
        waiter.join(5)
        assert got == [b'job']
        assert worker.recv(timeout=0.1) is None
    finally:
        worker.close()
        master.close()


def test_one_port_for_both_sockets_is_refused_clearly():
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    port = sock.getsockname()[1]
    sock.close()
    with pytest.raises(TransportError) as info:
        MasterSockets('127.0.0.1', port, port, green=False)
    message = str(info.value)
    assert message == ('the work and results sockets need two ports, not '
                       'both %d: choose another --zmq-results-port' % port)
    # Both free again: nothing was left bound.
    MasterSockets('127.0.0.1', port, 0, green=False).close()


def test_every_socket_is_bounded_in_bytes():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    worker = WorkerSockets('127.0.0.1', master.work_port,
                           master.results_port)
    try:
        options = [(sock.getsockopt(zmq.MAXMSGSIZE),
                    sock.getsockopt(zmq.RCVHWM))
                   for sock in (master._work, master._in, worker._work,
                                worker._out)]
        assert options == [(MAX_CONTROL_MESSAGE, CONTROL_RCVHWM),
                           (MAX_RESULTS_MESSAGE, RESULTS_RCVHWM),
                           (MAX_MASTER_MESSAGE, WORKER_RCVHWM),
                           (COMMANDS_ONLY, 1)]
    finally:
        worker.close()
        master.close()


@pytest.mark.skipif(not hasattr(zmq, 'HEARTBEAT_IVL'),
                    reason='libzmq without ZMTP heartbeats')
def test_only_workers_send_zmtp_heartbeats():
    # libzmq aborts a process whose ZMTP heartbeat falls due on a
    # connection whose peer hung up while its queue was full.
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    worker = WorkerSockets('127.0.0.1', master.work_port,
                           master.results_port)
    try:
        assert [sock.getsockopt(zmq.HEARTBEAT_IVL)
                for sock in (master._work, master._in, worker._work,
                             worker._out)] == [0, 0, 5000, 5000]
    finally:
        worker.close()
        master.close()


def test_master_drops_frames_beyond_what_a_worker_sends():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    context = zmq.Context()
    pushes = []
    try:
        for _ in range(3):
            push = context.socket(zmq.PUSH)
            push.setsockopt(zmq.LINGER, 0)
            push.connect('tcp://127.0.0.1:%d' % master.results_port)
            pushes.append(push)
        largest = b'x' * RESULTS_SPLIT
        # The peer of a frame beyond the socket's bound is cut off before
        # it is read; a frame within it but larger than a worker sends is
        # dropped and counted; the largest a worker sends arrives.
        pushes[0].send(b'x' * (MAX_RESULTS_MESSAGE + 1))
        pushes[1].send(largest + b'x')
        pushes[2].send(largest)
        assert recv_result(master, 5) == largest
        assert recv_result(master, 0.5) is None
        assert master.results_faults.counts == {
            'message larger than a worker sends': 1}
    finally:
        for push in pushes:
            push.close()
        context.term()
        master.close()


def test_master_drops_messages_of_more_records_than_a_worker_sends():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    context = zmq.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    try:
        dealer.connect('tcp://127.0.0.1:%d' % master.work_port)
        beat = protocol.pack([{}] * 17)
        dealer.send(beat)
        dealer.send(protocol.pack([{}] * 16))
        taken = []
        wait_for(lambda: taken.extend(master.controls()) or taken, 5,
                 'the message of 16 records')
        assert [data for _, data in taken] == [protocol.pack([{}] * 16)]
        assert master.control_faults.counts == {
            'message of more records than a worker sends': 1}
    finally:
        dealer.close()
        context.term()
        master.close()


def test_master_takes_no_more_bytes_of_controls_than_its_queue():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    context = zmq.Context()
    dealer = context.socket(zmq.DEALER)
    dealer.setsockopt(zmq.LINGER, 0)
    dealer.setsockopt(zmq.SNDHWM, 0)
    try:
        dealer.connect('tcp://127.0.0.1:%d' % master.work_port)
        beat = protocol.pack([{'pad': 'x' * (LARGEST_HEARTBEAT - 64)}])
        for _ in range(40):
            dealer.send(beat)
        # libzmq refills the queue as fast as the master empties it: a
        # take stops at CONTROL_BATCH_BYTES, not at 40 large messages.
        takes = []

        def all_taken():
            takes.append(sum(len(data) for _, data in master.controls()))
            return sum(takes) == 40 * len(beat)
        wait_for(all_taken, 20, 'the 40 messages')
        assert max(takes) <= CONTROL_BATCH_BYTES + len(beat)
    finally:
        dealer.close()
        context.term()
        master.close()

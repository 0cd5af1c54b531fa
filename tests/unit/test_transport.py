"""Real ZeroMQ sockets on free loopback ports."""
from __future__ import absolute_import, division, print_function

import socket
import time

import pytest

from ssbench.errors import TransportError
from ssbench.transport import (CurveKeys, MasterSockets, WorkerSockets,
                               create_curve_keys, resolve)

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


def pair(bind_ip='127.0.0.1', host='127.0.0.1'):
    master = MasterSockets(bind_ip, 0, 0, green=False)
    worker = WorkerSockets(host, master.work_port, master.results_port,
                           green=False)
    return master, worker


def roundtrip(master, worker):
    assert master.send(b'job', timeout=5)
    assert worker.recv(timeout=5) == b'job'
    assert worker.send(b'result', timeout=5)
    assert master.recv(timeout=5) == b'result'


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
        assert master.recv(0.2) is None
        assert 0.15 <= time.time() - start < 2
        assert master.recv(0) is None
        assert master.recv_nowait() is None
        assert master.poll(0.05) is False
    finally:
        master.close()


def test_send_without_worker_times_out():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    try:
        assert master.send(b'x', timeout=0) is False
        start = time.time()
        assert master.send(b'x', timeout=0.2) is False
        assert 0.15 <= time.time() - start < 2
    finally:
        master.close()


def test_worker_results_need_a_master():
    # Nobody listens on the results port: a send cannot be queued.
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    port = master.results_port
    master.close()
    worker = WorkerSockets('127.0.0.1', port, port, green=False)
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


def test_bad_host():
    with pytest.raises(TransportError) as info:
        MasterSockets('no-such-host.invalid', 0, 0, green=False)
    assert 'no-such-host.invalid' in str(info.value)
    with pytest.raises(TransportError):
        WorkerSockets('no-such-host.invalid', 1, 2, green=False)


def test_curve_roundtrip_and_refusals(tmpdir):
    public, secret = create_curve_keys(str(tmpdir))
    other_public = create_curve_keys(str(tmpdir), 'other')[0]
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(secret_file=secret))
    ports = (master.work_port, master.results_port)
    good = WorkerSockets('127.0.0.1', *ports, green=False,
                         curve=CurveKeys(server_public_file=public))
    plain = WorkerSockets('127.0.0.1', *ports, green=False)
    wrong = WorkerSockets('127.0.0.1', *ports, green=False,
                          curve=CurveKeys(server_public_file=other_public))
    try:
        roundtrip(master, good)
        # Neither a plain worker nor one expecting another master gets in
        # (older libzmq may queue the message before the handshake fails).
        plain.send(b'plain', timeout=0.5)
        wrong.send(b'wrong', timeout=0.5)
        assert master.recv(0.5) is None
    finally:
        for end in (good, plain, wrong, master):
            end.close()


def test_curve_key_errors(tmpdir):
    public, secret = create_curve_keys(str(tmpdir))
    with pytest.raises(TransportError) as info:
        MasterSockets('127.0.0.1', 0, 0, green=False,
                      curve=CurveKeys(secret_file=public))
    assert 'no secret key' in str(info.value)
    missing = str(tmpdir.join('nope.key'))
    with pytest.raises(TransportError) as info:
        WorkerSockets('127.0.0.1', 1, 2, green=False,
                      curve=CurveKeys(server_public_file=missing))
    assert 'nope.key' in str(info.value)
    with pytest.raises(TransportError):
        MasterSockets('127.0.0.1', 0, 0, green=False, curve=CurveKeys())
    with pytest.raises(TransportError):
        WorkerSockets('127.0.0.1', 1, 2, green=False, curve=CurveKeys())


def test_close_is_quick_and_idempotent():
    master, worker = pair()
    worker.send(b'pending', timeout=1)
    start = time.time()
    worker.close()
    master.close()
    master.close()
    assert time.time() - start < 1


def test_green_sockets():
    import gevent
    master = MasterSockets('127.0.0.1', 0, 0, green=True)
    worker = WorkerSockets('127.0.0.1', master.work_port,
                           master.results_port, green=True)
    try:
        got = []
        waiter = gevent.spawn(lambda: got.append(worker.recv(timeout=5)))
        gevent.sleep(0.05)
        assert master.send(b'job', timeout=5)
        waiter.join(5)
        assert got == [b'job']
        assert worker.recv(timeout=0.1) is None
    finally:
        worker.close()
        master.close()

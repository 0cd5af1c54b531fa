"""A real ssbench-worker process against real sockets and the local Swift.

Skipped, with the reason printed, unless `tools/saio status` succeeds.
Every process started here is killed at the end, whatever happens.
"""
from __future__ import absolute_import, division, print_function

import os
import subprocess
import sys
import threading
import time
import uuid

import pytest

from ssbench import CREATE_OBJECT, DELETE_OBJECT, READ_OBJECT, UPDATE_OBJECT
from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT, PING, SUICIDE
from ssbench.wire.protocol import configure_job
from ssbench.swift.client import SwiftClient
from ssbench.swift.auth import AuthOptions, Grant, authenticate
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
AUTH_URL = 'http://127.0.0.1:8080/auth/v1.0'
USER, KEY = 'test:tester', 'testing'


def _saio_up():
    proc = subprocess.Popen([os.path.join(ROOT, 'tools', 'saio'), 'status'],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timer = threading.Timer(30, proc.kill)
    timer.start()
    try:
        out = proc.communicate()[0].decode('utf-8', 'replace')
    finally:
        timer.cancel()
    return proc.returncode == 0, out.strip().splitlines()[-1:] or ['']


_UP, _WHY = _saio_up()
if not _UP:
    print('tests/e2e/test_worker_swift.py skipped: tools/saio status failed:'
          ' %s' % _WHY[0])
pytestmark.append(pytest.mark.skipif(
    not _UP, reason='local Swift not running (tools/saio status: %s)'
    % _WHY[0]))


@pytest.fixture
def swift():
    client = SwiftClient(AuthOptions(auth_url=AUTH_URL, user=USER, key=KEY),
                         concurrency=2)
    containers = []
    yield client, containers
    for container in containers:
        try:
            if client.head_container(container,
                                     missing_ok=True).status == 404:
                continue
            for name in client.list_objects(container):
                client.delete_object(container, name)
            client.delete_container(container, missing_ok=True)
        except Exception as exc:  # cleanup must not hide the real failure
            print('cleanup of %s failed: %s' % (container, exc))
    client.close()


class WorkerProcess(object):
    def __init__(self, master, worker_id, args=(), env_auth=True):
        env = dict(os.environ, PYTHONPATH=ROOT)
        for name in list(env):
            if name.startswith(('ST_', 'OS_')):
                del env[name]
        if env_auth:
            env.update(ST_AUTH=AUTH_URL, ST_USER=USER, ST_KEY=KEY)
        argv = [sys.executable, os.path.join(ROOT, 'bin', 'ssbench-worker'),
                '--zmq-work-port', str(master.work_port),
                '--zmq-results-port', str(master.results_port)]
        self.proc = subprocess.Popen(argv + list(args) + [str(worker_id)],
                                     env=env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)

    def wait(self, timeout):
        deadline = time.time() + timeout
        while self.proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        return self.proc.poll()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        out = self.proc.stdout.read().decode('utf-8', 'replace')
        self.proc.stdout.close()
        return out


@pytest.fixture
def master():
    sockets = support.OneWorkerMaster()
    yield sockets
    sockets.close()


def collect(master, count, timeout=30):
    """`count` results (heartbeats skipped) plus the heartbeats seen."""
    results, beats = [], []
    deadline = time.time() + timeout
    while len(results) < count and time.time() < deadline:
        data = master.recv(0.2)
        if data is None:
            continue
        for record in protocol.unpack(data):
            (beats if record.get('type') == HEARTBEAT else results).append(
                record)
    assert len(results) >= count, 'got %d of %d results' % (
        len(results), count)
    return results, beats


def next_beat(master, timeout=10):
    """The next heartbeat the worker sends (results skipped)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        data = master.recv(0.2)
        if data is None:
            continue
        for record in protocol.unpack(data):
            if record.get('type') == HEARTBEAT:
                return record
    raise AssertionError('no heartbeat in %g s' % (timeout,))


def send(master, jobs):
    assert master.send(protocol.pack(jobs), timeout=10)


def crud(master, container, worker_id, names, size=100000):
    base = {'size_str': 'small', 'container': container, 'block_size': 4096}
    send(master, [dict(base, type=CREATE_OBJECT, name=n, size=size,
                       delete_after=3600) for n in names])
    creates = collect(master, len(names))[0]
    send(master, [dict(base, type=READ_OBJECT, name=n) for n in names] +
         [dict(base, type=UPDATE_OBJECT, name=names[0], size=size // 2)])
    reads = collect(master, len(names) + 1)[0]
    send(master, [dict(base, type=DELETE_OBJECT, name=n) for n in names])
    deletes = collect(master, len(names))[0]
    everything = creates + reads + deletes
    for result in everything:
        assert 'exception' not in result, result
        assert result['worker_id'] == worker_id
        assert result['trans_id'].startswith('tx'), result
        assert isinstance(result['retries'], int)   # a busy Swift may 503
        assert result['last_byte_latency'] > 0
        assert result['completed_at'] > time.time() - 120
        assert 'key' not in result and 'auth' not in result
        assert result['status'] in (200, 201, 204)
        assert result['reconnects'] >= 0 and 'error_class' not in result
        if result['type'] == READ_OBJECT:
            assert 0 < result['first_byte_latency'] <= \
                result['last_byte_latency']
            # names[0] may be read after its update, sent alongside.
            assert result['size'] == size or (
                result['name'] == names[0] and result['size'] == size // 2)
        else:
            assert result['first_byte_latency'] is None
    sizes = sorted((r['name'], r['size']) for r in creates)
    assert sizes == sorted((n, size) for n in names)
    assert [r['size'] for r in reads if r['type'] == UPDATE_OBJECT] == [
        size // 2]
    return everything


def test_crud_with_own_credentials(master, swift):
    client, containers = swift
    container = 'ssbench_e2e_%s' % uuid.uuid4().hex[:8]
    containers.append(container)
    client.put_container(container)
    worker = WorkerProcess(master, 11, ['-c', '4'])
    try:
        names = ['small_%06d' % i for i in range(1, 6)]
        crud(master, container, 11, names)
        assert client.list_objects(container) == []
        send(master, [{'type': PING}])
        pong = collect(master, 1)[0][0]
        assert pong['type'] == PING and pong['worker_id'] == 11
        send(master, [{'type': SUICIDE}])
        assert worker.wait(15) == 0
    finally:
        out = worker.stop()
    assert KEY not in out.replace('ST_KEY', '')


def test_configured_by_master_and_head_first(master, swift):
    client, containers = swift
    container = 'ssbench_e2e_%s' % uuid.uuid4().hex[:8]
    containers.append(container)
    worker = WorkerProcess(master, 12, ['-c', '2', '--batch-size', '3'],
                           env_auth=False)
    try:
        beat = None
        deadline = time.time() + 15
        while beat is None and time.time() < deadline:
            data = master.recv(0.2)
            if data is not None:
                beat = protocol.unpack(data)[0]
        assert beat['type'] == HEARTBEAT and beat['configured'] is False
        # The master authenticates; the worker gets the token.
        url, token, _ = authenticate(AuthOptions(auth_url=AUTH_URL,
                                                 user=USER, key=KEY))
        send(master, [configure_job(5.0, 10.0, grant=Grant([url], token, 1),
                                    renewable=True)])
        client.put_container(container)
        client.put_object(container, 'tiny_000001', 10)
        jobs = [{'type': CREATE_OBJECT, 'size_str': 'tiny',
                 'container': container, 'name': 'tiny_%06d' % i,
                 'size': 10, 'head_first': True} for i in (1, 2)]
        send(master, jobs)
        results, _ = collect(master, 2)
        assert all('exception' not in r for r in results), results
        assert sorted(client.list_objects(container)) == [
            'tiny_000001', 'tiny_000002']
        # An idle worker sends its results at once, often before its next
        # heartbeat (one a second): that one says it is configured.
        assert next_beat(master)['configured'] is True
        send(master, [{'type': SUICIDE}])
        assert worker.wait(15) == 0
    finally:
        worker.stop()


def test_failed_job_is_a_result(master, swift):
    worker = WorkerProcess(master, 13, ['--retries', '2'])
    try:
        send(master, [{'type': READ_OBJECT, 'size_str': 's',
                       'container': 'ssbench_no_such_container_e2e',
                       'name': 'nothing'}])
        result = collect(master, 1)[0][0]
        assert '404' in result['exception']
        assert result['retries'] == 2
        assert result['status'] == 404 and result['error_class'] is None
        assert result['trans_id'].startswith('tx')
        assert 'first_byte_latency' not in result
        send(master, [{'type': SUICIDE}])
        assert worker.wait(15) == 0
    finally:
        worker.stop()


def test_storage_urls_spread_over_two_proxies(master, swift):
    client, containers = swift
    container = 'ssbench_e2e_%s' % uuid.uuid4().hex[:8]
    containers.append(container)
    client.put_container(container)
    url = client.storage_urls()[0]
    urls = [url, url.replace(':8080', ':8090')]
    worker = WorkerProcess(master, 14, ['-S', urls[0], '-S', urls[1]])
    try:
        crud(master, container, 14, ['small_%06d' % i for i in range(1, 9)],
             size=10)
        send(master, [{'type': SUICIDE}])
        assert worker.wait(15) == 0
    finally:
        worker.stop()

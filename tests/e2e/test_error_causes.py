"""What result records say about each request's outcome (issue 10), with a
real worker process against the real local Swift: the final HTTP status,
the class of a socket-level failure, stale keep-alive connections counted
as reconnects (not retries) and the bytes a read got."""
from __future__ import absolute_import, division, print_function

import time

import pytest

from ssbench import READ_OBJECT
from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT, PING, SUICIDE, configure_job
from tests.e2e import support
from tests.relay import Relay

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


@pytest.fixture
def swift():
    support.require_swift()
    return support.SwiftView()


@pytest.fixture
def master():
    sockets = support.OneWorkerMaster()
    yield sockets
    sockets.close()


@pytest.fixture
def relay():
    """A relay to the local Swift that the test can cut."""
    proxy = Relay(('127.0.0.1', 8080)).start()
    yield proxy
    proxy.stop()


def results(master, count, timeout=60):
    """The next `count` results (heartbeats skipped)."""
    got = []
    deadline = time.time() + timeout
    while len(got) < count and time.time() < deadline:
        data = master.recv(0.2)
        if data is not None:
            got.extend(r for r in protocol.unpack(data)
                       if r.get('type') != HEARTBEAT)
    assert len(got) == count, got
    return got


def one(master, jobs):
    """Send `jobs` (control jobs and one Swift job); that job's result."""
    assert master.send(protocol.pack(jobs), timeout=10)
    return results(master, 1)[0]


def test_worker_records_status_class_and_reconnects(tmpdir, swift, master,
                                                    relay, workers):
    container = support.unique_base()
    swift.put_container(container)
    try:
        swift.client.put_object(swift.url, swift.token, container, 'o',
                                contents=b'x' * 3000)
        # One runner, so one pooled connection, through the relay.
        url = swift.url.replace(':8080/', ':%d/' % relay.port)
        worker = workers(31, master.work_port, master.results_port,
                         '-c', '1', '--retries', '2', '-S', url,
                         '-T', swift.token, env=support.no_auth_env())
        read = {'type': READ_OBJECT, 'size_str': 'tiny',
                'container': container, 'name': 'o'}

        ok = one(master, [read])
        assert 'exception' not in ok and 'error_class' not in ok
        assert (ok['status'], ok['size'], ok['retries'],
                ok['reconnects']) == (200, 3000, 0, 0)

        missing = one(master, [dict(read, name='missing')])
        assert '404' in missing['exception']
        assert (missing['status'], missing['error_class'],
                missing['retries'], missing['reconnects']) == (404, None,
                                                               2, 0)
        assert missing['trans_id'].startswith('tx')
        assert 'size' not in missing

        # The pooled connection is reset while idle: the next read finds
        # it dead and re-sends on a new connection, not a retry.
        relay.cut()
        relay.restore()
        again = one(master, [read])
        assert 'exception' not in again, again
        assert (again['status'], again['size'], again['retries'],
                again['reconnects']) == (200, 3000, 0, 1)

        # Cut and kept closed: the reset connection is replaced, and
        # every new one refused.
        relay.cut()
        refused = one(master, [read])
        assert (refused['status'], refused['error_class'],
                refused['retries'], refused['reconnects']) == (
                    None, 'ConnectionRefusedError', 2, 1)
        relay.restore()

        # No answer within the network timeout (0.2 ms: Swift needs
        # milliseconds for any GET).
        timed_out = one(master, [configure_job(network_timeout=0.0002),
                                 read])
        assert (timed_out['status'], timed_out['error_class'],
                timed_out['retries'], timed_out['reconnects']) == (
                    None, 'timeout', 2, 0)

        pong = one(master, [{'type': PING}])
        assert set(pong) == set(['type', 'worker_id', 'first_byte_latency',
                                 'last_byte_latency', 'trans_id', 'retries',
                                 'completed_at'])
        assert master.send(protocol.pack([{'type': SUICIDE}]), timeout=10)
        assert support.wait_exit(worker, 15) == 0
    finally:
        support.delete_expired(container)


def test_run_scenario_stats_file_records_causes(tmpdir):
    stats = support.run_with_errors(tmpdir)
    records = support.read_results(stats)
    ok = [r for r in records if 'exception' not in r]
    failed = [r for r in records if 'exception' in r]
    assert ok and failed, 'the run had no %s' % (
        'errors' if ok else 'successes')
    expected = {'upload_object': 201, 'get_object': 200,
                'delete_object': 204}
    created = dict(((r['container'], r['name']), r['size']) for r in ok
                   if r['type'] == 'upload_object')
    for r in ok:
        assert r['status'] == expected[r['type']], r
        assert 'error_class' not in r and r['reconnects'] >= 0
        assert r['retries'] >= 0
        if r['type'] == 'get_object':
            assert 100 <= r['size'] <= 2000
            key = (r['container'], r['name'])
            assert r['size'] == created.get(key, r['size'])
    # Only reads and deletes of an expired object fail: 404 after the
    # default 10 retries.
    for r in failed:
        assert r['type'] in ('get_object', 'delete_object'), r
        assert (r['status'], r['error_class'], r['retries']) == (404, None,
                                                                 10)
        assert r['reconnects'] >= 0 and r['trans_id'].startswith('tx')

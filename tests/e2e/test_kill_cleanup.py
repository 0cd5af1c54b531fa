"""`ssbench-master kill-workers` against hand-started ssbench-worker
processes, and `ssbench-master cleanup-containers` against the local Swift.
"""
from __future__ import absolute_import, division, print_function

import io
import os
import subprocess
import tarfile
import time

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e


# --- kill-workers ------------------------------------------------------------

def wait_connecting(procs, timeout=60):
    """Wait until every worker logged that it is connecting (it imported
    gevent and zmq and made its sockets)."""
    for proc in procs:
        def connecting():
            log = support.read_text(proc.log_path)
            if 'connecting to' in log:
                return True
            assert proc.poll() is None, log
        support.wait_for(connecting, timeout,
                         'worker pid %d connecting' % proc.pid, interval=0.1)


def kill_workers(work_port, results_port, *extra):
    return support.master(
        'kill-workers', '--zmq-bind-ip', '127.0.0.1',
        '--zmq-work-port', str(work_port),
        '--zmq-results_port', str(results_port), *extra, timeout=120)


def assert_exit(procs, timeout=30):
    for proc in procs:
        status = support.wait_exit(proc, timeout)
        assert status == 0, (status, support.read_text(proc.log_path))


def test_kill_workers_stops_two_hand_started_workers(workers):
    work, results = support.free_port(), support.free_port()
    procs = [workers(1, work, results), workers(2, work, results)]
    wait_connecting(procs)
    ran = kill_workers(work, results)
    assert ran.status == 0, ran
    assert_exit(procs)
    for proc in procs:
        assert 'told to exit' in support.read_text(proc.log_path)


def test_kill_workers_without_workers_returns(workers):
    work, results = support.free_port(), support.free_port()
    ran = kill_workers(work, results, '--timeout', '1')
    assert ran.status == 0, ran
    assert 'INFO:0 worker(s) told to exit' in ran.err, ran


def test_hand_started_workers_serve_a_run_then_are_killed(tmpdir, workers):
    support.require_swift()
    swift = support.SwiftView()
    work, results = support.free_port(), support.free_port()
    procs = [workers(worker_id, work, results, '--concurrency', '2')
             for worker_id in (7, 8)]
    path, data = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'hand.stat')
    try:
        wait_connecting(procs)
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '-o', '60',
            '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', str(work),
            '--zmq-results-port', str(results),
            # Both serve: 60 jobs may all be done before a worker that
            # connects a moment later is admitted on a busy machine.
            '--expect-workers', '2',
            *support.auth_args(), timeout=300)
        assert ran.status == 0, ran
        records = support.read_results(stats + '.gz')
        assert len(records) == 60
        assert [r for r in records if 'exception' in r] == []
        assert set(r['worker_id'] for r in records) == set([7, 8])
        assert 'Worker count:   2   Concurrency:   4' in ran.out
    finally:
        swift.delete_everything(data['container_base'] + '_')
    # The run's end did not stop the workers it did not start: both
    # still answer kill-workers' ping after it (a worker the run had
    # told to exit would have taken that first, and be gone), and each
    # is told to exit once, by kill-workers.
    ran = kill_workers(work, results)
    assert ran.status == 0, ran
    assert 'INFO:2 worker(s) told to exit' in ran.err, ran
    assert_exit(procs)
    for proc in procs:
        assert support.read_text(proc.log_path).count('told to exit') == 1


class FakeWorkers(object):
    """Workers that only heartbeat (each second, on the work connection,
    as ssbench-worker does: kill-workers learns workers from them), answer
    PING (after `delay` seconds, as a busy worker would) and obey SUICIDE
    (flushing owed answers first, as ssbench-worker does); in this
    process, recording what each one received."""

    def __init__(self, ids, work_port, results_port, delay=0.5):
        import zmq
        self.zmq = zmq
        self.delay = delay
        self.context = zmq.Context()
        self.sockets = {}
        self.received = dict((worker_id, []) for worker_id in ids)
        for worker_id in ids:
            dealer = self.context.socket(zmq.DEALER)
            push = self.context.socket(zmq.PUSH)
            for sock in (dealer, push):
                sock.setsockopt(zmq.LINGER, 1000)
            dealer.connect('tcp://127.0.0.1:%d' % work_port)
            push.connect('tcp://127.0.0.1:%d' % results_port)
            self.sockets[worker_id] = (dealer, push)

    def _heartbeat(self):
        from ssbench.wire import protocol
        for worker_id, (dealer, _) in self.sockets.items():
            record = protocol.heartbeat(worker_id, [])
            record.update(protocol.identity(1))
            dealer.send(protocol.pack([record]))

    def serve(self, until, timeout):
        from ssbench.wire import protocol
        poller = self.zmq.Poller()
        owner = {}
        for worker_id, (dealer, _) in self.sockets.items():
            poller.register(dealer, self.zmq.POLLIN)
            owner[dealer] = worker_id
        answers = []    # (due, worker_id, packed answer)
        deadline = time.time() + timeout
        beat_at = 0
        while self.sockets and time.time() < deadline and not until():
            if time.time() >= beat_at:
                self._heartbeat()
                beat_at = time.time() + 1
            for sock, _ in poller.poll(20):
                worker_id = owner[sock]
                for job in protocol.unpack(sock.recv()):
                    self.received[worker_id].append(job['type'])
                    if job['type'] == 'PING':
                        answers.append((time.time() + self.delay, worker_id,
                                        protocol.pack([protocol.result_ok(
                                            job, worker_id, 0.0, 0.0, None,
                                            0)])))
                    elif job['type'] == 'SUICIDE':
                        # Flush what is owed (as ssbench-worker does), exit.
                        for answer in [a for a in answers
                                       if a[1] == worker_id]:
                            answers.remove(answer)
                            self.sockets[worker_id][1].send(answer[2])
                        poller.unregister(sock)
                        for each in self.sockets.pop(worker_id):
                            each.close()
                        break
            for answer in [a for a in answers if a[0] <= time.time()]:
                answers.remove(answer)
                if answer[1] in self.sockets:
                    self.sockets[answer[1]][1].send(answer[2])

    def close(self):
        for dealer, push in self.sockets.values():
            dealer.close()
            push.close()
        self.context.term()


def test_kill_workers_tells_each_worker_and_counts_them(tmpdir):
    """kill-workers addresses each worker it heard a heartbeat from: it
    must stop every one (even those slow to answer its PING) and say how
    many it stopped."""
    work, results = support.free_port(), support.free_port()
    fakes = FakeWorkers([1, 2, 3], work, results)
    err_path = os.path.join(str(tmpdir), 'kill.err')
    try:
        with open(err_path, 'wb') as err:
            proc = subprocess.Popen(
                support.python_module('ssbench.cli.master') +
                ['kill-workers', '--zmq-bind-ip', '127.0.0.1',
                 '--zmq-work-port', str(work),
                 '--zmq-results-port', str(results), '--timeout', '2'],
                stdout=err, stderr=subprocess.STDOUT, cwd=support.ROOT)
        try:
            fakes.serve(lambda: proc.poll() is not None, 60)
            status = support.wait_exit(proc, 30)
        finally:
            support.stop_process(proc)
    finally:
        fakes.close()
    output = support.read_text(err_path)
    assert status == 0, output
    told = dict((w, 'SUICIDE' in got) for w, got in fakes.received.items())
    assert told == {1: True, 2: True, 3: True}, (fakes.received, output)
    assert 'INFO:3 worker(s) told to exit' in output, \
        (fakes.received, output)


# --- cleanup-containers ------------------------------------------------------

@pytest.fixture(scope='module')
def swift():
    support.require_swift()
    return support.SwiftView()


@pytest.fixture
def account(swift):
    """make(container, objects=(), policy=None); made containers are
    removed at teardown whatever the test did."""
    made = []

    def make(container, objects=(), policy=None):
        headers = {'X-Storage-Policy': policy} if policy else {}
        swift.client.put_container(swift.url, swift.token, container,
                                   headers=headers)
        made.append(container)
        for name in objects:
            swift.client.put_object(swift.url, swift.token, container, name,
                                    contents=b'x')
        return container
    yield make
    for container in made:
        swift.delete_everything(container)


def cleanup(base, *extra):
    return support.master('cleanup-containers', '-b', base,
                          *(list(extra) + support.auth_args()), timeout=600)


def contents(swift, prefix):
    return dict((c, swift.objects(c)) for c in swift.containers(prefix))


# Object names that need quoting in a DELETE.
ODD_NAMES = [u'with space', u'a/b/c', u'caf\u00e9 \u2603', u'q?x#y%z&',
             u'plus+sign']


def test_cleanup_deletes_matching_containers_and_keeps_the_rest(swift,
                                                                account):
    base = support.unique_base()
    policy = 'default_policy'
    doomed = {
        '%s_000000_%s' % (base, policy):
            ['obj_%03d' % i for i in range(40)] + ODD_NAMES,
        '%s_000001_%s' % (base, policy): ['a', 'b', 'c'],
        '%s_000002_%s' % (base, policy): [],
        '%s_1234567_%s' % (base, policy): ['z'],
    }
    kept = [
        '%s_abc_%s' % (base, policy),           # not digits
        '%s__%s' % (base, policy),              # no digits at all
        '%s_000001_silver' % base,              # another policy
        '%s_000001_%s_old' % (base, policy),    # trailing text
        '%sx_000001_%s' % (base, policy),       # a longer base
        'other%s_000001_%s' % (base, policy),   # another base
    ]
    for container, names in sorted(doomed.items()):
        account(container, names)
    for container in kept:
        account(container, ['keep-me'],
                policy='silver' if 'silver' in container else None)

    ran = cleanup(base, '-c', '3')
    assert ran.status == 0, ran
    left = contents(swift, base)
    left.update(contents(swift, 'other' + base))
    assert left == dict((c, ['keep-me']) for c in kept)
    assert 'Deleted 4 containers' in ran.err, ran
    assert 'and 49 objects' in ran.err, ran
    # Run again: nothing left to do, still a success.
    ran = cleanup(base)
    assert ran.status == 0, ran
    assert 'Deleted 0 containers' in ran.err, ran
    assert contents(swift, base) == dict((c, ['keep-me']) for c in kept
                                         if c.startswith(base))


def test_cleanup_of_a_policy(swift, account):
    base = support.unique_base()
    doomed = ['%s_%06d_silver' % (base, i) for i in range(3)]
    kept = ['%s_000000_default_policy' % base, '%s_000001_gold' % base]
    for i, container in enumerate(doomed):
        account(container, ['o%d' % j for j in range(i * 3)],
                policy='silver')
    for container in kept:
        account(container, ['keep-me'])
    ran = cleanup(base, '-p', 'silver')
    assert ran.status == 0, ran
    assert contents(swift, base) == dict((c, ['keep-me']) for c in kept)
    assert 'Deleted 3 containers' in ran.err and 'and 9 objects' in ran.err
    # The default (-p default_policy) takes the other one.
    ran = cleanup(base)
    assert ran.status == 0, ran
    assert contents(swift, base) == {kept[1]: ['keep-me']}


def test_cleanup_after_a_run(tmpdir, swift):
    """What a (kept, -k) run leaves, cleanup-containers removes."""
    path, data = support.write_scenario(tmpdir)
    base = data['container_base']
    try:
        ran = support.master(
            'run-scenario', '-f', path, '--workers', '2', '-o', '30', '-k',
            '-s', os.path.join(str(tmpdir), 'kept.stat'),
            *(support.zmq_args() + support.auth_args()), timeout=300)
        assert ran.status == 0, ran
        assert len(swift.containers(base + '_')) == 3
        ran = cleanup(base)
        assert ran.status == 0, ran
        assert swift.containers(base + '_') == []
        assert 'Deleted 3 containers' in ran.err, ran
    finally:
        swift.delete_everything(base + '_')


def test_cleanup_bad_credentials_fail_in_one_line(tmpdir):
    support.require_swift()
    ran = support.master('cleanup-containers', '-b', support.unique_base(),
                         '-A', support.AUTH_URL, '-U', support.USER,
                         '-K', 'wrong-key-123', timeout=120)
    assert ran.status == 1, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert len(errors) == 1 and support.AUTH_URL in errors[0], ran
    assert 'wrong-key-123' not in ran.err


# Swift lists at most 10,000 names per page; more than that in one container
# takes minutes to create on the local Swift, so this runs only on request.
SLOW = os.environ.get('SSBENCH_E2E_SLOW') == '1'


@pytest.mark.skipif(not SLOW, reason='set SSBENCH_E2E_SLOW=1 to run (a '
                    'container of 10,050 objects: several minutes)')
def test_cleanup_pages_through_a_long_listing(swift, account):
    import requests
    base = support.unique_base()
    container = account('%s_000000_default_policy' % base)
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w') as tar:
        for i in range(10050):
            info = tarfile.TarInfo('o%06d' % i)
            info.size = 0
            tar.addfile(info, io.BytesIO(b''))
    # One bulk extract-archive request instead of 10,050 PUTs.
    resp = requests.put('%s/%s?extract-archive=tar' % (swift.url, container),
                        data=buf.getvalue(), timeout=900,
                        headers={'X-Auth-Token': swift.token,
                                 'Accept': 'application/json'})
    assert resp.status_code == 200 and \
        resp.json()['Number Files Created'] == 10050, resp.text
    ran = cleanup(base, '-c', '20')
    assert ran.status == 0, ran
    assert swift.containers(base) == []
    assert 'and 10050 objects' in ran.err, ran

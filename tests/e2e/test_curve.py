"""CURVE mode end to end, with real ssbench-master/ssbench-worker processes:
runs complete, a worker without an accepted key gets no job and cannot
inject results, and a Swift key handed to workers never crosses the wire
in a readable form (each check also run without CURVE, to show it can
fail)."""
from __future__ import absolute_import, division, print_function

import os
import shutil
import threading
import time

import pytest
import zmq

from ssbench.wire import protocol
from ssbench.wire.curve.keys import CurveError, CurveKeys
from ssbench.wire.transport import WorkerSockets
from tests.e2e import support
from tests.relay import Relay

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

USER2, KEY2 = 'test2:tester2', 'testing2'


def key_dirs(tmpdir):
    """(good, rogue): the rogue knows the master's public key but has a
    worker key pair of its own, which the master never accepted."""
    from ssbench.wire.curve.keys import create_curve_keys
    good = str(tmpdir.join('good'))
    rogue = str(tmpdir.join('rogue'))
    create_curve_keys(good)
    create_curve_keys(rogue)
    os.remove(os.path.join(rogue, 'master.key'))
    shutil.copy(os.path.join(good, 'master.key'), rogue)
    return good, rogue


def fixed_ports():
    return support.free_port(), support.free_port()


def port_args(ports):
    return ['--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', str(ports[0]),
            '--zmq-results-port', str(ports[1])]


class Injector(object):
    """A rogue in this process: connects like a worker (with the given
    CURVE keys, or none) and keeps pushing fake result batches that name
    the even job ids up to MAX_ID, as if it had done those jobs (the odd
    ones are left to the workers, even if the injector is faster)."""

    MAX_ID = 400
    FAKE_WORKER = 99

    def __init__(self, ports, curve=None):
        # Its work socket goes nowhere: it must not take (and lose) jobs.
        self.sockets = WorkerSockets('127.0.0.1', support.free_port(),
                                     ports[1], green=False, curve=curve)
        records = [protocol.result_ok(
            {'type': 'upload_object', 'size_str': 'tiny', 'container':
             'fake', 'name': 'fake_%06d' % i, 'size': 1, 'noop': True,
             'job_id': i}, self.FAKE_WORKER, 0.001, 0.001, 'txFAKE', 0)
            for i in range(2, self.MAX_ID + 1, 2)]
        self.batch = protocol.pack(records)
        self.sent = 0
        self.refused = None
        self._stop = False
        self._thread = threading.Thread(target=self._run)
        self._thread.daemon = True
        self._thread.start()

    def _run(self):
        while not self._stop:
            try:
                self.sockets.poll(0.005)       # notices a refusal
            except CurveError as exc:
                self.refused = str(exc)
                time.sleep(0.005)
            if self.sockets.send(self.batch, timeout=0):
                self.sent += 1

    def wait_refused(self, timeout):
        """True once the master's refusal has reached the injector."""
        return self._wait(lambda: self.refused is not None, timeout)

    def wait_sent(self, timeout):
        """True once a batch went to a master (only possible connected)."""
        return self._wait(lambda: self.sent > 0, timeout)

    @staticmethod
    def _wait(condition, timeout):
        deadline = time.time() + timeout
        while not condition() and time.time() < deadline:
            time.sleep(0.01)
        return condition()

    def stop(self):
        self._stop = True
        self._thread.join(10)
        self.sockets.close()


def test_noop_run_with_local_workers(tmpdir):
    good, _ = key_dirs(tmpdir)
    path, _ = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat')
    ran = support.master('run-scenario', '-f', path, '--noop',
                         '--workers', '2', '--zmq-curve-dir', good,
                         '-s', stats, *support.zmq_args())
    assert ran.status == 0, ran
    results = support.read_results(stats + '.gz')
    assert len(results) == 120
    # (With --noop, the first worker may finish before the second joins.)
    assert set(r['worker_id'] for r in results) <= set([0, 1])
    assert 'refused' not in ran.err and 'handshake' not in ran.err
    assert '--zmq-curve-dir %s' % good in ran.err   # passed to local workers


# libzmq 4.3.2 may report a refused handshake to the client only late.
REPORTS_REFUSAL = zmq.zmq_version_info() >= (4, 3, 5)


def rogue_run(tmpdir, workers, good, rogue, use_curve):
    """One --noop run of 400 jobs while a rogue injector pushes fake
    results throughout and a rogue ssbench-worker (id 77) offers to work;
    returns (ran, results, rogue worker, injector, ports).

    A run this short could be over before a rogue reached the master. So
    with CURVE, worker 0 (the accepted key) starts only once both rogues
    were refused (the injector's refusal is seen on a libzmq that reports
    it); without CURVE, the rogue worker, which does every job, starts
    once the injector could send."""
    ports = fixed_ports()
    path, _ = support.write_scenario(tmpdir, operation_count=400)
    stats = os.path.join(str(tmpdir), 'run.stat')
    curve_args = ['--zmq-curve-dir', good] if use_curve else []
    rogue_args = ['--zmq-curve-dir', rogue] if use_curve else []
    injector = Injector(ports, CurveKeys(rogue) if use_curve else None)
    outcome = []
    master = threading.Thread(target=lambda: outcome.append(support.master(
        'run-scenario', '-f', path, '--noop', '-s', stats,
        *(curve_args + port_args(ports)))))
    master.start()
    try:
        if use_curve:
            rogue_worker = workers(77, ports[0], ports[1], *rogue_args)
            if REPORTS_REFUSAL:
                assert injector.wait_refused(60), 'injector not refused'
            assert support.wait_exit(rogue_worker, 60) == 2, \
                support.read_text(rogue_worker.log_path)
            workers(0, ports[0], ports[1], *curve_args)
        else:
            assert injector.wait_sent(60), 'the injector never connected'
            rogue_worker = workers(77, ports[0], ports[1], *rogue_args)
        master.join(310)
    finally:
        injector.stop()
    assert outcome, 'the master did not finish'
    ran = outcome[0]
    assert ran.status == 0, ran
    return (ran, support.read_results(stats + '.gz'), rogue_worker,
            injector, ports)


def test_rogue_is_served_and_can_inject_without_curve(tmpdir, workers):
    """The control: without CURVE the rogue worker takes jobs like any
    other and the injector's fakes reach the master, so the CURVE test
    below can fail.  (The master drops the fakes: no job they name went
    to the worker they name; with CURVE they do not even arrive.)"""
    good, rogue = key_dirs(tmpdir)
    ran, results, _, injector, _ = rogue_run(tmpdir, workers, good, rogue,
                                             False)
    by_worker = set(r['worker_id'] for r in results)
    assert by_worker == set([77])
    assert injector.sent > 0
    assert 'Dropped input on the results port: result of no job in ' \
        'flight' in ran.err, ran.err


def test_rogue_gets_no_job_and_cannot_inject(tmpdir, workers):
    good, rogue = key_dirs(tmpdir)
    ran, results, rogue_worker, injector, ports = rogue_run(
        tmpdir, workers, good, rogue, True)
    by_worker = set(r['worker_id'] for r in results)
    rogue_log = support.read_text(rogue_worker.log_path)
    assert by_worker == set([0]), by_worker
    assert len(results) == 400
    assert not [r for r in results if r.get('trans_id') == 'txFAKE']
    if REPORTS_REFUSAL:
        assert injector.sent == 0      # (4.3.2 queues one, never delivered)
        assert 'refused this worker' in injector.refused
    # The rogue worker was refused, said so in one line, and did nothing.
    assert support.wait_exit(rogue_worker, 30) == 2, rogue_log
    rogue_log = support.read_text(rogue_worker.log_path)
    assert 'ERROR:the master at tcp://127.0.0.1:%d refused this worker\'s ' \
        'CURVE key' % ports[0] in rogue_log or \
        'ERROR:the master at tcp://127.0.0.1:%d refused this worker\'s ' \
        'CURVE key' % ports[1] in rogue_log, rogue_log
    assert 'Traceback' not in rogue_log
    assert 'succeeded' not in rogue_log
    # The master logged the refused key once (both rogues share it).
    refusals = [line for line in ran.err.splitlines()
                if 'refused a worker' in line]
    assert len(refusals) == 1, ran.err
    assert good in refusals[0]


def test_kill_workers_reaches_only_accepted_workers(tmpdir, workers):
    """kill-workers runs without gevent: its CURVE authenticator is an OS
    thread, where run-scenario's is a greenlet."""
    good, rogue = key_dirs(tmpdir)
    ports = fixed_ports()
    friend = workers(5, ports[0], ports[1], '--zmq-curve-dir', good)
    stranger = workers(6, ports[0], ports[1], '--zmq-curve-dir', rogue)
    deadline = time.time() + 60
    for proc in (friend, stranger):
        while 'connecting to' not in support.read_text(proc.log_path):
            assert proc.poll() is None, support.read_text(proc.log_path)
            assert time.time() < deadline
            time.sleep(0.1)
    ran = support.master('kill-workers', '--zmq-curve-dir', good,
                         '--timeout', '3', *port_args(ports), timeout=120)
    assert ran.status == 0, ran
    assert 'INFO:1 worker(s) told to exit' in ran.err, (
        ran.err, support.read_text(friend.log_path))
    assert support.wait_exit(friend, 30) == 0
    assert support.wait_exit(stranger, 30) == 2
    assert 'refused this worker\'s CURVE key' in support.read_text(
        stranger.log_path)
    assert 'refused a worker at 127.0.0.1' in ran.err


# --- the Swift key on the wire (needs the local Swift) ----------------------

class Account2View(support.SwiftView):
    """The test2 account, whose key `testing2` is easy to recognise."""

    def __init__(self):
        from swiftclient import client
        self.client = client
        self.url, self.token = client.get_auth(support.AUTH_URL, USER2, KEY2,
                                               timeout=10)


@pytest.mark.parametrize('use_curve', [True, False],
                         ids=['curve', 'control-plain'])
def test_swift_key_never_crosses_the_wire(tmpdir, workers, use_curve):
    support.require_swift()
    good, _ = key_dirs(tmpdir)
    ports = fixed_ports()
    relays = [Relay(('127.0.0.1', port), record=True).start()
              for port in ports]
    path, data = support.write_scenario(tmpdir, operation_count=30)
    stats = os.path.join(str(tmpdir), 'run.stat')
    curve_args = ['--zmq-curve-dir', good] if use_curve else []
    view = Account2View()
    try:
        # The worker reaches the master only through the relays, and has
        # no credentials: the master hands it test2's storage URL and
        # token (never the key) in CONFIGURE.
        worker = workers(3, relays[0].port, relays[1].port, *curve_args,
                         env=support.no_auth_env())
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats,
            '-A', support.AUTH_URL, '-U', USER2, '-K', KEY2,
            *(curve_args + port_args(ports)), env=support.no_auth_env())
        assert ran.status == 0, ran
        support.stop_process(worker)
    finally:
        for relay in relays:
            relay.stop()
        view.delete_everything(data['container_base'] + '_')
    results = support.read_results(stats + '.gz')
    assert len(results) == 30
    assert [r for r in results if 'exception' in r] == []
    assert set(r['worker_id'] for r in results) == set([3])
    wire = b''.join(relay.bytes_seen() for relay in relays)
    assert len(wire) > 10000, len(wire)       # the run went through
    if use_curve:
        for readable in (KEY2, USER2, 'AUTH_test2', view.token,
                         'upload_object', data['container_base']):
            assert readable.encode('ascii') not in wire, readable
    else:
        # In plain text the storage URL and the jobs can be read; the key
        # is not there to read.
        assert b'AUTH_test2' in wire
        assert data['container_base'].encode('ascii') in wire
        assert KEY2.encode('ascii') not in wire


def test_a_master_that_refused_every_worker_says_so(tmpdir, workers):
    good, rogue = key_dirs(tmpdir)
    ports = fixed_ports()
    path, _ = support.write_scenario(tmpdir)
    outcome = []
    master = threading.Thread(target=lambda: outcome.append(support.master(
        'run-scenario', '-f', path, '--noop', '--zmq-curve-dir', good,
        '--worker-wait', '10', '-s', str(tmpdir.join('run.stat')),
        *port_args(ports))))
    master.start()
    workers(77, ports[0], ports[1], '--zmq-curve-dir', rogue)
    master.join(120)
    assert outcome, 'the master did not finish'
    ran = outcome[0]
    assert ran.status == 1, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert len(errors) == 1, ran
    assert errors[0].startswith('ERROR:no ssbench-worker connected within '
                                '10 s; the master refused '), ran
    assert 'not in %s (' % good in errors[0], ran
    assert CurveKeys(rogue).worker_keys()[1][0].decode('ascii') in \
        errors[0], ran

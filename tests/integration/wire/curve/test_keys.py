"""CURVE mode: the key directory (`python -m ssbench.cli.curve keys`), its
one-line errors, the ZAP rules, both command lines, and what crosses the
wire.  Socket-level admission tests live in test_transport.py."""
from __future__ import absolute_import, division, print_function

import os
import shutil
import subprocess
import sys
import threading

import pytest

from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT
from ssbench.wire.curve.keys import CurveKeys
from ssbench.wire.transport import MasterSockets, WorkerSockets
from tests import commands, paths
from tests.relay import Relay
from tests.waiting import wait_for

from tests.unit.wire.curve.test_keys import FILES, make_keys

pytestmark = pytest.mark.timeout(60)


ROOT = paths.ROOT


def test_tools_curve_keys_script(tmpdir):
    path = str(tmpdir.join('keys'))
    env = dict(os.environ, PYTHON=sys.executable)
    proc = subprocess.Popen([os.path.join(ROOT, 'tools', 'curve-keys'),
                             path], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    timer = threading.Timer(30, proc.kill)
    timer.start()
    try:
        out, err = proc.communicate()
    finally:
        timer.cancel()
    assert proc.returncode == 0, err
    assert sorted(os.listdir(path)) == FILES
    assert b'Wrote CURVE keys' in out


def test_zap_endpoint_is_per_master(tmpdir):
    # Two masters in one process each have their own authenticator.
    path = make_keys(tmpdir)
    first = MasterSockets('127.0.0.1', 0, 0, green=False,
                          curve=CurveKeys(path))
    second = MasterSockets('127.0.0.1', 0, 0, green=True,
                           curve=CurveKeys(path))
    handlers = first._zap, second._zap
    second.close()
    assert None not in handlers and handlers[0] is not handlers[1]
    assert first._zap is handlers[0] and second._zap is None
    first.close()


MARKER = b'ST_KEY-testing2-marker'


def relayed_exchange(tmpdir, use_curve):
    """Send MARKER both ways between a master and a worker connected
    through relays; returns every byte the relays saw."""
    keys = CurveKeys(make_keys(tmpdir)) if use_curve else None
    master = MasterSockets('127.0.0.1', 0, 0, green=False, curve=keys)
    relays = [Relay(('127.0.0.1', port), record=True).start()
              for port in (master.work_port, master.results_port)]
    worker = WorkerSockets('127.0.0.1', relays[0].port, relays[1].port,
                           green=False, curve=keys)
    try:
        job = protocol.pack([{'type': protocol.CONFIGURE,
                              'auth': {'key': MARKER.decode('ascii')}}])
        result = protocol.pack([{'type': HEARTBEAT, 'note': MARKER}])
        assert worker.send_control(result, timeout=10)
        heard = []
        wait_for(lambda: heard.extend(master.controls()) or heard, 10,
                 'the heartbeat on the work connection')
        assert heard[0][1] == result
        assert master.send_to(heard[0][0], job, timeout=10)
        assert worker.recv(10) == job
        assert worker.send(result, timeout=10)
        assert master.recv(10) == result
    finally:
        worker.close()
        master.close()
        for relay in relays:
            relay.stop()
    return b''.join(relay.bytes_seen() for relay in relays)


def test_nothing_readable_on_the_wire_with_curve(tmpdir):
    seen = relayed_exchange(tmpdir, True)
    assert len(seen) > 200            # the relays did carry the traffic
    assert MARKER not in seen
    assert b'CONFIGURE' not in seen and b'auth' not in seen
    assert b'CURVE' in seen           # (the ZMTP greeting is plain text)


def test_the_wire_check_can_fail(tmpdir):
    seen = relayed_exchange(tmpdir, False)
    # A heartbeat and a job on the work port, a result on the other.
    assert seen.count(MARKER) == 3


def run_cli(module, args, timeout=60):
    ran = commands.run([sys.executable, '-m', module] + list(args), timeout,
                       env={'PYTHONPATH': ROOT},
                       drop_env=('ST_AUTH', 'ST_USER', 'ST_KEY'))
    return ran.status, ran.out, ran.err


def test_run_scenario_checks_keys_before_anything(tmpdir):
    path = make_keys(tmpdir)
    os.remove(os.path.join(path, 'worker.key_secret'))
    scenario = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
    # The master's own keys are fine, but its local workers would lack
    # theirs: refused up front, before Swift or any worker is involved.
    status, out, err = run_cli('ssbench.cli.master', [
        'run-scenario', '-f', scenario, '--noop', '--workers', '1',
        '--zmq-curve-dir', path, '--zmq-work-port', '0',
        '--zmq-results-port', '0', '-A', 'http://127.0.0.1:9/auth/v1.0',
        '-U', 'u:u', '-K', 'k'])
    assert status == 2, err
    lines = [line for line in err.splitlines()
             if line.startswith('ERROR:')]
    assert len(lines) == 1 and 'worker.key_secret' in lines[0]
    assert 'Traceback' not in err and 'Spawning' not in err


def spawn_worker(master, worker_id, *extra):
    argv = [sys.executable, os.path.join(ROOT, 'bin', 'ssbench-worker'),
            '--zmq-work-port', str(master.work_port),
            '--zmq-results-port', str(master.results_port),
            '--master-timeout', '30'] + list(extra) + [str(worker_id)]
    env = dict(os.environ, PYTHONPATH=ROOT)
    for name in ('ST_AUTH', 'ST_USER', 'ST_KEY'):
        env.pop(name, None)
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)


def test_worker_processes_with_right_and_wrong_keys(tmpdir):
    good = make_keys(tmpdir, 'good')
    rogue = make_keys(tmpdir, 'rogue')
    os.remove(os.path.join(rogue, 'master.key'))
    shutil.copy(os.path.join(good, 'master.key'), rogue)
    master = MasterSockets('127.0.0.1', 0, 0, green=False,
                           curve=CurveKeys(good))
    procs = [spawn_worker(master, 8, '--zmq-curve-dir', good),
             spawn_worker(master, 9, '--zmq-curve-dir', rogue)]
    try:
        # The rogue gives up with one clear error line ...
        assert commands.wait_exit(procs[1], 20) == 2
        out = procs[1].stdout.read().decode('utf-8', 'replace')
        assert 'refused this worker\'s CURVE key' in out, out
        assert out.count('ERROR:') == 1 and 'Traceback' not in out
        # ... while the right one talks to the master.
        got = []

        def received():
            master.recv(0.2)
            got.extend(master.controls())
            return got
        wait_for(received, 20, 'a message from worker 8', interval=0)
        assert set(r['worker_id'] for _, data in got
                   for r in protocol.unpack(data)) == set([8])
        assert master.send_to(got[0][0], protocol.pack(
            [protocol.suicide_job()]), timeout=5)
        assert commands.wait_exit(procs[0], 15) == 0
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdout.close()
        master.close()

"""ssbench-worker's command line, in-process and as a real process."""
from __future__ import absolute_import, division, print_function

import os
import subprocess
import sys
import time

import pytest

from ssbench import READ_OBJECT
from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT, PING
from ssbench.wire.transport import MasterSockets
from tests import paths
from tests.commands import wait_exit

pytestmark = pytest.mark.timeout(60)


ROOT = paths.ROOT


def _spawn(master, *extra, **env_more):
    argv = [os.path.join(ROOT, 'bin', 'ssbench-worker'),
            '--zmq-work-port', str(master.work_port),
            '--zmq-results-port', str(master.results_port)] + list(extra)
    env = dict(os.environ, PYTHONPATH=ROOT, **env_more)
    for name in ('ST_AUTH', 'ST_USER', 'ST_KEY'):
        env.pop(name, None)
    return subprocess.Popen([sys.executable] + argv, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def _records(master, timeout, want):
    """Records from the results port and the work connection (where the
    heartbeats come); the routing id of the last worker heard is
    master.peer."""
    got = []
    deadline = time.time() + timeout
    while time.time() < deadline and not want(got):
        data = master.recv(0.2)
        if data is not None:
            got.extend(protocol.unpack(data))
        for peer, data in master.controls():
            master.peer = peer
            got.extend(protocol.unpack(data))
    return got


def test_process_noop_ping_suicide():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    proc = _spawn(master, '-c', '4', '5')
    try:
        beats = _records(master, 15, lambda got: got)
        assert beats and beats[0]['type'] == HEARTBEAT
        assert beats[0]['worker_id'] == 5
        assert beats[0]['configured'] is False
        jobs = [{'type': READ_OBJECT, 'size_str': 's', 'container': 'c',
                 'name': 'n%d' % i, 'noop': True} for i in range(10)]
        assert master.send_to(master.peer, protocol.pack(jobs), timeout=5)
        assert master.send_to(master.peer, protocol.pack([{'type': PING}]),
                              timeout=5)
        records = _records(master, 10, lambda got: len(
            [r for r in got if r['type'] != HEARTBEAT]) >= 11)
        results = [r for r in records if r['type'] != HEARTBEAT]
        assert sorted(r['name'] for r in results if 'name' in r) == sorted(
            j['name'] for j in jobs)
        assert [r['worker_id'] for r in results if r['type'] == PING] == [5]
        assert master.send_to(master.peer,
                              protocol.pack([{'type': 'SUICIDE'}]), timeout=5)
        assert wait_exit(proc, 10) == 0
        out = proc.stdout.read().decode('utf-8', 'replace')
        assert 'INFO:worker 5 exiting' in out
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        master.close()


def test_a_local_worker_names_its_run_in_its_heartbeats():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    proc = _spawn(master, '8', SSBENCH_LOCAL_RUN='00ff')
    try:
        beats = _records(master, 15, lambda got: got)
        assert beats and beats[0]['local_run'] == '00ff'
    finally:
        proc.kill()
        proc.wait()
        proc.stdout.close()
        master.close()


def test_process_exits_when_master_gone():
    master = MasterSockets('127.0.0.1', 0, 0, green=False)
    proc = _spawn(master, '--master-timeout', '1', '6')
    try:
        assert _records(master, 15, lambda got: got)   # connected
        master.close()
        status = wait_exit(proc, 15)
        assert status == 1
        out = proc.stdout.read().decode('utf-8', 'replace')
        assert 'ERROR:no master for 1 s' in out
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        proc.stdout.close()
        master.close()

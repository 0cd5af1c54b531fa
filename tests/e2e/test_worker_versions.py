"""Issue 21 items 3, 4 and 5 with real processes on this host, against
the local Swift: a worker announcing another wire protocol version is
refused in one line on both sides and takes no job while the run goes on
with the others; --expect-workers that does not get its count fails in one
line naming how many came; an `ssbench-worker --processes` parent reports
a child that dies and stops the others on SIGTERM or SIGINT."""
from __future__ import absolute_import, division, print_function

import os
import re
import signal
import subprocess
import sys

import pytest

from ssbench.wire import protocol
from tests.e2e import support
from tests.waiting import wait_for_text

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

# A worker whose wire protocol version is 99: the constant patched before
# the worker's main() reads it, in a real process.
OTHER_VERSION = ('import sys; import ssbench.wire.protocol as p; '
                 'p.PROTOCOL_VERSION = 99; '
                 'from ssbench.cli.worker import main; '
                 'sys.exit(main(sys.argv[1:]))')


def start(argv, log_path):
    with open(log_path, 'ab') as log:
        return subprocess.Popen(
            argv, stdout=log, stderr=subprocess.STDOUT,
            env=dict(os.environ, **support.no_auth_env()), cwd=support.ROOT,
            # Python 2's default would hand them this test's sockets.
            close_fds=True, preexec_fn=support.die_with_parent)


def worker_argv(ports, worker_id, launcher=None):
    head = [sys.executable, '-c', launcher] if launcher else \
        support.python_module('ssbench.cli.worker')
    return head + ['--zmq-host', '127.0.0.1', '--zmq-work-port',
                   str(ports[0]), '--zmq-results-port', str(ports[1]),
                   '--master-timeout', '60', '--concurrency', '2',
                   str(worker_id)]


def error_lines(text):
    return [line for line in text.splitlines()
            if line.startswith(('ERROR:', 'CRITICAL:'))]


def test_a_worker_of_another_protocol_is_refused_the_run_goes_on(tmpdir):
    ports = (support.free_port(), support.free_port())
    path, data = support.write_scenario(tmpdir, operation_count=40)
    base = data['container_base']
    stats = os.path.join(str(tmpdir), 'run.stat')
    logs = dict((w, os.path.join(str(tmpdir), 'worker-%d.log' % w))
                for w in (1, 2, 9))
    swift = support.SwiftView()
    procs = {}
    try:
        # The odd one first, and the others once the master refused it,
        # so that the test does not depend on who is heard first.
        procs[9] = start(worker_argv(ports, 9, OTHER_VERSION), logs[9])
        master_err = os.path.join(str(tmpdir), 'master.err')
        with open(master_err, 'wb') as err:
            master = subprocess.Popen(
                support.python_module('ssbench.cli.master') + [
                    'run-scenario', '-f', path, '-s', stats,
                    '--expect-workers', '2', '--worker-wait', '120',
                    '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port',
                    str(ports[0]), '--zmq-results-port', str(ports[1])] +
                support.auth_args(), stdout=subprocess.PIPE, stderr=err,
                cwd=support.ROOT, close_fds=True,
                preexec_fn=support.die_with_parent)
        procs['master'] = master
        wait_for_text(master_err, 'refused', timeout=120)
        for worker_id in (1, 2):
            procs[worker_id] = start(worker_argv(ports, worker_id),
                                     logs[worker_id])
        out = master.communicate()[0].decode('utf-8', 'replace')
        ran = support.Ran(master.returncode, out,
                          support.read_text(master_err))
        assert ran.status == 0, ran
        refused = [line for line in error_lines(ran.err)
                   if 'refused' in line]
        assert len(refused) == 1, ran
        why = ('it speaks wire protocol version 99, this master version '
               '%d' % protocol.PROTOCOL_VERSION)
        assert re.match(r'ERROR:worker 9 \(\S+\) refused: %s$' % why,
                        refused[0]), refused
        # The master told it (it never got a CONFIGURE, nor a job): it
        # exits with one line of its own.
        assert support.wait_exit(procs[9], 30) == 1
        told = error_lines(support.read_text(logs[9]))
        assert told == ['ERROR:worker 9 refused by the master: ' + why], \
            support.read_text(logs[9])
        # No job went to it: every result is the others', none lost.
        results = support.read_results(stats + '.gz')
        assert len(results) == 40
        assert set(r['worker_id'] for r in results) == set([1, 2])
        assert [r for r in results if 'exception' in r] == []
        assert 'lost' not in ran.err
    finally:
        for proc in procs.values():
            support.stop_process(proc)
        swift.delete_everything(base + '_')


def test_too_few_workers_fail_in_one_line(tmpdir):
    ports = (support.free_port(), support.free_port())
    path, _ = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat')
    log = os.path.join(str(tmpdir), 'worker.log')
    proc = start(worker_argv(ports, 5), log)
    try:
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '--noop',
            '--expect-workers', '3', '--worker-wait', '4',
            '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', str(ports[0]),
            '--zmq-results-port', str(ports[1]), timeout=120)
    finally:
        support.stop_process(proc)
    assert ran.status != 0
    assert 'Traceback' not in ran.err
    assert error_lines(ran.err) == [
        'ERROR:--expect-workers 3: 1 worker(s) connected and configured '
        'within 4 s (--worker-wait): 5'], ran
    assert not os.path.exists(stats + '.gz')


def wait_for_pids(log_path, count, proc, timeout=60):
    def started():
        log = support.read_text(log_path)
        found = re.search(r'started workers \d+ to \d+ \(pids ([\d ]+)\)',
                          log)
        assert found or proc.poll() is None, log
        return found
    found = support.wait_for(started, timeout,
                             lambda: 'the workers started in\n' +
                             support.read_text(log_path), interval=0.05)
    return [int(pid) for pid in found.group(1).split()]


@pytest.mark.parametrize('stop, status', [(signal.SIGTERM, 1),
                                          (signal.SIGINT, 130)])
def test_processes_parent_reports_a_dead_child_and_stops_the_rest(
        tmpdir, stop, status):
    ports = (support.free_port(), support.free_port())
    log_dir = os.path.join(str(tmpdir), 'logs')
    parent_log = os.path.join(str(tmpdir), 'parent.log')
    # No master: the workers wait for one (and hold no socket of the
    # parent's: it opens none).
    parent = start(support.python_module('ssbench.cli.worker') + [
        '--processes', '3', '--log-dir', log_dir, '--zmq-host', '127.0.0.1',
        '--zmq-work-port', str(ports[0]), '--zmq-results-port',
        str(ports[1]), '7'], parent_log)
    try:
        pids = wait_for_pids(parent_log, 3, parent)
        assert len(pids) == 3
        for worker_id in (7, 8, 9):
            wait_for_text(os.path.join(log_dir, 'worker-%d.log' % worker_id),
                          'worker %d connecting to' % worker_id, 60)
        # The parent's own descriptors: no socket at all.
        fds = os.listdir('/proc/%d/fd' % parent.pid)
        assert not [fd for fd in fds if os.readlink(
            '/proc/%d/fd/%s' % (parent.pid, fd)).startswith('socket:')]
        os.kill(pids[1], signal.SIGKILL)
        wait_for_text(parent_log, 'worker 8 (pid %d) killed by' % pids[1],
                      60)
        assert parent.poll() is None
        parent.send_signal(stop)
        assert support.wait_exit(parent, 30) == status
    finally:
        support.stop_process(parent)
    text = support.read_text(parent_log)
    dead = [line for line in text.splitlines() if 'worker 8 (pid' in line]
    assert len(dead) == 1 and dead[0].startswith('ERROR:'), text
    for worker_id, pid in ((7, pids[0]), (9, pids[2])):
        assert 'worker %d (pid %d) exited with status 0' % (
            worker_id, pid) in text, text
        log = support.read_text(os.path.join(log_dir,
                                             'worker-%d.log' % worker_id))
        assert 'worker %d received SIGTERM: stopping' % worker_id in log

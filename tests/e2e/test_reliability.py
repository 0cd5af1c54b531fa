"""Never hang, never lose a result, never leak a credential: real master
and worker processes, killed and interrupted on purpose."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from tests.e2e import support
from tests.relay import Relay

pytestmark = pytest.mark.e2e

SCENARIO = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')


class Procs(object):
    """Processes started by a test; all killed at teardown."""

    def __init__(self, tmpdir):
        self.tmpdir = str(tmpdir)
        self.procs = []

    def start(self, name, argv, env=None):
        out = io.open(os.path.join(self.tmpdir, name + '.out'), 'wb')
        err = io.open(os.path.join(self.tmpdir, name + '.err'), 'wb')
        full_env = dict(os.environ)
        full_env.update(env or {})
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=full_env,
                                cwd=support.ROOT)
        proc.name = name
        self.procs.append(proc)
        return proc

    def output(self, name):
        def read(suffix):
            with io.open(os.path.join(self.tmpdir, name + suffix), 'rb') as fp:
                return fp.read().decode('utf-8', 'replace')
        return read('.out'), read('.err')

    def worker(self, worker_id, ports, *extra):
        return self.start('worker%s' % worker_id, [
            sys.executable, '-m', 'ssbench.cli.worker',
            '--zmq-host', '127.0.0.1', '--zmq-work-port', str(ports[0]),
            '--zmq-results-port', str(ports[1])] + list(extra) +
            [str(worker_id)])

    def master(self, ports, *args, **kwargs):
        return self.start('master', [
            sys.executable, '-m', 'ssbench.cli.master'] +
            list(kwargs.get('global_args', [])) + [
                'run-scenario', '--zmq-bind-ip', '127.0.0.1',
                '--zmq-work-port', str(ports[0]),
                '--zmq-results-port', str(ports[1])] + list(args))

    def kill_all(self):
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


@pytest.fixture
def procs(tmpdir):
    p = Procs(tmpdir)
    yield p
    p.kill_all()


def wait(proc, timeout):
    deadline = time.time() + timeout
    while proc.poll() is None and time.time() < deadline:
        time.sleep(0.1)
    return proc.poll()


def wait_for_results(stats_plain, timeout=30):
    """Until the master has stored some results (plain file grows)."""
    support.wait_for(lambda: os.path.exists(stats_plain) and
                     os.path.getsize(stats_plain) > 2000, timeout,
                     'results stored in ' + stats_plain, interval=0.1)


def ports():
    return support.free_port(), support.free_port()


def test_a_worker_killed_mid_run_costs_only_its_jobs(tmpdir, procs):
    support.require_swift()
    path, data = support.write_scenario(tmpdir, user_count=8)
    stats = os.path.join(str(tmpdir), 'run.stat')
    p = ports()
    master = procs.master(p, '-f', path, '-s', stats, '-r', '12',
                          '--worker-timeout', '3',
                          *support.auth_args())
    w0 = procs.worker(0, p, '-c', '8')
    w1 = procs.worker(1, p, '-c', '8')
    try:
        wait_for_results(stats)
        time.sleep(1)
        w1.send_signal(signal.SIGKILL)
        killed_at = time.time()
        status = wait(master, 12 + 3 + 10 + 30)
        out, err = procs.output('master')
        assert status == 0, err
        assert time.time() - killed_at < 12 + 3 + 10 + 30
        results = support.read_results(stats + '.gz')
        errors = [r for r in results if 'exception' in r]
        assert errors, 'the killed worker held jobs: some must be lost'
        assert set(r['exception'] for r in errors) == set(['worker 1 lost'])
        assert 'worker 1 lost' in err
        # Worker 0 went on alone after the loss.
        last_ok = max(r['completed_at'] for r in results
                      if 'exception' not in r)
        assert last_ok > killed_at + 3
        assert ('%d error;' % len(errors)) in out.split('CREATE')[0]
    finally:
        support.SwiftView().delete_everything(data['container_base'] + '_')
        w0.kill()


def test_all_workers_killed_ends_the_run_cleanly(tmpdir, procs):
    stats = os.path.join(str(tmpdir), 'run.stat')
    p = ports()
    master = procs.master(p, '-f', SCENARIO, '--noop', '-s', stats,
                          '-o', '100000000', '-u', '8',
                          '--worker-timeout', '2')
    w0 = procs.worker(0, p)
    w1 = procs.worker(1, p)
    wait_for_results(stats)
    w0.send_signal(signal.SIGKILL)
    w1.send_signal(signal.SIGKILL)
    status = wait(master, 2 + 10 + 20)
    out, err = procs.output('master')
    assert status == 1, err
    assert 'ERROR:all workers lost' in err
    assert 'Traceback' not in err
    # The results received are on disk, gzipped, and reported on.
    results = support.read_results(stats + '.gz')
    assert results and all('exception' not in r or 'lost' in r['exception']
                           for r in results)
    assert 'TOTAL' in out


def test_workers_exit_when_their_master_is_killed(tmpdir, procs):
    p = ports()
    master = procs.master(p, '-f', SCENARIO, '--noop', '-o', '100000000',
                          '-s', os.path.join(str(tmpdir), 'run.stat'))
    workers = [procs.worker(i, p, '--master-timeout', '3') for i in (0, 1)]
    wait_for_results(os.path.join(str(tmpdir), 'run.stat'))
    master.send_signal(signal.SIGKILL)
    for worker in workers:
        assert wait(worker, 3 + 15) is not None, 'worker did not exit'


def test_sigint_gives_a_gzipped_stats_file_and_a_partial_report(tmpdir,
                                                                procs):
    stats = os.path.join(str(tmpdir), 'run.stat')
    p = ports()
    master = procs.master(p, '-f', SCENARIO, '--noop', '-s', stats,
                          '-o', '100000000', '--workers', '2')
    wait_for_results(stats)
    master.send_signal(signal.SIGINT)
    status = wait(master, 5 + 20)
    out, err = procs.output('master')
    assert status == 130, err
    assert not os.path.exists(stats)
    results = support.read_results(stats + '.gz')
    assert 0 < len(results) < 100000000
    assert 'TOTAL\n       Count: ' in out
    assert 'Traceback' not in err


def test_second_sigint_stops_at_once_leaving_a_readable_plain_file(tmpdir,
                                                                   procs):
    stats = os.path.join(str(tmpdir), 'run.stat')
    p = ports()
    master = procs.master(p, '-f', SCENARIO, '--noop', '-s', stats,
                          '-o', '100000000', '--drain-seconds', '60',
                          '--worker-timeout', '60')
    worker = procs.worker(0, p)
    wait_for_results(stats)
    worker.send_signal(signal.SIGSTOP)      # its jobs never come back
    try:
        time.sleep(0.5)
        master.send_signal(signal.SIGINT)   # drain: waits for the jobs
        time.sleep(1.5)
        assert master.poll() is None
        master.send_signal(signal.SIGINT)   # stop now
        status = wait(master, 15)
    finally:
        worker.send_signal(signal.SIGCONT)
    out, err = procs.output('master')
    assert status == 130, err
    assert 'not compressed' in err
    assert not os.path.exists(stats + '.gz')
    assert len(support.read_results(stats)) > 0


def test_swift_outage_mid_run_is_retried_then_counted(tmpdir, procs):
    support.require_swift()
    swift = support.SwiftView()
    account = swift.url.split('/v1/')[1]
    relay = Relay(('127.0.0.1', 8080)).start()
    path, data = support.write_scenario(tmpdir, user_count=4)
    stats = os.path.join(str(tmpdir), 'run.stat')
    p = ports()
    try:
        master = procs.master(
            p, '-f', path, '-s', stats, '-r', '10', '--workers', '2',
            '-S', 'http://127.0.0.1:%d/v1/%s' % (relay.port, account),
            *support.auth_args())
        wait_for_results(stats, timeout=60)
        relay.cut()
        time.sleep(3)
        relay.restore()
        status = wait(master, 10 + 60)
        out, err = procs.output('master')
        assert status == 0, err
        results = support.read_results(stats + '.gz')
        failed = [r for r in results if 'exception' in r]
        retried = [r for r in results if r.get('retries')]
        summary = '%d results, %d failed, %d retried; errors: %r' % (
            len(results), len(failed), len(retried),
            sorted(set(r['exception'][:80] for r in failed))[:5])
        assert failed or retried, summary
        assert all(r['retries'] >= 1 for r in failed), summary
        # Requests succeeded again after the outage.
        last_failure = max(r['completed_at'] for r in failed + retried)
        assert any('exception' not in r and r['completed_at'] > last_failure
                   for r in results), summary
    finally:
        relay.stop()
        swift.delete_everything(data['container_base'] + '_')


def test_a_recognisable_key_is_never_written_anywhere(tmpdir, procs):
    support.require_swift()
    from swiftclient import client
    key = 'testing2'
    url, token = client.get_auth(support.AUTH_URL, 'test2:tester2', key,
                                 timeout=10)
    path, data = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat')
    p = ports()
    # Debug logging: not even -v may show the key or the token.  The
    # workers' logs are kept, to be read.
    master = procs.master(p, '-f', path, '-s', stats, '--workers', '2',
                          '--keep-worker-logs',
                          '-o', '60', '-A', support.AUTH_URL,
                          '-U', 'test2:tester2', '-K', key,
                          global_args=['-v'])
    seen_workers = []
    deadline = time.time() + 120
    while master.poll() is None and time.time() < deadline:
        for pid in os.listdir('/proc'):
            if not pid.isdigit():
                continue
            try:
                with open('/proc/%s/cmdline' % pid, 'rb') as fp:
                    cmdline = fp.read()
                with open('/proc/%s/environ' % pid, 'rb') as fp:
                    environ = fp.read()
            except (IOError, OSError):
                continue
            if b'ssbench.cli.worker' in cmdline and \
                    str(p[0]).encode() in cmdline:
                seen_workers.append(pid)
                assert key.encode() not in cmdline
                assert key.encode() not in environ
                assert token.encode() not in cmdline + environ
        time.sleep(0.2)
    out, err = procs.output('master')
    assert master.returncode == 0, err
    assert seen_workers, 'never saw the local workers to inspect them'
    with gzip.open(stats + '.gz', 'rb') as fp:
        content = fp.read()
    logs = [err.encode('utf-8'), out.encode('utf-8')]
    log_paths = re.findall(r'logging to (\S+)\)', err)
    assert len(log_paths) == 2, err
    for path in log_paths:
        with open(path, 'rb') as fp:
            logs.append(fp.read())
    for blob in [content] + logs:
        assert key.encode() not in blob
        assert token.encode() not in blob
    support.SwiftView().delete_everything(data['container_base'] + '_')

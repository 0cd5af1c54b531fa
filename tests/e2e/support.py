"""Shared pieces of the end-to-end tests: bounded subprocesses, free ports,
an independent view of the local Swift (python-swiftclient's module
functions, not our own client), polling, and an outage of a relay in front
of the local Swift."""
from __future__ import absolute_import, division, print_function

import contextlib
import errno
import fcntl
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid

import pytest

# What the e2e tests find here, shared with the unit tests.
from tests.commands import (  # noqa: F401
    Ran, die_with_parent, free_port, run, stop_process, wait_exit, zmq_args)
from tests.localswift import (  # noqa: F401
    AUTH_URL, KEY, SAIO, USER, auth_args, require_swift, saio_up)
from tests.paths import ROOT
from tests.waiting import wait_for

SCENARIOS = os.path.join(ROOT, 'tests', 'data', 'scenarios')
SAIO_LOG = os.path.join(os.environ.get('SAIO_DIR', '/var/tmp/ssbench-saio'),
                        'log')


def master(*args, **kwargs):
    """Run `ssbench-master ARGS` (this interpreter) bounded in time."""
    timeout = kwargs.pop('timeout', 300)
    return run([sys.executable, '-m', 'ssbench.cli.master'] + list(args),
               timeout, **kwargs)


class SwiftView(object):
    """Direct access to the account, for checking what a run did."""

    def __init__(self):
        from swiftclient import client
        self.client = client
        self.url, self.token = client.get_auth(AUTH_URL, USER, KEY,
                                               timeout=10)

    def containers(self, prefix):
        _, listing = self.client.get_account(
            self.url, self.token, prefix=prefix, full_listing=True)
        return [c['name'] for c in listing]

    def objects(self, container):
        _, listing = self.client.get_container(
            self.url, self.token, container, full_listing=True)
        return sorted(o['name'] for o in listing)

    def head_container(self, container):
        return self.client.head_container(self.url, self.token, container)

    def head_object(self, container, name):
        return self.client.head_object(self.url, self.token, container, name)

    def put_container(self, container):
        self.client.put_container(self.url, self.token, container)

    def delete_everything(self, prefix):
        for container in self.containers(prefix):
            in_parallel(lambda name, container=container:
                        self.client.delete_object(self.url, self.token,
                                                  container, name),
                        self.objects(container))
            self.client.delete_container(self.url, self.token, container)


DELETERS = 8


def in_parallel(call, items, threads=DELETERS):
    """call(item) for each of `items`, from `threads` threads (each
    call its own connection): a test's hundreds of objects are gone in
    an eighth of the round trips one after another took (a 500-object
    teardown, 36 s of a loaded CI run); the first exception raised is
    raised here once all have finished."""
    items = list(items)
    failures = []

    def share(part):
        try:
            for item in part:
                call(item)
        except Exception as exc:
            failures.append(exc)
    started = [threading.Thread(target=share, args=(items[i::threads],))
               for i in range(min(threads, len(items)))]
    for thread in started:
        thread.start()
    for thread in started:
        thread.join()
    if failures:
        raise failures[0]


# Where host-wide locks of the e2e tests live: both interpreters' suites
# (and anyone's run of a single test) may run at once on one machine.
LOCK_DIR = '/tmp'


def try_lock(name):
    """The open file of the host-wide lock `name` when this process got
    it now, else None; held until that file is closed or the process
    ends (flock(2): a crashed holder leaves no stale lock)."""
    path = os.path.join(LOCK_DIR, 'ssbench-e2e-%s.lock' % name)
    fp = open(path, 'a')
    try:
        fcntl.flock(fp.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (IOError, OSError) as exc:
        fp.close()
        if exc.errno in (errno.EAGAIN, errno.EACCES):
            return None
        raise
    return fp


@contextlib.contextmanager
def host_lock(name, timeout):
    """Hold the host-wide lock `name` (waiting at most `timeout` s for
    whoever holds it) around a test's use of something the whole machine
    shares, as the other interpreter's suite may want it at once."""
    held = wait_for(lambda: try_lock(name), timeout,
                    'the host-wide lock %r' % name, interval=0.2)
    try:
        yield
    finally:
        held.close()


def unique_base():
    return 'e2e%s' % uuid.uuid4().hex[:8]


def access_lines(port):
    path = os.path.join(SAIO_LOG, 'proxy-%d.access' % port)
    with open(path, 'rb') as fp:
        return fp.read().decode('utf-8', 'replace').splitlines()


def write_scenario(directory, **changes):
    """A copy of tests/data/scenarios/e2e.scenario with `changes` applied
    (a unique container_base unless given); returns (path, data)."""
    import json
    with open(os.path.join(SCENARIOS, 'e2e.scenario')) as fp:
        data = json.load(fp)
    data['container_base'] = unique_base()
    data.update(changes)
    path = os.path.join(str(directory), '%s.scenario' % data['container_base'])
    with open(path, 'w') as fp:
        json.dump(data, fp)
    return path, data


def read_results(stats_path):
    from ssbench.results.statsreader import open_stats
    return list(open_stats(stats_path).iter_results())


def _whole_results(stats_path):
    """The whole results the plain stats file of a running master holds
    so far (the master flushes it every few tenths of a second; a batch
    still being written at its end does not count)."""
    from ssbench.errors import StatsFileError
    from ssbench.results.statsreader import open_stats
    try:
        for result in open_stats(stats_path, growing=True).iter_results():
            yield result
    except (StatsFileError, IOError, OSError, ValueError):
        return


def holds_a_result(stats_path, worker_id=None):
    """True once the plain stats file of a running master holds a whole
    result (of worker `worker_id`, when given)."""
    return any(worker_id is None or result.get('worker_id') == worker_id
               for result in _whole_results(stats_path))


def wait_for_a_result(stats_path, proc, timeout=120):
    """Poll until the running master `proc` has written a first result to
    its plain stats file; fails if it exits or `timeout` passes first."""
    _wait_while_running(proc, lambda: holds_a_result(stats_path), timeout,
                        'a first result in ' + stats_path)


def workers_with_results(stats_path):
    """The worker ids of the whole results the plain stats file of a
    running master holds so far."""
    return set(result.get('worker_id')
               for result in _whole_results(stats_path))


def wait_for_results_of(stats_path, proc, worker_ids, timeout=120):
    """Poll until the running master `proc` has written a result of each
    of `worker_ids` to its plain stats file; fails if it exits or
    `timeout` passes first."""
    wanted = set(worker_ids)
    _wait_while_running(
        proc, lambda: not wanted - workers_with_results(stats_path), timeout,
        'a result of each of workers %s' % (sorted(wanted),))


def _wait_while_running(proc, condition, timeout, what):
    """Poll condition() while the master `proc` runs; fail naming `what`
    if it exits or `timeout` passes first."""
    def done():
        if condition():
            return True
        assert proc.poll() is None, 'the master exited before ' + what
    wait_for(done, timeout, what, interval=0.05)


def results_so_far(stats_path):
    """How many whole results the plain stats file of a running master
    holds."""
    return sum(1 for _ in _whole_results(stats_path))


def wait_until_no_result_comes(stats_path, proc, quiet=1.0, timeout=60):
    """Poll until the running master `proc` has written no new result to
    its plain stats file for `quiet` seconds (10 times the writer's flush
    interval): it then takes in no more; fails if it exits or `timeout`
    passes first.  (Its own health records keep coming each second.)"""
    from ssbench.compat import monotonic
    last = {'count': -1, 'since': monotonic()}

    def quiet_long_enough():
        assert proc.poll() is None, 'the master exited'
        written, now = results_so_far(stats_path), monotonic()
        if written != last['count']:
            last.update(count=written, since=now)
            return False
        return now - last['since'] >= quiet
    wait_for(quiet_long_enough, timeout,
             'no new result for %g s in %s' % (quiet, stats_path),
             interval=0.1)


# --- Keystone (tools/keystone) ----------------------------------------------

KEYSTONE = os.path.join(ROOT, 'tools', 'keystone')
KEYSTONE_AUTH_URL = 'http://127.0.0.1:5000/v3'
OS_USER, OS_PASSWORD, OS_PROJECT = 'ssbench-user', 'ssbench-pass', 'ssbench'
KEYSTONE_LOG = os.path.join(
    os.environ.get('KEYSTONE_DIR', '/var/tmp/ssbench-keystone'), 'log')


def require_keystone():
    """Skip (fail under SSBENCH_REQUIRE_SWIFT=1) without tools/keystone's
    Keystone and its keystoneauth proxy on 8081."""
    require_swift()
    try:
        if run([KEYSTONE, 'status'], 30).status == 0:
            return
    except OSError:
        pass
    reason = ('local Keystone is not running (start it with tools/keystone '
              'start)')
    if os.environ.get('SSBENCH_REQUIRE_SWIFT') == '1':
        pytest.fail(reason)
    pytest.skip(reason)


def keystone_v3_args():
    """run-scenario/cleanup-containers flags for Keystone v3."""
    return ['-V', '3', '--os-auth-url', KEYSTONE_AUTH_URL,
            '--os-username', OS_USER, '--os-password', OS_PASSWORD,
            '--os-project-name', OS_PROJECT,
            '--os-user-domain-name', 'Default',
            '--os-project-domain-name', 'Default']


def no_auth_env():
    """Environment overrides that blank every ST_*/OS_* credential the
    caller's environment may carry (auth options treat '' as unset)."""
    return dict((name, '') for name in (
        'ST_AUTH', 'ST_USER', 'ST_KEY', 'ST_AUTH_VERSION', 'OS_AUTH_VERSION',
        'OS_USERNAME', 'OS_PASSWORD', 'OS_TENANT_ID', 'OS_TENANT_NAME',
        'OS_PROJECT_NAME', 'OS_PROJECT_ID', 'OS_USER_DOMAIN_NAME',
        'OS_USER_DOMAIN_ID', 'OS_PROJECT_DOMAIN_NAME',
        'OS_PROJECT_DOMAIN_ID', 'OS_AUTH_URL', 'OS_AUTH_TOKEN',
        'OS_STORAGE_URL', 'OS_REGION_NAME', 'OS_SERVICE_TYPE',
        'OS_ENDPOINT_TYPE', 'OS_CACERT'))


def keystone_access_lines():
    path = os.path.join(KEYSTONE_LOG, 'proxy-8081.access')
    with open(path, 'rb') as fp:
        return fp.read().decode('utf-8', 'replace').splitlines()


class KeystoneSwiftView(SwiftView):
    """SwiftView of the ssbench project's account, through the
    keystoneauth proxy (Keystone v3 credentials)."""

    def __init__(self):
        from swiftclient import client
        self.client = client
        self.url, self.token = client.get_auth(
            KEYSTONE_AUTH_URL, OS_USER, OS_PASSWORD, auth_version='3',
            os_options={'project_name': OS_PROJECT,
                        'user_domain_name': 'Default',
                        'project_domain_name': 'Default'},
            timeout=10)


# --- hand-started processes --------------------------------------------------

def python_module(module):
    return [sys.executable, '-m', module]


def start_worker(worker_id, work_port, results_port, log_path,
                 zmq_host='127.0.0.1', prefix=(), extra=(), env=None):
    """Start `ssbench-worker WORKER_ID` (this interpreter) in the
    background, logging to log_path; `prefix` wraps the command (e.g.
    `ip netns exec NS`, which execs, so the pid stays the worker's).
    A --master-timeout makes a forgotten worker exit on its own."""
    argv = (list(prefix) + python_module('ssbench.cli.worker') +
            ['--zmq-host', zmq_host, '--zmq-work-port', str(work_port),
             '--zmq-results-port', str(results_port),
             '--master-timeout', '120'] + list(extra) + [str(worker_id)])
    full_env = dict(os.environ)
    full_env.update(env or {})
    with open(log_path, 'ab') as logfile:
        return subprocess.Popen(argv, stdout=logfile,
                                stderr=subprocess.STDOUT, env=full_env,
                                cwd=ROOT, preexec_fn=die_with_parent)


def read_text(path):
    try:
        with open(path, 'rb') as fp:
            return fp.read().decode('utf-8', 'replace')
    except (IOError, OSError):
        return ''


# --- a run with real errors (issue 10) -------------------------------------

def run_with_errors(directory, run_seconds=4, extra=(), timeout=240):
    """Run a short real `run-scenario` (2 local workers) against the local
    Swift whose stats file holds both successes and real errors; returns
    the path of that (gzipped) stats file, in `directory`.

    The objects the benchmark creates expire after 1 s (delete_after), so
    reads and deletes that draw one later fail with 404 after retries,
    while the initial population stays readable.  The run's containers are
    removed afterwards.  Skips (or fails) like require_swift(); a failed
    run raises AssertionError with its output.
    """
    require_swift()
    path, data = write_scenario(
        directory, name='error causes', delete_after=1,
        sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 2000}],
        initial_files={'tiny': 10}, crud_profile=[40, 40, 0, 20],
        user_count=4, container_count=2, container_concurrency=2)
    stats = os.path.join(str(directory), data['container_base'] + '.stat')
    try:
        ran = master('run-scenario', '-f', path, '-s', stats,
                     '--workers', '2', '-k', '-r', str(run_seconds),
                     *(zmq_args() + auth_args() + list(extra)),
                     timeout=timeout)
        assert ran.status == 0, ran
    finally:
        delete_expired(data['container_base'] + '_')
    return stats + '.gz'


def delete_expired(prefix):
    """SwiftView.delete_everything for containers that may list expired
    objects: Swift answers their DELETE 404 but still unlists them."""
    from swiftclient.exceptions import ClientException
    view = SwiftView()

    def delete(container, name):
        try:
            view.client.delete_object(view.url, view.token, container, name)
        except ClientException as exc:
            if exc.http_status != 404:
                raise
    for container in view.containers(prefix):
        in_parallel(lambda name, container=container: delete(container, name),
                    view.objects(container))
        view.client.delete_container(view.url, view.token, container)


# --- a real Prometheus (Debian's) -------------------------------------------

PROMETHEUS = (shutil.which('prometheus') if hasattr(shutil, 'which')
              else None) or '/usr/bin/prometheus'


@contextlib.contextmanager
def prometheus(directory, rule_files=()):
    """(Prometheus's port, the port it scrapes each second as job
    "ssbench"): Prometheus running on loopback with its data and log in
    `directory` and `rule_files` loaded, stopped on exit.  Skips when
    Debian's package is missing (tools/run-tests installs it), fails
    instead under SSBENCH_REQUIRE_PROMETHEUS=1 (CI)."""
    if not os.path.exists(PROMETHEUS):
        if os.environ.get('SSBENCH_REQUIRE_PROMETHEUS') == '1':
            pytest.fail('Debian\'s prometheus package is not installed')
        pytest.skip('Debian\'s prometheus package is not installed')
    port, target = free_port(), free_port()
    config = os.path.join(str(directory), 'prometheus.yml')
    with open(config, 'w') as fp:
        fp.write('global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n'
                 '  evaluation_interval: 1s\n'
                 'rule_files: [%s]\n'
                 'scrape_configs:\n  - job_name: ssbench\n'
                 '    static_configs:\n'
                 '      - targets: ["127.0.0.1:%d"]\n' % (
                     ', '.join('"%s"' % path for path in rule_files),
                     target))
    log = open(os.path.join(str(directory), 'prometheus.log'), 'wb')
    proc = subprocess.Popen(
        [PROMETHEUS, '--config.file', config, '--storage.tsdb.path',
         os.path.join(str(directory), 'prometheus-data'),
         '--web.listen-address', '127.0.0.1:%d' % port],
        stdout=log, stderr=subprocess.STDOUT, preexec_fn=die_with_parent)
    try:
        wait_for(lambda: _ready(port), 60, 'Prometheus to start',
                 interval=0.2)
        yield port, target
    finally:
        stop_process(proc)
        log.close()


def _ready(port):
    try:
        from urllib.request import urlopen
    except ImportError:  # Python 2
        from urllib2 import urlopen
    try:
        return urlopen('http://127.0.0.1:%d/-/ready' % port,
                       timeout=2).getcode() == 200
    except Exception:
        return False


# --- an outage between the workers and the local Swift (issue 20) ----------

STALL = 3.0       # seconds outage() has the relay forward nothing
REFUSED = 2.0     # seconds it then has it refuse connections


def outage(relay):
    """Stall `relay` for STALL s, then cut it for REFUSED s; the seconds
    it really stalled."""
    import time
    relay.stall()
    stalled = time.time()
    time.sleep(STALL)        # the outage itself, not a wait for a result
    relay.cut()
    lasted = time.time() - stalled
    time.sleep(REFUSED)
    relay.resume()
    relay.restore()
    return lasted


def run_through_an_outage(directory, relay, extra=()):
    """run-scenario (16 users, 2 workers, 8 s of tiny objects) against the
    local Swift through `relay`, with an outage() once the first results
    are in; its records and how long the relay stalled.  The run must
    succeed; its containers are removed afterwards."""
    require_swift()
    swift = SwiftView()
    account = swift.url.split('/v1/')[1]
    path, data = write_scenario(
        directory, user_count=16, initial_files={'tiny': 20},
        sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 2000}],
        crud_profile=[30, 60, 10, 0])
    stats = os.path.join(str(directory), 'run.stat')
    ran = []
    runner = threading.Thread(target=lambda: ran.append(master(
        'run-scenario', '-f', path, '-s', stats, '-r', '8', '--workers', '2',
        '-R', '-S', 'http://127.0.0.1:%d/v1/%s' % (relay.port, account),
        *(list(extra) + zmq_args() + auth_args()), timeout=240)))
    runner.start()
    try:
        # The first results are in (or the run ended: say how).
        wait_for(lambda: not runner.is_alive() or (
            os.path.exists(stats) and os.path.getsize(stats) > 2000), 120,
            'first results')
        assert runner.is_alive(), ran
        stall = outage(relay)
        runner.join(240)
        assert ran and ran[0].status == 0, ran
    finally:
        runner.join(240)
        swift.delete_everything(data['container_base'] + '_')
    return read_results(stats + '.gz'), stall


# --- network namespaces ------------------------------------------------------

# The port of the swift host's address at which conftest's swift_relay
# forwards to the local Swift.
NETNS_SWIFT_PORT = 8080


def skip_netns(reason):
    """Skip a test that network namespaces (or a tool it runs in them)
    are missing for, saying why on stderr; fail instead under
    SSBENCH_REQUIRE_NETNS=1 (CI, where they must be there)."""
    sys.stderr.write('SKIP: %s\n' % reason)
    if os.environ.get('SSBENCH_REQUIRE_NETNS') == '1':
        pytest.fail(reason)
    pytest.skip(reason)


class OneWorkerMaster(object):
    """A bare master end (ssbench.wire.transport.MasterSockets) for tests
    that drive one real worker by hand: send() goes to the worker that
    heartbeats on the work connection (the first one heard, waited for
    within the send's timeout), and recv() returns the messages of both
    ports, heartbeats included, as one stream."""

    def __init__(self):
        from ssbench.wire.transport import MasterSockets
        self.sockets = MasterSockets('127.0.0.1', 0, 0, green=False)
        self.work_port = self.sockets.work_port
        self.results_port = self.sockets.results_port
        self.peer = None
        self.heard = []

    def _take_controls(self):
        for peer, data in self.sockets.controls():
            if self.peer is None:
                self.peer = peer
            self.heard.append(data)

    def send(self, data, timeout=None):
        """Queue `data` for the worker; False when no worker was heard
        or its queue stayed full for `timeout` seconds."""
        deadline = time.time() + (60 if timeout is None else timeout)
        while self.peer is None:
            self._take_controls()
            if self.peer is None:
                if time.time() >= deadline:
                    return False
                time.sleep(0.02)
        return bool(self.sockets.send_to(
            self.peer, data, max(0, deadline - time.time())))

    def recv(self, timeout=None):
        """The next message of either port, or None after `timeout`."""
        deadline = time.time() + (60 if timeout is None else timeout)
        while True:
            self._take_controls()
            if self.heard:
                return self.heard.pop(0)
            data = self.sockets.recv(max(0, deadline - time.time()))
            if data is not None:
                return data
            if time.time() >= deadline:
                return None

    def close(self):
        self.sockets.close()

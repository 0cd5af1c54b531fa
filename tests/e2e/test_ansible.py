"""deploy/ansible/bench.yml for real: a master host and two client hosts,
each a network namespace (tests/e2e/netns.py), the clients reached over
ssh (Debian's openssh-server, one sshd per client host on its own address,
with a host key and an authorized key made here), Swift behind the relay.

ansible-playbook runs on the master host (local connection there), as an
operator runs it from the master.  The client hosts have no package
index: the playbook installs ssbench into a virtualenv on each from a
wheelhouse of this checkout (tests/e2e/wheelhouse.py).  The namespaces
share this machine's one filesystem and its one systemd, whose units would
run outside the namespaces: the workers run as background processes with a
pid file (ssbench_use_systemd=false), each host in a folder of its own.

The workers run as an unprivileged user, `nobody` here (the play would
make its own system user, which would outlive the test on this machine's
one /etc/passwd).  Their folders are in a world-searchable temporary
directory, and where this interpreter lives under a directory others
cannot search (pyenv's under /root), each client host's sshd runs in a
mount namespace of its own where that directory is a tmpfs holding only
the interpreter's tree: the workers can run it, nothing else changes.

Needs Linux, root, iproute2, /usr/sbin/sshd and ansible-playbook next to
this interpreter (setup.py's test extra, Python 3.11+); skipped with the
reason otherwise.  Everything started is stopped by the fixtures.
"""
from __future__ import absolute_import, division, print_function

import glob
import json
import os
import pwd
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time

import pytest

from tests.e2e import netns, support

pytestmark = pytest.mark.e2e

SSHD = '/usr/sbin/sshd'
PLAYBOOK = os.path.join(support.ROOT, 'deploy', 'ansible', 'bench.yml')
ANSIBLE_PLAYBOOK = os.path.join(os.path.dirname(sys.executable),
                                'ansible-playbook')
CLIENTS = ('w1', 'w2')
OPS = 80
PLAYBOOK_TIMEOUT = 600
# The unprivileged user the workers run as.
WORKER_USER = 'nobody'


@pytest.fixture(scope='module')
def topology():
    if not os.path.exists(ANSIBLE_PLAYBOOK):
        support.skip_netns('no %s (ansible-core: the test extra, Python '
                           '3.11+)' % ANSIBLE_PLAYBOOK)
    if not os.path.exists(SSHD):
        support.skip_netns('no %s (Debian: apt-get install openssh-server)'
                           % SSHD)
    reason = netns.unavailable_reason()
    if reason:
        support.skip_netns('the playbook test needs network namespaces: ' +
                           reason)
    support.require_swift()
    netns.reap_stale()
    topo = netns.Topology(ipv6=False).up()
    yield topo
    assert topo.down() == []


def _keygen(path):
    subprocess.check_call(['ssh-keygen', '-q', '-t', 'ed25519', '-N', '',
                           '-C', 'ssbench-e2e', '-f', path])
    with open(path + '.pub') as fp:
        return fp.read().strip()


def _wait_port(topology, host, address, port, proc, timeout=30):
    code = ('import socket; socket.create_connection((%r, %d), 2).close()'
            % (address, port))
    deadline = time.time() + timeout
    while time.time() < deadline and proc.poll() is None:
        ran = support.run(topology.prefix_argv(host) +
                          [sys.executable, '-c', code], 10)
        if ran.status == 0:
            return True
        time.sleep(0.1)
    return False


def _hidden_ancestor(path):
    """The highest directory above `path` that others may not search
    (mode without o+x), or None."""
    parts = os.path.realpath(path).split(os.sep)
    for depth in range(2, len(parts)):
        directory = os.sep.join(parts[:depth])
        if not os.stat(directory).st_mode & stat.S_IXOTH:
            return directory
    return None


def _python_visible(argv, stash):
    """`argv` run in a mount namespace of its own where this interpreter's
    tree (sys.base_prefix) can be run by any user: the directory above it
    that others cannot search is a tmpfs there, with only that tree bound
    back in (through `stash`, an empty directory); `argv` as it is when
    nothing hides the interpreter."""
    prefix = os.path.realpath(sys.base_prefix)
    hidden = _hidden_ancestor(prefix)
    if hidden is None:
        return argv
    tree = os.path.join(hidden, os.path.relpath(prefix, hidden).split(
        os.sep)[0])
    script = ('set -e; mount --make-rprivate /; mount --bind "$1" "$2"; '
              'mount -t tmpfs -o mode=0755 ssbench-e2e "$3"; '
              'mkdir -p "$1"; mount --bind "$2" "$1"; shift 3; exec "$@"')
    return ['unshare', '--mount', 'sh', '-c', script, 'sh', tree, stash,
            hidden] + list(argv)


@pytest.fixture(scope='module')
def public_dir():
    """A world-searchable temporary directory, for the hosts' folders
    (pytest's own is root's alone); removed at the end."""
    path = tempfile.mkdtemp(prefix='ssbench-e2e-', dir='/var/tmp')
    os.chmod(path, 0o755)
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(scope='module')
def ssh_hosts(topology, tmpdir_factory, public_dir):
    """One sshd per client host, on its address, port 22 of its namespace;
    yields the key and known_hosts paths for ssh."""
    folder = str(tmpdir_factory.mktemp('ssh'))
    host_key = os.path.join(folder, 'host_key')
    host_pub = _keygen(host_key)
    user_key = os.path.join(folder, 'user_key')
    authorized = os.path.join(folder, 'authorized_keys')
    with open(authorized, 'w') as fp:
        fp.write(_keygen(user_key) + '\n')
    known_hosts = os.path.join(folder, 'known_hosts')
    with open(known_hosts, 'w') as fp:
        for host in CLIENTS:
            fp.write('%s %s\n' % (topology.addr(host),
                                  ' '.join(host_pub.split()[:2])))
    # sshd's privilege separation needs it; the Debian package makes it
    # when its service starts, which it has not here.
    if not os.path.isdir('/run/sshd'):
        os.makedirs('/run/sshd', 0o755)
    procs = []
    try:
        for host in CLIENTS:
            config = os.path.join(folder, 'sshd-%s.conf' % host)
            with open(config, 'w') as fp:
                fp.write('\n'.join([
                    'ListenAddress %s:22' % topology.addr(host),
                    'HostKey %s' % host_key,
                    'AuthorizedKeysFile %s' % authorized,
                    'PidFile none',
                    'PermitRootLogin prohibit-password',
                    'PasswordAuthentication no',
                    'KbdInteractiveAuthentication no',
                    'UsePAM no',
                    'StrictModes no',
                    'Subsystem sftp internal-sftp',
                    '']))
            log = open(os.path.join(folder, 'sshd-%s.log' % host), 'ab')
            stash = os.path.join(public_dir, 'python-' + host)
            os.mkdir(stash)
            proc = subprocess.Popen(
                topology.prefix_argv(host) + _python_visible(
                    [SSHD, '-D', '-e', '-f', config], stash),
                stdout=log, stderr=subprocess.STDOUT,
                preexec_fn=support.die_with_parent)
            log.close()
            procs.append(proc)
            assert _wait_port(topology, 'm', topology.addr(host), 22, proc), \
                support.read_text(log.name)
        yield {'key': user_key, 'known_hosts': known_hosts}
    finally:
        for proc in procs:
            support.stop_process(proc)


@pytest.fixture(scope='module')
def wheels(tmpdir_factory):
    from tests.e2e import wheelhouse
    directory = str(tmpdir_factory.mktemp('wheelhouse'))
    scratch = str(tmpdir_factory.mktemp('wheel-build'))
    return directory, wheelhouse.build(directory, scratch)


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError:
        return False
    return True


def _kill_group(pid_file):
    """What the playbook's stop would do, for a test that failed before
    it: SIGKILL to the workers' process group."""
    try:
        with open(pid_file) as fp:
            pid = int(fp.read().strip())
    except (IOError, OSError, ValueError):
        return
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


# Each case is a whole deployment (minutes of CI): the default (CURVE,
# keys made on the master host) and the keys of a controller directory.
# Plain text (ssbench_curve false) leaves out three tasks and an option;
# test_deploy checks those conditions without a deployment.
@pytest.mark.parametrize('traffic', ['default', 'curve'])
def test_playbook_runs_a_scenario_over_two_client_hosts(
        tmpdir, topology, swift_relay, ssh_hosts, wheels, public_dir,
        traffic):
    """`traffic`: the default (CURVE, keys made on the master host) or
    the keys of a controller directory."""
    wheel_dir, ssbench_wheel = wheels
    work = str(tmpdir)
    swift = support.SwiftView()
    account = swift.url.split('/v1/', 1)[1]
    scenario, data = support.write_scenario(tmpdir, user_count=4)
    base = data['container_base']
    swift_url = 'http://%s:%d' % (topology.addr('swift'),
                                  support.NETNS_SWIFT_PORT)
    # Where the workers' user can reach them.
    public = tempfile.mkdtemp(prefix=traffic + '-', dir=public_dir)
    os.chmod(public, 0o755)
    homes = dict((host, os.path.join(public, host))
                 for host in ('m',) + CLIENTS)
    # An inventory folder: the hosts, and each host's folders.
    inventory = os.path.join(work, 'inventory')
    os.makedirs(os.path.join(inventory, 'host_vars'))
    with open(os.path.join(inventory, 'hosts'), 'w') as fp:
        fp.write('[ssbench_master]\n')
        fp.write('m ansible_connection=local ansible_host=%s\n'
                 % topology.addr('m'))
        fp.write('[ssbench_clients]\n')
        for host in CLIENTS:
            fp.write('%s ansible_host=%s\n' % (host, topology.addr(host)))
    # Each host's virtualenv is the module's: the first deployment makes
    # it from the wheelhouse, the second finds ssbench installed there
    # (pip's task then changes nothing) and saves three virtualenvs' worth
    # of unpacking gevent and its kin; everything else is the case's own.
    venvs = dict((host, os.path.join(public_dir, 'venv-' + host))
                 for host in homes)
    for host, home in homes.items():
        with open(os.path.join(inventory, 'host_vars', host + '.json'),
                  'w') as fp:
            json.dump({'ssbench_home': home, 'ssbench_venv': venvs[host]},
                      fp)
    fetched = os.path.join(work, 'fetched')
    settings = {
        'ansible_user': 'root',
        'ansible_python_interpreter': '/usr/bin/python3',
        'ansible_ssh_private_key_file': ssh_hosts['key'],
        'ansible_ssh_common_args':
            '-o UserKnownHostsFile=%s -o StrictHostKeyChecking=yes'
            % ssh_hosts['known_hosts'],
        'ssbench_python': getattr(sys, '_base_executable', sys.executable),
        'ssbench_package': ssbench_wheel,
        'ssbench_wheelhouse': wheel_dir,
        'ssbench_use_systemd': False,
        'ssbench_user': WORKER_USER,
        'ssbench_concurrency': 2,
        'ssbench_scenario': scenario,
        'ssbench_run_name': 'e2e',
        'ssbench_fetch_dir': fetched,
        'ssbench_auth_env': {'ST_AUTH': swift_url + '/auth/v1.0',
                             'ST_USER': support.USER,
                             'ST_KEY': support.KEY},
        'ssbench_run_opts': '-o %d --zmq-bind-ip %s -S %s/v1/%s' % (
            OPS, topology.addr('m'), swift_url, account),
    }
    if traffic == 'curve':
        keys = os.path.join(work, 'keys')
        ran = support.run(support.python_module('ssbench.cli.curve') +
                          ['keys', keys], 60)
        assert ran.status == 0, ran
        settings['ssbench_curve_dir'] = keys
    extra = os.path.join(work, 'settings.json')
    with open(extra, 'w') as fp:
        json.dump(settings, fp)
    env = support.no_auth_env()
    env.update({
        'ANSIBLE_LOCAL_TEMP': os.path.join(work, 'ansible-local'),
        'ANSIBLE_REMOTE_TEMP': os.path.join(work, 'ansible-remote'),
        # No ssh master left behind after the playbook.
        'ANSIBLE_SSH_ARGS': '-o ControlMaster=no',
        # Each task's module through the ssh session's stdin, not copied
        # over first: a connection per task instead of three or four.
        'ANSIBLE_PIPELINING': '1',
        'ANSIBLE_NOCOLOR': '1',
        'ANSIBLE_FORCE_COLOR': '0',
        'PATH': os.path.dirname(sys.executable) + os.pathsep +
        os.environ.get('PATH', ''),
    })
    pid_files = [os.path.join(homes[host], 'worker.pid') for host in CLIENTS]
    try:
        ran = support.run(topology.prefix_argv('m') +
                          [ANSIBLE_PLAYBOOK, '-v', '-i', inventory,
                           PLAYBOOK, '-e', '@' + extra],
                          PLAYBOOK_TIMEOUT, env=env)
        with open(os.path.join(work, 'ansible-playbook.out'), 'w') as fp:
            fp.write(ran.out + ran.err)
        logs = dict((host, support.read_text(
            os.path.join(homes[host], 'worker.log'))) for host in CLIENTS)
        assert ran.status == 0, (ran, logs)
    finally:
        for path in pid_files:
            _kill_group(path)
        swift.delete_everything(base + '_')

    # The stats file and the report came back to the controller.
    stats = os.path.join(fetched, 'e2e', 'run.stat.gz')
    results = support.read_results(stats)
    assert len(results) == OPS
    assert [r for r in results if 'exception' in r] == []
    # Every worker of both hosts took part (the run waited for them all:
    # --expect-workers), with the ids the playbook gave: each host its
    # own thousand, one process per core.
    started = set()
    for host in CLIENTS:
        first, last = re.search(
            r'started workers (\d+) to (\d+)',
            support.read_text(os.path.join(homes[host], 'worker.log'))
        ).groups()
        assert int(first) == 1000 * (CLIENTS.index(host) + 1)
        started.update(range(int(first), int(last) + 1))
    assert set(r['worker_id'] for r in results) == started
    # The master's log came back too: it waited for all of them.
    run_log = support.read_text(os.path.join(fetched, 'e2e',
                                             'run-scenario.log'))
    assert '%d workers connected and configured' % len(started) in run_log
    report = support.read_text(os.path.join(fetched, 'e2e', 'report.txt'))
    assert 'TOTAL\n       Count:    %d (    0 error;' % OPS in report
    # Every request went to Swift over the bridge, from the client hosts.
    assert set([topology.addr('w1'), topology.addr('w2')]) <= \
        set(swift_relay.peers())
    # Each client host got its own virtualenv from the wheelhouse, and its
    # workers are stopped: pid file gone, the process too.
    for host in CLIENTS:
        assert os.path.exists(os.path.join(venvs[host], 'bin',
                                           'ssbench-worker'))
        assert not os.path.exists(os.path.join(homes[host], 'worker.pid'))
        # The stop reached the parent, which stopped each of its workers:
        # they sent what they held and exited 0, and no pid is left.
        parent_log = support.read_text(os.path.join(homes[host],
                                                    'worker.log'))
        assert 'received SIGTERM: stopping' in parent_log, parent_log
        started = re.search(r'started workers (\d+) to (\d+) \(pids '
                            r'([\d ]+)\)', parent_log)
        assert started, parent_log
        ids = range(int(started.group(1)), int(started.group(2)) + 1)
        for worker_id, pid in zip(ids, started.group(3).split()):
            assert re.search(r'worker %d \(pid %s\) exited with status 0'
                             % (worker_id, pid), parent_log), parent_log
            assert not _alive(int(pid))
        logs = [support.read_text(path) for path in glob.glob(
            os.path.join(homes[host], 'logs', 'worker-*.log'))]
        assert logs
        for log in logs:
            assert 'tcp://%s:13579' % topology.addr('m') in log, log
    # The workers ran as the unprivileged user: the parent made their
    # logs (and its children wrote them) after setpriv.
    uid = pwd.getpwnam(WORKER_USER).pw_uid
    for host in CLIENTS:
        for path in glob.glob(os.path.join(homes[host], 'logs', '*.log')):
            assert os.stat(path).st_uid == uid, path
    # The master ran with the keys and each client host got the two files
    # a worker needs, the user's and private, and never the master's
    # secret.
    run_task = ran.out.split('TASK [Run the scenario]', 1)[1]
    run_task = run_task.split('TASK [', 1)[0]
    assert '--zmq-curve-dir' in run_task, run_task
    master_keys = os.path.join(homes['m'], 'keys')
    if traffic == 'default':
        # Made on the master host, where they stay (its secret too).
        assert sorted(os.listdir(master_keys)) == [
            'master.key', 'master.key_secret', 'worker.key',
            'worker.key_secret']
    for host in CLIENTS:
        key_dir = os.path.join(homes[host], 'keys')
        assert sorted(os.listdir(key_dir)) == ['master.key',
                                               'worker.key_secret']
        for name in os.listdir(key_dir):
            path = os.path.join(key_dir, name)
            mode = os.stat(path).st_mode & 0o777
            assert mode == 0o600, (name, oct(mode))
            assert os.stat(path).st_uid == uid, path
            assert support.read_text(path) == support.read_text(
                os.path.join(master_keys, name))
    assert 'PLAY RECAP' in ran.out and 'failed=0' in ran.out
    for line in ran.out.splitlines():
        if ' : ok=' in line:
            assert 'failed=0' in line and 'unreachable=0' in line, line

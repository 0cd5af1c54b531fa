"""Issue 21 items 3 and 4 on four client "hosts": each a network namespace
(tests/e2e/netns.py) with a UTS namespace of its own (its own host name),
each running `ssbench-worker --processes 2`; one master on a fifth host
runs with --expect-workers 8 against the local Swift through the relay.
The JSON lists the 8 workers on 4 hosts; killing one host's parent with
SIGKILL stops its two children, and the master reports them lost as it
does any lost worker; kill-workers stops the rest, and each parent exits
0 once its children did.

Needs Linux, root, iproute2 and unshare; skipped with the reason
otherwise (SSBENCH_REQUIRE_NETNS=1 makes that a failure).
"""
from __future__ import absolute_import, division, print_function

import json
import os
import re
import signal
import subprocess

import pytest

from tests.e2e import netns, support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]

HOSTS = ('swift', 'm', 'h1', 'h2', 'h3', 'h4')
CLIENTS = HOSTS[2:]
WORKERS = [10, 11, 20, 21, 30, 31, 40, 41]


@pytest.fixture(scope='module')
def topology():
    reason = netns.unavailable_reason()
    if reason is None and not os.path.exists('/usr/bin/unshare'):
        reason = 'no unshare(1)'
    if reason:
        support.skip_netns('worker fleet test needs network namespaces: ' +
                           reason)
    support.require_swift()
    netns.reap_stale()
    topo = netns.Topology(hosts=HOSTS, ipv6=False).up()
    yield topo
    assert topo.down() == []


def on_host(topology, host):
    """Run on `host`: its network namespace, and a UTS namespace named
    after it (every exec keeps the pid that of the command)."""
    return topology.prefix_argv(host) + [
        'unshare', '--uts', '--', 'sh', '-c',
        'hostname "$0" && exec "$@"', 'client-' + host]


def gone(pid):
    """True once `pid` exited (a zombie nobody reaped counts)."""
    try:
        with open('/proc/%d/status' % pid) as status:
            return any(line.split()[:2] == ['State:', 'Z']
                       for line in status)
    except (IOError, OSError):
        return True


def child_pids(log_path):
    """The children's pids a --processes parent logged."""
    found = re.search(r'started workers \d+ to \d+ \(pids ([\d ]+)\)',
                      support.read_text(log_path))
    return [int(pid) for pid in found.group(1).split()] if found else []


def test_four_hosts_of_two_processes_each(tmpdir, topology,
                                          swift_relay):
    swift = support.SwiftView()
    account = swift.url.split('/v1/', 1)[1]
    swift_url = 'http://%s:%d' % (topology.addr('swift'),
                                  support.NETNS_SWIFT_PORT)
    master_ip = topology.addr('m')
    path, data = support.write_scenario(tmpdir, user_count=8)
    base = data['container_base']
    stats = os.path.join(str(tmpdir), 'fleet.stat')
    out_json = os.path.join(str(tmpdir), 'fleet.json')
    parents = {}
    master = None
    try:
        for index, host in enumerate(CLIENTS):
            log_path = os.path.join(str(tmpdir), 'parent-%s.log' % host)
            first_id = 10 * (index + 1)
            with open(log_path, 'ab') as log:
                parents[host] = subprocess.Popen(
                    on_host(topology, host) +
                    support.python_module('ssbench.cli.worker') +
                    ['--processes', '2', '--zmq-host', master_ip,
                     '--master-timeout', '120', '--concurrency', '2',
                     '--log-dir', os.path.join(str(tmpdir), host),
                     str(first_id)],
                    stdout=log, stderr=subprocess.STDOUT,
                    env=dict(os.environ, **support.no_auth_env()),
                    cwd=support.ROOT, preexec_fn=support.die_with_parent)
            parents[host].log_path = log_path
        master_err = os.path.join(str(tmpdir), 'master.err')
        with open(master_err, 'wb') as err:
            master = subprocess.Popen(
                topology.prefix_argv('m') +
                support.python_module('ssbench.cli.master') +
                ['run-scenario', '-f', path, '-s', stats, '-k', '-r', '20',
                 '--expect-workers', '8', '--worker-wait', '120',
                 '--worker-timeout', '3', '--json', out_json,
                 '--zmq-bind-ip', master_ip,
                 '-A', swift_url + '/auth/v1.0', '-U', support.USER,
                 '-K', support.KEY, '-S', '%s/v1/%s' % (swift_url, account)],
                stdout=subprocess.PIPE, stderr=err,
                env=dict(os.environ, **support.no_auth_env()),
                cwd=support.ROOT, preexec_fn=support.die_with_parent)
        # Every worker's results reach the stats file before a host dies,
        # however late a loaded machine lets the last one start.
        support.wait_for_results_of(stats, master, WORKERS, timeout=150)
        assert '8 workers connected and configured: 10, 11, 20, 21, 30, ' \
            '31, 40, 41' in support.read_text(master_err)

        # One host's parent dies without a word: its children follow.
        doomed = parents['h4']
        children = child_pids(doomed.log_path)
        assert len(children) == 2, support.read_text(doomed.log_path)
        doomed.send_signal(signal.SIGKILL)
        support.wait_for(lambda: all(gone(pid) for pid in children), 30,
                         'the children of a SIGKILLed parent exiting')

        out = master.communicate()[0].decode('utf-8', 'replace')
        err = support.read_text(master_err)
        assert master.returncode == 0, (out, err)
        assert 'worker 40 lost' in err and 'worker 41 lost' in err, err
        doc = json.load(open(out_json))
        workers = doc['workers']
        assert sorted(w['worker_id'] for w in workers) == WORKERS
        assert set(w['host'] for w in workers) == set(
            'client-' + host for host in CLIENTS)
        for w in workers:
            assert w['host'] == 'client-h%d' % (w['worker_id'] // 10)
            assert w['concurrency'] == 2 and w['version'] == doc['header'][
                'version'] and w['protocol'] >= 1 and w['pid'] > 0
        assert len(set(w['pid'] for w in workers)) == 8
        # Every worker that ran long enough was probed for its clock.
        assert sum(w['clock_offset'] is not None for w in workers) >= 6
        results = support.read_results(stats + '.gz')
        assert set(r['worker_id'] for r in results) == set(WORKERS)

        # kill-workers stops every child; each parent then exits 0.
        ran = support.run(
            topology.prefix_argv('m') +
            support.python_module('ssbench.cli.master') +
            ['kill-workers', '--zmq-bind-ip', master_ip], 120)
        assert ran.status == 0, ran
        for host in CLIENTS[:3]:
            proc = parents[host]
            assert support.wait_exit(proc, 60) == 0, \
                support.read_text(proc.log_path)
            text = support.read_text(proc.log_path)
            first = 10 * (CLIENTS.index(host) + 1)
            for worker_id in (first, first + 1):
                assert re.search(r'worker %d \(pid \d+\) exited with status '
                                 r'0' % worker_id, text), text
                log = os.path.join(str(tmpdir), host,
                                   'worker-%d.log' % worker_id)
                assert 'worker %d told to exit' % worker_id in \
                    support.read_text(log)
    finally:
        if master is not None:
            support.stop_process(master)
        for proc in parents.values():
            support.stop_process(proc)
        swift.delete_everything(base + '_')

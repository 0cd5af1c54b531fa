"""A distributed run: ssbench-master, two ssbench-workers and Swift on four
"hosts", each a network namespace of its own on one bridge (see
tests/e2e/netns.py for the topology), over IPv4 and over IPv6.

Needs Linux, root and iproute2; skipped with the reason otherwise
(SSBENCH_REQUIRE_NETNS=1 makes that a failure).  Namespaces, relay and
workers are removed by the fixtures' finalizers whatever happens.
"""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

from tests.e2e import netns, support

pytestmark = pytest.mark.e2e

SWIFT_PORT = 8080   # the relay's port on the swift host
OPS = 60


@pytest.fixture(scope='module')
def topology():
    reason = netns.unavailable_reason()
    if reason:
        reason = 'multi-host test needs network namespaces: ' + reason
        sys.stderr.write('SKIP: %s\n' % reason)
        if os.environ.get('SSBENCH_REQUIRE_NETNS') == '1':
            pytest.fail(reason)
        pytest.skip(reason)
    support.require_swift()
    netns.reap_stale()
    topo = netns.Topology().up()
    yield topo
    errors = topo.down()
    assert errors == []


@pytest.fixture(scope='module')
def relay(topology, tmpdir_factory):
    """Swift (127.0.0.1:8080 of the root namespace) reachable as
    10.231.0.1:8080 and [fd00:231::1]:8080 on the bridge."""
    log_path = str(tmpdir_factory.mktemp('relay').join('relay.log'))
    listen = ['%s:%d' % (topology.addr('swift'), SWIFT_PORT)]
    if topology.ipv6:
        listen.append('[%s]:%d' % (topology.addr6('swift'), SWIFT_PORT))
    proc = netns.Relay(topology.netns('swift'), listen, ('127.0.0.1', 8080),
                       log_path).start(support.ROOT)
    yield proc
    proc.stop()


def can_connect(topology, host, address, port):
    """Whether a TCP connection from `host` to address:port succeeds."""
    code = ('import socket; socket.create_connection((%r, %d), 3).close()'
            % (address, port))
    ran = support.run(topology.prefix_argv(host) +
                      [sys.executable, '-c', code], 30)
    return ran.status == 0


@pytest.mark.parametrize('family', ['ipv4', 'ipv6'])
def test_master_workers_and_swift_on_separate_hosts(tmpdir, topology, relay,
                                                    family):
    if family == 'ipv6' and not topology.ipv6:
        pytest.skip('no IPv6 in the namespaces: %s'
                    % topology.no_ipv6_reason)
    swift = support.SwiftView()
    account = swift.url.split('/v1/', 1)[1]
    if family == 'ipv4':
        addr = topology.addr
        swift_host = addr('swift')
        bind_ip = master_ip = addr('m')
    else:
        addr = topology.addr6
        swift_host = '[%s]' % addr('swift')
        master_ip = addr('m')
        bind_ip = '::'
    # The hosts only see each other: Swift's own 127.0.0.1 is out of reach.
    assert not can_connect(topology, 'w1', '127.0.0.1', 8080)
    assert can_connect(topology, 'w1', addr('swift'), SWIFT_PORT)

    path, data = support.write_scenario(tmpdir, user_count=4)
    base = data['container_base']
    stats = os.path.join(str(tmpdir), 'multihost.stat')
    peers_before = len(relay.peers())
    procs = []
    try:
        for worker_id in (1, 2):
            log_path = os.path.join(str(tmpdir), 'worker-%d.log' % worker_id)
            proc = support.start_worker(
                worker_id, 13579, 13580, log_path, zmq_host=master_ip,
                prefix=topology.prefix_argv('w%d' % worker_id),
                extra=['--concurrency', '2'], env=support.no_auth_env())
            proc.log_path = log_path
            procs.append(proc)
        # Default ZMQ ports: each host has its own.
        ran = support.run(
            topology.prefix_argv('m') +
            support.python_module('ssbench.cli.master') +
            ['run-scenario', '-f', path, '-s', stats, '-o', str(OPS),
             '--zmq-bind-ip', bind_ip,
             '-A', 'http://%s:%d/auth/v1.0' % (swift_host, SWIFT_PORT),
             '-U', support.USER, '-K', support.KEY,
             '-S', 'http://%s:%d/v1/%s' % (swift_host, SWIFT_PORT, account)],
            300, env=support.no_auth_env())
        assert ran.status == 0, ran
        results = support.read_results(stats + '.gz')
        assert len(results) == OPS
        assert [r for r in results if 'exception' in r] == []
        assert set(r['worker_id'] for r in results) == set([1, 2])
        assert 'TOTAL\n       Count:    %d (    0 error;' % OPS in ran.out
        assert 'Worker count:   2' in ran.out
        for proc in procs:
            endpoint = ('tcp://%s:13579' % master_ip if family == 'ipv4'
                        else 'tcp://[%s]:13579' % master_ip)
            assert endpoint in support.read_text(proc.log_path)

        # Master and both workers talked to Swift through the bridge...
        peers = set(relay.peers()[peers_before:])
        assert set([addr('m'), addr('w1'), addr('w2')]) <= peers, peers
        # ... and Swift saw this run.
        assert len([line for line in support.access_lines(8080)
                    if base in line]) >= OPS

        # kill-workers from the master host reaches both workers.
        ran = support.run(
            topology.prefix_argv('m') +
            support.python_module('ssbench.cli.master') +
            ['kill-workers', '--zmq-bind-ip', bind_ip], 120)
        assert ran.status == 0, ran
        for proc in procs:
            assert support.wait_exit(proc, 30) == 0, \
                support.read_text(proc.log_path)
    finally:
        for proc in procs:
            support.stop_process(proc)
        swift.delete_everything(base + '_')

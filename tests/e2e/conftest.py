"""Fixtures shared by the end-to-end tests."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from tests.e2e import netns, support
from tests.keystone_v2_stub import V2Stub
from tests.relay import Relay


@pytest.fixture
def workers(tmpdir):
    """start(worker_id, work_port, results_port, *extra, **kwargs) ->
    Popen of a hand-started ssbench-worker logging to
    tmpdir/worker-ID.log (its .log_path); every worker started is
    stopped (by pid) at teardown."""
    started = []

    def start(worker_id, work_port, results_port, *extra, **kwargs):
        log_path = os.path.join(str(tmpdir), 'worker-%d.log' % worker_id)
        proc = support.start_worker(worker_id, work_port, results_port,
                                    log_path, extra=extra, **kwargs)
        proc.log_path = log_path
        started.append(proc)
        return proc
    yield start
    for proc in started:
        support.stop_process(proc)


@pytest.fixture
def stalling_relay():
    """A relay.Relay on a free loopback port in front of the local Swift,
    for a test to stall and cut; flowing again and stopped at teardown."""
    proxy = Relay(('127.0.0.1', 8080)).start()
    yield proxy
    proxy.resume()
    proxy.stop()


@pytest.fixture(scope='module')
def swift_relay(topology, tmpdir_factory):
    """A netns.Relay from port support.NETNS_SWIFT_PORT of the swift host
    of the module's `topology` fixture (a netns.Topology) to the local
    Swift, stopped after the module."""
    log_path = str(tmpdir_factory.mktemp('relay').join('relay.log'))
    proc = netns.Relay(topology.netns('swift'),
                       ['%s:%d' % (topology.addr('swift'),
                                   support.NETNS_SWIFT_PORT)],
                       ('127.0.0.1', 8080), log_path).start(support.ROOT)
    yield proc
    proc.stop()


@pytest.fixture
def v2_stub():
    """A v2.0 token server handing out a real tempauth token, whose
    expiry it says is 2099-01-01."""
    support.require_swift()
    swift = support.SwiftView()
    stub = V2Stub('v2tenant', 'v2user', 'v2-secret', swift.url,
                  swift.token).start()
    yield stub
    stub.stop()


@pytest.fixture(scope='session')
def container_image():
    """The image of this checkout (tests/e2e/podman.py), built once per
    session: its tag."""
    from tests.e2e import podman
    podman.require_podman()
    return podman.build_image()


@pytest.fixture
def containers():
    """A tests/e2e/podman.Containers whose containers are removed at
    teardown."""
    from tests.e2e import podman
    started = podman.Containers()
    yield started
    started.remove()

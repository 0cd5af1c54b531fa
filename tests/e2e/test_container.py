"""The container image (Containerfile) for real: built from a base made
of Debian's packages (tests/e2e/podman.py), a master container and two
worker containers on the host's network run a scenario against the local
Swift, the credentials in the master's environment, the stats file on a
volume; `podman stop` of the master mid-run (SIGTERM to the master, PID 1
of its container) leaves a readable stats file and the partial report, as
Ctrl-C does (tests/e2e/test_interrupts.py)."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from tests.e2e import podman, support
from tests.waiting import wait_for

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(900)]

OPS = 60
BOUND = 300


def start_workers(containers, image, ports, ids=(1, 2)):
    for worker_id in ids:
        ran = support.run(containers.run_argv(
            'worker-%d' % worker_id, '--detach', image, 'ssbench-worker',
            '--zmq-host', '127.0.0.1', '--zmq-work-port', str(ports[0]),
            '--zmq-results-port', str(ports[1]), '--concurrency', '2',
            '--master-timeout', '120', str(worker_id)), 120)
        assert ran.status == 0, ran


def master_args(ports, *args):
    """run-scenario's arguments; the credentials come from the
    environment (ENV)."""
    return (['ssbench-master', 'run-scenario', '--zmq-bind-ip', '127.0.0.1',
             '--zmq-work-port', str(ports[0]), '--zmq-results-port',
             str(ports[1]), '--expect-workers', '2', '--worker-wait', '240'] +
            list(args))


ENV = {'ST_AUTH': support.AUTH_URL, 'ST_USER': support.USER,
       'ST_KEY': support.KEY}
ENV_ARGS = ['--env', 'ST_AUTH', '--env', 'ST_USER', '--env', 'ST_KEY']


def test_master_and_two_workers_in_containers(container_image, containers,
                                              tmpdir):
    support.require_swift()
    results = podman.results_dir(tmpdir)
    scenario, data = support.write_scenario(results, user_count=4)
    ports = support.free_port(), support.free_port()
    swift = support.SwiftView()
    try:
        start_workers(containers, container_image, ports)
        ran = support.run(containers.run_argv(
            'master', '--volume', results + ':/results', *ENV_ARGS +
            [container_image] + master_args(
                ports, '-f', '/results/' + os.path.basename(scenario),
                '-s', '/results/run.stat', '-o', str(OPS))), BOUND, env=ENV)
        assert ran.status == 0, ran
        assert 'TOTAL\n       Count:    %d (    0 error;' % OPS in ran.out, ran
        assert 'Worker count:   2' in ran.out
        found = support.read_results(os.path.join(results, 'run.stat.gz'))
        assert len(found) == OPS
        assert [r for r in found if 'exception' in r] == []
        assert set(r['worker_id'] for r in found) == set([1, 2])
        # The key reached the master through its environment only.
        inspect = podman.podman(['inspect', '--format', '{{.Args}}',
                                 containers.names[-1]])
        assert support.KEY not in inspect.out, inspect
    finally:
        swift.delete_everything(data['container_base'] + '_')


def test_podman_stop_of_the_master_keeps_its_results(container_image,
                                                     containers, tmpdir):
    results = podman.results_dir(tmpdir)
    scenario, _ = support.write_scenario(results)
    stats = os.path.join(results, 'run.stat')
    ports = support.free_port(), support.free_port()
    start_workers(containers, container_image, ports)
    ran = support.run(containers.run_argv(
        'master', '--detach', '--volume', results + ':/results',
        container_image, *master_args(
            ports, '-f', '/results/' + os.path.basename(scenario),
            '--noop', '-o', '100000000', '-s', '/results/run.stat')), 120)
    assert ran.status == 0, ran
    master = containers.names[-1]
    wait_for(lambda: support.holds_a_result(stats), BOUND,
             'a first result in ' + stats, interval=0.2)
    # SIGTERM, then SIGKILL only after 120 s: the master must not need it.
    ran = podman.podman(['stop', '--time', '120', master], 180)
    assert ran.status == 0, ran
    status = podman.podman(['inspect', '--format', '{{.State.ExitCode}}',
                            master])
    assert status.out.strip() == '130', status
    logs = podman.podman(['logs', master])
    assert 'Interrupted: the benchmark phase stopped early' in logs.err, logs
    assert 'Traceback' not in logs.err, logs
    # The partial report, and the whole results in a readable stats file.
    assert 'TOTAL\n       Count:' in logs.out, logs
    assert support.read_results(stats + '.gz')

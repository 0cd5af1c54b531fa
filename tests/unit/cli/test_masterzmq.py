"""The master's ZeroMQ options: where a run binds, where local workers
connect, the one-port check, and --zmq-curve-dir left out."""
from __future__ import absolute_import, division, print_function

import argparse

import pytest

from ssbench.cli import masterzmq
from ssbench.errors import UsageError


def parsed(*argv):
    parser = argparse.ArgumentParser()
    masterzmq.add_zmq_options(parser)
    return parser.parse_args(list(argv))


def run_parsed(*argv):
    """A run's flags (run-scenario's, run-suite's), the plan applied."""
    parser = argparse.ArgumentParser()
    masterzmq.add_zmq_options(parser, run=True)
    parser.add_argument('--workers', type=int, default=0)
    parser.add_argument('--expect-workers', type=int, default=None)
    args = parser.parse_args(list(argv))
    masterzmq.check_ports(args)
    return args.zmq_bind_ip, args.zmq_work_port, args.zmq_results_port


@pytest.mark.parametrize('argv', [
    ['--workers', '2'], ['--workers', '2', '--expect-workers', '2'],
    ['--workers', '3', '--expect-workers', '1'],
])
def test_a_run_of_local_workers_only_binds_loopback_free_ports(argv):
    assert run_parsed(*argv) == ('127.0.0.1', 0, 0)


@pytest.mark.parametrize('argv', [
    [], ['--expect-workers', '2'], ['--workers', '2', '--expect-workers', '3'],
])
def test_a_run_waiting_for_other_hosts_keeps_0_3_9_defaults(argv):
    assert run_parsed(*argv) == ('0.0.0.0', 13579, 13580)


@pytest.mark.parametrize('argv, plan', [
    (['--zmq-bind-ip', '0.0.0.0'], ('0.0.0.0', 13579, 13580)),
    (['--zmq-work-port', '5000'], ('0.0.0.0', 5000, 13580)),
    (['--zmq-bind-ip', '127.0.0.2', '--zmq-results-port', '0'],
     ('127.0.0.2', 13579, 0)),
])
def test_a_named_address_or_port_keeps_the_others_0_3_9_defaults(argv, plan):
    assert run_parsed('--workers', '2', *argv) == plan


def test_defaults_are_0_3_9_ports_on_every_address():
    args = parsed()
    assert (args.zmq_bind_ip, args.zmq_work_port, args.zmq_results_port,
            args.zmq_curve_dir) == ('0.0.0.0', 13579, 13580, None)


def test_both_spellings_of_the_results_port():
    assert parsed('--zmq-results_port', '7').zmq_results_port == 7
    assert parsed('--zmq-results-port', '8').zmq_results_port == 8


@pytest.mark.parametrize('bind_ip,host', [
    ('0.0.0.0', '127.0.0.1'), ('', '127.0.0.1'), ('::', '::1'),
    ('127.0.0.5', '127.0.0.5'), ('::1', '::1'), ('example.org', 'example.org'),
])
def test_local_workers_connect_to_loopback_for_every_address(bind_ip, host):
    assert masterzmq.worker_host(bind_ip) == host


@pytest.mark.parametrize('argv', [
    [], ['--zmq-work-port', '0', '--zmq-results-port', '0'],
    ['--zmq-work-port', '5000', '--zmq-results-port', '5001'],
])
def test_ports_that_can_both_bind_pass(argv):
    masterzmq.check_ports(parsed(*argv))


def test_one_port_for_both_sockets_is_one_line():
    args = parsed('--zmq-work-port', '5999', '--zmq-results-port', '5999')
    with pytest.raises(UsageError) as info:
        masterzmq.check_ports(args)
    assert str(info.value) == (
        '--zmq-work-port and --zmq-results-port are both 5999: the work '
        'and results sockets need a port each')


def test_no_curve_dir_means_no_keys():
    assert masterzmq.curve_keys(parsed(), local_workers=True) is None

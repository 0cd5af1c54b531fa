"""Credentials never leave the master's host: what the ZeroMQ ports carry
during real runs (captured with tcpdump, CURVE off), a token renewed
mid-run against the real Keystone, and one renewal for the 401s of many
workers."""
from __future__ import absolute_import, division, print_function

import os
import re

import pytest

from ssbench.swift.auth import AuthOptions, authenticate
from tests.e2e import support
from tests.e2e.pcap import Capture, tcpdump_usable
from tests.fakes import FakeSwift

pytestmark = pytest.mark.e2e

KEYSTONE_SHORT_AUTH_URL = 'http://127.0.0.1:5001/v3'


def require_tcpdump():
    if tcpdump_usable():
        return
    reason = 'tcpdump (and root) needed to capture loopback traffic'
    if os.environ.get('SSBENCH_REQUIRE_SWIFT') == '1':
        pytest.fail(reason)
    pytest.skip(reason)


def ports_of(zmq_args):
    return [int(zmq_args[zmq_args.index(flag) + 1]) for flag in (
        '--zmq-work-port', '--zmq-results-port')]


def check_clean(ran, stats):
    assert ran.status == 0, ran
    results = support.read_results(stats)
    assert results
    assert [r for r in results if 'exception' in r] == []
    return results


def v1_mode():
    support.require_swift()
    return support.auth_args(), support.KEY.encode('utf-8')


def v3_mode():
    support.require_keystone()
    return (support.keystone_v3_args(),
            support.OS_PASSWORD.encode('utf-8'))


@pytest.mark.parametrize('mode', [v1_mode, v3_mode], ids=['v1.0', 'v3'])
def test_zmq_ports_carry_neither_key_nor_password(tmpdir, mode):
    auth_args, secret = mode()
    require_tcpdump()
    path, data = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat.gz')
    zmq = support.zmq_args()
    work_port, results_port = ports_of(zmq)
    capture_path = os.path.join(str(tmpdir), 'zmq.pcap')
    try:
        with Capture(capture_path, [work_port, results_port]) as capture:
            ran = support.master(
                'run-scenario', '-f', path, '-s', stats, '--workers', '2',
                '-o', '40', *(zmq + auth_args), env=support.no_auth_env(),
                timeout=300)
    finally:
        view = support.KeystoneSwiftView() if mode is v3_mode \
            else support.SwiftView()
        view.delete_everything(data['container_base'] + '_')
    check_clean(ran, stats)
    streams = capture.streams()
    to_workers = b''.join(v for k, v in streams.items()
                          if k[0] == work_port)
    from_workers = b''.join(v for k, v in streams.items()
                            if k[1] == results_port)
    beats = b''.join(v for k, v in streams.items() if k[1] == work_port)
    # The capture saw the run: the configuration, the jobs, the results,
    # the heartbeats (on the work connection).
    assert b'CONFIGURE' in to_workers and b'storage_urls' in to_workers
    assert data['container_base'].encode('utf-8') in to_workers
    assert b'HEARTBEAT' in beats
    assert b'last_byte_latency' in from_workers
    everything = b''.join(streams.values())
    assert secret not in everything


def test_keystone_token_renewed_mid_run(tmpdir):
    """Tokens of tools/keystone's second Keystone live
    KEYSTONE_SHORT_EXPIRATION (20) seconds: a run longer than that renews
    the token before it expires, with no error and no 401."""
    support.require_keystone()
    args = support.keystone_v3_args()
    args[args.index(support.KEYSTONE_AUTH_URL)] = KEYSTONE_SHORT_AUTH_URL
    lifetime = authenticate(AuthOptions(
        auth_version='3', os_auth_url=KEYSTONE_SHORT_AUTH_URL,
        os_username=support.OS_USER, os_password=support.OS_PASSWORD,
        os_project_name=support.OS_PROJECT, os_user_domain_name='Default',
        os_project_domain_name='Default'), timeout=10)[2]
    assert lifetime and lifetime <= 60, lifetime
    keystone = support.KeystoneSwiftView()
    path, data = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'renewal.stat.gz')
    before = len(support.keystone_access_lines())
    try:
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '--workers', '2',
            '-r', str(int(lifetime) + 3), *(support.zmq_args() + args),
            env=support.no_auth_env(), timeout=300)
    finally:
        keystone.delete_everything(data['container_base'] + '_')
    results = check_clean(ran, stats)
    span = max(r['completed_at'] for r in results) - \
        min(r['completed_at'] for r in results)
    assert span > lifetime            # past the first token's expiry
    assert 'new Swift token (generation 2) sent to the workers' in ran.err
    lines = [line for line in support.keystone_access_lines()[before:]
             if data['container_base'] in line]
    assert lines and [line for line in lines
                      if re.search(r' HTTP/1\.[01] 401 ', line)] == []
    assert support.OS_PASSWORD not in ran.out + ran.err


def test_401s_of_many_workers_cost_one_authentication(tmpdir, workers):
    """Every token stops being valid mid-run: each hand-started worker
    asks the master once, the master authenticates once, no job fails."""
    swift = FakeSwift()
    try:
        swift.expire_tokens_at_get = 20
        # No DELETE: a GET racing one for the same object would be a 404.
        path, _ = support.write_scenario(
            tmpdir, user_count=12, crud_profile=[20, 80, 0, 0],
            sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 2000}],
            initial_files={'tiny': 30})
        stats = os.path.join(str(tmpdir), 'fake.stat.gz')
        zmq = support.zmq_args()
        work_port, results_port = ports_of(zmq)
        started = [workers(i, work_port, results_port, '-c', '4',
                           env=support.no_auth_env()) for i in range(3)]
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '-o', '300',
            '-A', swift.auth_url, '-U', swift.user, '-K', swift.key,
            *zmq, env=support.no_auth_env(), timeout=120)
        results = check_clean(ran, stats)
        assert swift.expire_tokens_at_get == 0     # it did happen
        assert swift.tokens_issued == 2
        assert ran.err.count('authenticating again') == 1
        assert [r for r in results if r.get('retries')]
        asked = [support.read_text(w.log_path).count(
            'asking the master for a new one') for w in started]
        assert max(asked) == 1 and sum(asked) >= 1, asked
    finally:
        swift.stop()

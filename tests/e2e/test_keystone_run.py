"""run-scenario authenticated through Keystone: v3 against tools/keystone's
real Keystone and keystoneauth proxy (127.0.0.1:8081), and v2.0 against a
stub token server (current Keystone has no v2.0) handing out a real
tempauth token and storage URL."""
from __future__ import absolute_import, division, print_function

import gzip
import os

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

OPS = 60


@pytest.fixture(scope='module')
def keystone_swift():
    support.require_keystone()
    return support.KeystoneSwiftView()


@pytest.fixture
def scenario(tmpdir):
    made = []

    def make(view, **changes):
        path, data = support.write_scenario(tmpdir, **changes)
        made.append((view, data['container_base']))
        return path, data
    yield make
    for view, base in made:
        view.delete_everything(base + '_')


def stats_bytes(path):
    with gzip.open(path, 'rb') as fp:
        return fp.read()


def check_clean_run(ran, stats, ops=OPS, worker_ids=(0, 1)):
    assert ran.status == 0, ran
    results = support.read_results(stats)
    assert len(results) == ops
    assert [r for r in results if 'exception' in r] == []
    assert set(r['worker_id'] for r in results) == set(worker_ids)
    assert 'TOTAL\n       Count:   %3d (    0 error;' % ops in ran.out
    return results


def lines_naming(lines, base):
    return [line for line in lines if base in line]


def check_went_through_8081(data, before_8081):
    base = data['container_base']
    lines = lines_naming(support.keystone_access_lines()[before_8081:], base)
    methods = set(line.split()[6] for line in lines)
    assert set(['PUT', 'GET', 'HEAD']) <= methods, methods
    for i in range(data['container_count']):
        name = '%s_%06d_default_policy' % (base, i)
        assert [line for line in lines if name in line], name
    # ... and nothing of this run reached the tempauth proxies.
    for port in (8080, 8090):
        assert lines_naming(support.access_lines(port), base) == []


def test_v3_options_with_two_workers(tmpdir, scenario, keystone_swift):
    path, data = scenario(keystone_swift)
    before = len(support.keystone_access_lines())
    stats = os.path.join(str(tmpdir), 'v3.stat')
    ran = support.master(
        'run-scenario', '-f', path, '-s', stats, '--workers', '2',
        '-o', str(OPS), *(support.zmq_args() + support.keystone_v3_args()),
        env=support.no_auth_env(), timeout=300)
    check_clean_run(ran, stats + '.gz')
    check_went_through_8081(data, before)
    # The population (less what the run's DELETEs took) is in the Keystone
    # project's account; run-created objects were cleaned up.
    names = [n for c in keystone_swift.containers(data['container_base'] +
                                                  '_')
             for n in keystone_swift.objects(c)]
    population = set(['tiny_%06d' % i for i in range(1, 9)] +
                     ['small_%06d' % i for i in range(1, 5)])
    assert names and set(names) <= population
    # No credential in the stats file or the output.
    raw = stats_bytes(stats + '.gz')
    for secret in (support.OS_PASSWORD, keystone_swift.token):
        assert secret.encode('utf-8') not in raw
        assert secret not in ran.out + ran.err


def test_v3_from_os_environment(tmpdir, scenario, keystone_swift):
    """The OS_* variables `tools/keystone env` prints, no auth flag."""
    path, data = scenario(keystone_swift)
    before = len(support.keystone_access_lines())
    stats = os.path.join(str(tmpdir), 'v3env.stat')
    env = support.no_auth_env()
    env.update({'OS_AUTH_URL': support.KEYSTONE_AUTH_URL,
                'OS_IDENTITY_API_VERSION': '3',
                'OS_USERNAME': support.OS_USER,
                'OS_PASSWORD': support.OS_PASSWORD,
                'OS_PROJECT_NAME': support.OS_PROJECT,
                'OS_USER_DOMAIN_NAME': 'Default',
                'OS_PROJECT_DOMAIN_NAME': 'Default'})
    ran = support.master(
        'run-scenario', '-f', path, '-s', stats, '--workers', '2',
        '-o', str(OPS), *support.zmq_args(), env=env, timeout=300)
    check_clean_run(ran, stats + '.gz')
    check_went_through_8081(data, before)


def test_v3_wrong_password_fails_in_one_line(tmpdir, keystone_swift):
    path, data = support.write_scenario(tmpdir)
    wrong = 'not-the-password-%s' % data['container_base']
    args = support.keystone_v3_args()
    args[args.index(support.OS_PASSWORD)] = wrong
    ran = support.master(
        'run-scenario', '-f', path, '--workers', '1', '-o', '5',
        *(support.zmq_args() + args), env=support.no_auth_env(), timeout=120)
    assert ran.status == 1, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert len(errors) == 1, ran
    assert support.KEYSTONE_AUTH_URL in errors[0]
    assert wrong not in ran.out + ran.err
    assert 'Traceback' not in ran.err
    assert keystone_swift.containers(data['container_base'] + '_') == []


def test_v2_0_options_through_a_stub_token_server(tmpdir, scenario, v2_stub):
    swift = support.SwiftView()
    path, data = scenario(swift)
    stats = os.path.join(str(tmpdir), 'v2.stat')
    ran = support.master(
        'run-scenario', '-f', path, '-s', stats, '--workers', '2',
        '-o', str(OPS), '-V', '2.0', '--os-auth-url', v2_stub.auth_url,
        '--os-tenant-name', 'v2tenant', '--os-username', 'v2user',
        '--os-password', 'v2-secret', *support.zmq_args(),
        env=support.no_auth_env(), timeout=300)
    check_clean_run(ran, stats + '.gz')
    # Only the master authenticated (the workers got its token) and Swift
    # saw the run at the catalog's URL.
    assert v2_stub.token_requests() == [('v2tenant', 'v2user', 'v2-secret')]
    lines = lines_naming(support.access_lines(8080), data['container_base'])
    assert len(lines) >= OPS
    assert 'v2-secret' not in ran.out + ran.err
    assert b'v2-secret' not in stats_bytes(stats + '.gz')


def test_v2_0_wrong_password_fails_in_one_line(tmpdir, v2_stub):
    path, _ = support.write_scenario(tmpdir)
    ran = support.master(
        'run-scenario', '-f', path, '--workers', '1', '-o', '5',
        '-V', '2.0', '--os-auth-url', v2_stub.auth_url,
        '--os-tenant-name', 'v2tenant', '--os-username', 'v2user',
        '--os-password', 'wrong-v2-secret', *support.zmq_args(),
        env=support.no_auth_env(), timeout=120)
    assert ran.status == 1, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert len(errors) == 1 and v2_stub.auth_url in errors[0], ran
    assert 'wrong-v2-secret' not in ran.out + ran.err
    assert v2_stub.token_requests() == [
        ('v2tenant', 'v2user', 'wrong-v2-secret')]

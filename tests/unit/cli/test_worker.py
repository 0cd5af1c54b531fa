"""ssbench-worker's command line, in-process and as a real process."""
from __future__ import absolute_import, division, print_function


import pytest

from ssbench.cli import worker as cli
from ssbench.cli.authopts import add_auth_options, auth_from_args
from ssbench.cli.common import ArgumentParser

pytestmark = pytest.mark.timeout(60)


def test_defaults():
    args = cli.build_parser().parse_args(['3'])
    assert args.worker_id == 3
    assert args.zmq_host == '127.0.0.1'
    assert (args.zmq_work_port, args.zmq_results_port) == (13579, 13580)
    assert (args.concurrency, args.retries, args.batch_size) == (64, 10, 1)
    assert args.profile_count == 0 and args.master_timeout == 0
    assert args.profile_file is None
    assert not args.verbose


def test_flags():
    args = cli.build_parser().parse_args([
        '--zmq-host', '::1', '--zmq-work-port', '1', '--zmq-results_port',
        '2', '-c', '5', '--retries', '0', '--batch-size', '9', '-p', '100',
        '--master-timeout', '30', '--profile-file', '/x/w.prof', '-v',
        '-A', 'http://a', '-U', 'u',
        '-K', 'k', '-S', 'http://s1', '-S', 'http://s2', '-T', 'tok', '12'])
    assert (args.zmq_host, args.zmq_work_port, args.zmq_results_port) == (
        '::1', 1, 2)
    assert (args.concurrency, args.retries, args.batch_size,
            args.profile_count, args.master_timeout) == (5, 0, 9, 100, 30.0)
    assert args.profile_file == '/x/w.prof'
    auth = auth_from_args(args, env={})
    assert (auth.auth_url, auth.user, auth.key) == ('http://a', 'u', 'k')
    assert auth.storage_urls == ['http://s1', 'http://s2']
    assert auth.token == 'tok'


@pytest.mark.parametrize('argv', [[], ['x'], ['-c', '0', '1'],
                                  ['--zmq-work-port', '70000', '1'],
                                  ['--bogus', '1']])
def test_usage_errors_exit_2(argv, capsys):
    assert cli.main(argv, env={}, patch=False) == 2
    err = capsys.readouterr().err
    assert 'ssbench-worker' in err and 'usage' not in err.splitlines()[-1]


def test_help_exits_0_and_shows_no_env_secret(capsys):
    env = {'ST_KEY': 'env-secret-key'}
    assert cli.main(['-h'], env=env, patch=False) == 0
    out = capsys.readouterr().out
    assert '--zmq-results-port' in out and '[ST_KEY]' in out
    assert 'env-secret-key' not in out


def test_auth_env_defaults():
    parser = ArgumentParser(prog='x')
    add_auth_options(parser)
    env = {'ST_AUTH': 'http://e/auth', 'ST_USER': 'eu', 'ST_KEY': 'ek',
           'ST_AUTH_VERSION': '1.0', 'OS_USERNAME': 'ou',
           'OS_PASSWORD': 'op', 'OS_AUTH_URL': 'http://ks',
           'OS_TENANT_NAME': 't', 'OS_PROJECT_NAME': 'p',
           'OS_USER_DOMAIN_NAME': 'd', 'OS_REGION_NAME': 'r',
           'OS_CACERT': '/ca', 'SWIFTCLIENT_INSECURE': 'true'}
    auth = auth_from_args(parser.parse_args([]), env=env)
    assert (auth.auth_url, auth.user, auth.key) == ('http://e/auth', 'eu',
                                                    'ek')
    assert (auth.os_username, auth.os_password, auth.os_auth_url) == (
        'ou', 'op', 'http://ks')
    assert auth.os_project_name == 'p' and auth.os_user_domain_name == 'd'
    assert auth.os_cacert == '/ca' and auth.insecure is True
    # Flags beat the environment.
    auth = auth_from_args(parser.parse_args(['-U', 'flag-user', '-V', '2']),
                          env=env)
    assert auth.user == 'flag-user' and auth.auth_version == '2'
    # Nothing at all: version 1.0, no credentials.
    auth = auth_from_args(parser.parse_args([]), env={})
    assert auth.auth_version == '1.0' and not auth.has_credentials()
    assert auth.storage_urls == [] and auth.insecure is False
    # OS_IDENTITY_API_VERSION (what `tools/keystone env` and openrc files
    # set) picks the version too, after the ST_/OS_AUTH_ names.
    auth = auth_from_args(parser.parse_args([]),
                          env={'OS_IDENTITY_API_VERSION': '3'})
    assert auth.auth_version == '3'
    auth = auth_from_args(parser.parse_args([]),
                          env={'OS_IDENTITY_API_VERSION': '3',
                               'OS_AUTH_VERSION': '2.0'})
    assert auth.auth_version == '2.0'


def test_bad_host_is_one_error_line(capsys):
    status = cli.main(['--zmq-host', 'no-such-host.invalid', '1'], env={},
                      patch=False)
    assert status == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith('ERROR:cannot resolve master host')
    assert not [x for x in lines if 'Traceback' in x]


def test_bad_auth_version_is_a_config_error(capsys):
    status = cli.main(['-A', 'http://a', '-U', 'u', '-K', 'k', '-V', '9',
                       '1'], env={}, patch=False)
    assert status == 2
    assert 'ERROR:unknown auth version' in capsys.readouterr().err


def test_unwritable_profile_file_is_a_usage_error(tmp_path, capsys):
    path = str(tmp_path / 'missing' / 'w.prof')
    status = cli.main(['-p', '5', '--profile-file', path, '1'], env={},
                      patch=False)
    assert status == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines[-1].startswith('ERROR:--profile-file') and path in lines[-1]


@pytest.mark.parametrize('token', ['', 'xyz', 'a' * 65, 'A0'])
def test_a_bad_local_run_token_is_a_usage_error(token, capsys):
    env = {'SSBENCH_LOCAL_RUN': token}
    assert cli.main(['1'], env=env, patch=False) == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == (
        'ERROR:SSBENCH_LOCAL_RUN must be 1 to 64 hexadecimal digits')


def test_log_dir_without_processes_logs_to_worker_id_log(tmp_path, capsys):
    log_dir = tmp_path / 'logs'
    (log_dir).mkdir()
    (log_dir / 'worker-7.log').write_text(u'an earlier run\n')
    status = cli.main(['--log-dir', str(log_dir), '--zmq-host',
                       'no-such-host.invalid', '7'], env={}, patch=False)
    assert status == 1
    err = capsys.readouterr().err.strip().splitlines()
    path = str(log_dir / 'worker-7.log')
    # One line says where the log goes; its errors show on stderr too.
    assert err[0] == 'INFO:worker 7 logging to %s' % path
    assert err[-1].startswith('ERROR:cannot resolve master host')
    assert len(err) == 2
    logged = (log_dir / 'worker-7.log').read_text().splitlines()
    assert logged[0] == 'an earlier run'
    assert 'no Swift credentials' in logged[1]
    assert logged[-1] == err[-1]


def test_an_unusable_log_dir_is_one_line(tmp_path, capsys):
    blocker = tmp_path / 'file'
    blocker.write_text(u'')
    status = cli.main(['--log-dir', str(blocker), '7'], env={},
                      patch=False)
    assert status != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith('ERROR:--log-dir'), err

"""bench/soak.py's master command (the e2e test tests/e2e/test_soak.py
runs the whole harness): the key reaches the master in its environment,
never on a command line (issue 50, 16)."""
from __future__ import absolute_import, division, print_function

import os
import sys

from tests import paths

# Appended: bench/'s scripts must not shadow any other module.
sys.path.append(os.path.join(paths.ROOT, 'bench'))
import soak  # noqa: E402
import soakprocs  # noqa: E402


def test_the_key_goes_to_the_master_in_its_environment(monkeypatch, tmpdir):
    monkeypatch.setenv('ST_KEY', 'soak-secret')
    args = soak.build_parser().parse_args(['--out', str(tmpdir)])
    argv, env = soak.Soak(args).master_command(
        'http://127.0.0.1:8180/auth/v1.0', 'http://127.0.0.1:1/v1/AUTH_t',
        (1, 2))
    assert env['ST_KEY'] == 'soak-secret'
    assert 'soak-secret' not in ' '.join(argv)
    assert '-K' not in argv and '--key' not in argv
    assert argv[argv.index('-U') + 1] == 'test:tester'


def test_the_key_defaults_to_the_local_instances(monkeypatch, tmpdir):
    monkeypatch.delenv('ST_KEY', raising=False)
    args = soak.build_parser().parse_args(['--out', str(tmpdir)])
    assert soak.Soak(args).key == 'testing'


def test_its_workers_get_no_credential(monkeypatch):
    monkeypatch.setenv('ST_KEY', 'soak-secret')
    monkeypatch.setenv('AWS_SECRET_ACCESS_KEY', 'soak-secret')
    env = soakprocs.worker_env()
    assert 'soak-secret' not in env.values() and 'PATH' in env

"""The zipapp's entry point (ssbench.cli.zipapp): its first argument picks
the command; the children a command starts find the unpacked package.
(tests/e2e/test_zipapp.py builds and runs the zipapp.)"""
from __future__ import absolute_import, division, print_function

import os

import pytest

import ssbench
from ssbench.cli import zipapp

HOME = os.path.dirname(os.path.dirname(os.path.abspath(ssbench.__file__)))


@pytest.fixture(autouse=True)
def no_gevent_patching(monkeypatch):
    """The worker's main() would patch this whole process for gevent."""
    monkeypatch.setattr('ssbench.worker.geventpatch.patch_all',
                        lambda: None)
    monkeypatch.setattr('ssbench.cli.common.quiet_gevent_interrupts',
                        lambda: None)
    yield
    import gevent.monkey
    assert not gevent.monkey.is_module_patched('socket')


def test_no_command_is_a_usage_error(capsys):
    assert zipapp.main([], {}) == 2
    err = capsys.readouterr().err
    assert err == zipapp.USAGE + '\n'


def test_unknown_command_is_a_usage_error(capsys):
    env = {}
    assert zipapp.main(['run-scenario'], env) == 2
    assert capsys.readouterr().err == zipapp.USAGE + '\n'
    assert env == {}


def test_version(capsys):
    assert zipapp.main(['--version'], {}) == 0
    assert capsys.readouterr().out == 'ssbench %s\n' % ssbench.version


def test_master_command_gets_the_remaining_arguments(capsys):
    env = {}
    assert zipapp.main(['master', '--version'], env) == 0
    captured = capsys.readouterr()
    assert 'ssbench-master %s' % ssbench.version in captured.out + \
        captured.err
    assert env['PYTHONPATH'] == HOME


def test_worker_command_gets_the_remaining_arguments(capsys):
    env = {'PYTHONPATH': os.pathsep.join(['/elsewhere', HOME])}
    assert zipapp.main(['worker', '--version'], env) == 0
    captured = capsys.readouterr()
    assert 'ssbench-worker %s' % ssbench.version in captured.out + \
        captured.err
    # The package's folder comes first, and once.
    assert env['PYTHONPATH'] == os.pathsep.join([HOME, '/elsewhere'])


def test_worker_usage_error_is_the_workers():
    assert zipapp.main(['worker', '--no-such-flag'], {}) == 2

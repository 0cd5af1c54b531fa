"""Fixtures of the CLI tests: main() in this process, isolated."""
from __future__ import absolute_import, division, print_function

import io

import pytest

from tests.clirun import NO_AUTH_ENV, ProcessState, call_main


@pytest.fixture
def cli(monkeypatch, capsys):
    """run(module, args) -> (status, stdout, stderr) of the command's
    main() in this process, with no credentials in the environment and
    an empty standard input; the process state it may change is put back
    afterwards."""
    state = ProcessState()
    for name in NO_AUTH_ENV:
        monkeypatch.delenv(name, raising=False)
    # run-scenario's and cleanup-containers' main() would monkey-patch
    # this whole process for gevent, and every later test with it (the
    # worker's main() is called with patch=False for the same reason).
    monkeypatch.setattr('ssbench.worker.geventpatch.patch_all',
                        lambda: None)
    monkeypatch.setattr('ssbench.cli.common.quiet_gevent_interrupts',
                        lambda: None)
    monkeypatch.setattr('sys.stdin', io.StringIO(u''))

    def run(module, args):
        capsys.readouterr()
        status = call_main(module, args)
        out, err = capsys.readouterr()
        return status, out, err
    yield run
    state.restore()
    import gevent.monkey
    assert not gevent.monkey.is_module_patched('socket'), \
        'a main() patched the test process for gevent'

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
    monkeypatch.setattr('sys.stdin', io.StringIO(u''))

    def run(module, args):
        capsys.readouterr()
        status = call_main(module, args)
        out, err = capsys.readouterr()
        return status, out, err
    yield run
    state.restore()

"""The signals that stop the master as a Ctrl-C does
(ssbench.cli.stopsignals)."""
from __future__ import absolute_import, division, print_function

import os
import signal

import pytest

from ssbench.cli.stopsignals import (handled_stop_signals,
                                     interrupt_on_stop_signals)
from tests.clirun import ProcessState


@pytest.fixture
def restored():
    state = ProcessState()
    yield
    state.restore()


@pytest.mark.parametrize('name', ['SIGTERM', 'SIGHUP', 'SIGUSR2'])
def test_each_stop_signal_interrupts_as_a_ctrl_c(restored, name):
    signum = getattr(signal, name)
    signal.signal(signum, signal.SIG_DFL)
    interrupt_on_stop_signals()
    with pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signum)
        signal.pause()


def test_a_hangup_ignored_stays_ignored(restored):
    """nohup: the master outlives its terminal."""
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGUSR2, signal.SIG_DFL)
    assert signal.SIGHUP not in handled_stop_signals()
    assert signal.SIGUSR2 in handled_stop_signals()
    interrupt_on_stop_signals()
    assert signal.getsignal(signal.SIGHUP) == signal.SIG_IGN


def test_the_mark_signal_is_no_stop_signal():
    assert signal.SIGUSR1 not in handled_stop_signals()


def test_after_a_hangup_output_to_files_is_left_alone(tmpdir):
    from ssbench.cli.stopsignals import quiet_dead_terminal
    saved = [os.dup(1), os.dup(2)]
    path = str(tmpdir.join('out'))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT)
    try:
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        quiet_dead_terminal(signal.SIGHUP)
        kept = [os.fstat(n).st_ino for n in (1, 2)]
    finally:
        for n, old in zip((1, 2), saved):
            os.dup2(old, n)
            os.close(old)
        os.close(fd)
    assert kept == [os.stat(path).st_ino] * 2


def test_after_a_hangup_output_to_a_terminal_goes_to_dev_null():
    import pty
    from ssbench.cli.stopsignals import quiet_dead_terminal
    master, slave = pty.openpty()
    saved = [os.dup(1), os.dup(2)]
    try:
        os.dup2(slave, 1)
        os.dup2(slave, 2)
        quiet_dead_terminal(signal.SIGTERM)    # no hangup: kept
        kept = os.fstat(1).st_rdev
        quiet_dead_terminal(signal.SIGHUP)
        now = [os.fstat(n).st_rdev for n in (1, 2)]
    finally:
        for n, old in zip((1, 2), saved):
            os.dup2(old, n)
            os.close(old)
        os.close(slave)
        os.close(master)
    null = os.stat(os.devnull).st_rdev
    assert kept != null and now == [null, null]

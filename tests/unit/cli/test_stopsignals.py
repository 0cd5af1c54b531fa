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

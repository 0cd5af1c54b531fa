"""run-scenario's signal handling: SIGUSR1 stores an operator's mark."""
from __future__ import absolute_import, division, print_function

import os
import signal

from ssbench.cli.runscenario import marks_on_signal


def test_sigusr1_marks_while_the_run_lasts_and_is_restored_after():
    marks = []

    class Events(object):
        def mark(self):
            marks.append(len(marks) + 1)

    before = signal.getsignal(signal.SIGUSR1)
    with marks_on_signal(Events()):
        os.kill(os.getpid(), signal.SIGUSR1)
        os.kill(os.getpid(), signal.SIGUSR1)
    assert marks == [1, 2]
    assert signal.getsignal(signal.SIGUSR1) == before

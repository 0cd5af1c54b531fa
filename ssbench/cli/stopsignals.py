"""The signals that stop `ssbench-master` as a Ctrl-C does.

SIGHUP (a closed terminal, a dropped SSH session), SIGTERM and SIGUSR2
would otherwise end the master at once, its stats file not gzipped and no
report written; SIGUSR1 is the operator's mark (see
ssbench.cli.runscenario.marks_on_signal).  interrupt_on_stop_signals()
makes each of them raise KeyboardInterrupt, as Python's SIGINT does, so
that whatever the master is doing ends in one "interrupted" line and
status 130; a run's stop_on_signals takes them over to stop it
gracefully, keeping every result.  After a hangup, output to the
terminal that hung up goes to /dev/null (quiet_dead_terminal).
"""
from __future__ import absolute_import, division, print_function

import os
import signal
import stat

# By name: a platform without one (SIGHUP, SIGUSR2 on Windows) skips it.
STOP_SIGNALS = ('SIGINT', 'SIGTERM', 'SIGHUP', 'SIGUSR2')


def handled_stop_signals():
    """The numbers of the STOP_SIGNALS this platform has, less SIGHUP
    and SIGUSR2 when they are ignored (nohup ignores SIGHUP: the master
    must outlive the terminal then)."""
    found = []
    for name in STOP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None or name not in ('SIGINT', 'SIGTERM') and \
                signal.getsignal(signum) == signal.SIG_IGN:
            continue
        found.append(signum)
    return found


def quiet_dead_terminal(signum):
    """After SIGHUP, standard output and error that are terminals go to
    /dev/null: a write to a terminal that hung up fails (EIO), which
    would end in an error the run that the hangup only stops, its
    stats file not gzipped.  Files and pipes are left alone."""
    if signum != getattr(signal, 'SIGHUP', None):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        null = os.fstat(devnull).st_rdev
        for fd in (1, 2):
            try:
                found = os.fstat(fd)
            except OSError:
                continue
            if stat.S_ISCHR(found.st_mode) and found.st_rdev != null:
                os.dup2(devnull, fd)
    finally:
        os.close(devnull)


def _interrupt(signum, frame):
    quiet_dead_terminal(signum)
    raise KeyboardInterrupt()


def interrupt_on_stop_signals():
    """Every handled stop signal but SIGINT (already so) raises
    KeyboardInterrupt."""
    for signum in handled_stop_signals():
        if signum != signal.SIGINT:
            signal.signal(signum, _interrupt)
            # Restart interrupted system calls: Python 2 would otherwise
            # fail a write to stderr with EINTR.
            signal.siginterrupt(signum, False)

"""The commands' main() run in this process, as the CLI tests call them,
and what they check in what a command printed."""
from __future__ import absolute_import, division, print_function

import os
import signal
import sys

MASTER = 'ssbench.cli.master'
WORKER = 'ssbench.cli.worker'

# Credentials a caller's environment may hold; a command that should fail
# for want of them must not find them there.
NO_AUTH_ENV = ('ST_AUTH', 'ST_USER', 'ST_KEY', 'OS_USERNAME', 'OS_PASSWORD',
               'OS_AUTH_URL', 'OS_TENANT_NAME', 'OS_PROJECT_NAME',
               'OS_AUTH_TOKEN', 'OS_STORAGE_URL', 'ST_AUTH_VERSION')

# The signals a command's main() may take over for a while.
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGPIPE,
           signal.SIGUSR1, signal.SIGUSR2)


def call_main(module, args):
    """The exit status of `module`'s main() on `args`, in this process (a
    SystemExit counts as its code).  The worker runs unpatched and without
    signal handlers of its own (its main(patch=False))."""
    if module == MASTER:
        from ssbench.cli.master import main
    elif module == WORKER:
        from ssbench.cli import worker

        def main(argv):
            return worker.main(argv, env=dict(os.environ), patch=False)
    else:
        raise ValueError('no main() for %s' % module)
    try:
        return main(list(args))
    except SystemExit as exc:
        return 0 if exc.code is None else exc.code


def error_lines(err):
    """The lines of stderr that report an error."""
    return [line for line in err.splitlines()
            if line.startswith('ERROR:') or ': error: ' in line]


def check(status, err, want_status, fragment):
    """One error line holding `fragment`, no traceback, `want_status`."""
    assert 'Traceback' not in err, err
    lines = error_lines(err)
    assert len(lines) == 1, err
    assert fragment in lines[0], err
    assert status == want_status, err


class ProcessState(object):
    """What a main() may change in its process and must leave as it found
    it, or the tests after it would run in another world: the handlers of
    SIGNALS, os.environ, the open-files limit and the umask."""

    def __init__(self):
        import resource
        self.resource = resource
        self.handlers = dict((signum, signal.getsignal(signum))
                             for signum in SIGNALS)
        self.environ = dict(os.environ)
        self.nofile = resource.getrlimit(resource.RLIMIT_NOFILE)
        self.umask = os.umask(0o22)
        os.umask(self.umask)
        self.stdin = sys.stdin

    def restore(self):
        for signum, handler in self.handlers.items():
            if signal.getsignal(signum) != handler and handler is not None:
                signal.signal(signum, handler)
        os.environ.clear()
        os.environ.update(self.environ)
        resource = self.resource
        if resource.getrlimit(resource.RLIMIT_NOFILE) != self.nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, self.nofile)
        os.umask(self.umask)
        sys.stdin = self.stdin

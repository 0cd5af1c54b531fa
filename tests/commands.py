"""Real processes for the tests, unit and end-to-end: bounded commands
run in the source tree, free loopback ports, and the stopping of what a
test started."""
from __future__ import absolute_import, division, print_function

import errno
import fcntl
import os
import socket
import subprocess
import tempfile
import threading

from ssbench.compat import makedirs
from tests.paths import ROOT
from tests.waiting import wait_for

# One lock file per port handed out, shared by every test process of this
# user on this host: tools/run-tests runs the py27 and py3 suites at once,
# and a port one of them was given is free to the other's kernel until its
# master binds it.
RESERVATIONS = os.path.join(tempfile.gettempdir(),
                            'ssbench-test-ports-%d' % os.getuid())
# The open, locked files: a reservation lasts as long as this process,
# and the kernel drops it when the process dies, however it dies.
_HELD = []


def reserve(port):
    """An open file descriptor holding an exclusive flock on `port`'s
    file in RESERVATIONS, or None if another holder has it.  flock (not
    lockf) because its locks belong to the open file, so this process
    also fails to take a port it holds already."""
    makedirs(RESERVATIONS, 0o700)
    fd = os.open(os.path.join(RESERVATIONS, str(port)),
                 os.O_RDWR | os.O_CREAT, 0o600)
    # Python 2.7's descriptors are inherited: a master this process starts
    # must not keep the port reserved after this process is gone.
    fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (IOError, OSError) as err:    # IOError on Python 2.7
        os.close(fd)
        if err.errno in (errno.EAGAIN, errno.EWOULDBLOCK):
            return None
        raise
    return fd


def free_port():
    """A loopback port free now and handed out before by no test process
    on this host that is still alive: the kernel may give a port just
    closed again, and two calls in a row (the work and results ports)
    once got the same one."""
    for _ in range(100):
        sock = socket.socket()
        try:
            sock.bind(('127.0.0.1', 0))
            port = sock.getsockname()[1]
            held = reserve(port)
        finally:
            sock.close()
        if held is not None:
            _HELD.append(held)
            return port
    raise AssertionError('no loopback port that was not handed out before')


def zmq_args():
    """ssbench-master flags for two free loopback ZeroMQ ports."""
    return ['--zmq-bind-ip', '127.0.0.1',
            '--zmq-work-port', str(free_port()),
            '--zmq-results-port', str(free_port())]


class Ran(object):
    def __init__(self, status, out, err):
        self.status, self.out, self.err = status, out, err

    def __repr__(self):
        return 'Ran(status=%r)\n--- stdout\n%s\n--- stderr\n%s' % (
            self.status, self.out[-3000:], self.err[-3000:])


def run(argv, timeout, env=None, drop_env=(), preexec_fn=None):
    """Run argv in the source tree with a hard timeout (killed after it,
    and SIGTERMed should this process die first: see die_with_parent);
    returns Ran.  `env` adds to this process's environment, `drop_env`
    names variables to leave out (credentials, say); `preexec_fn` runs
    in the child after die_with_parent."""
    full_env = dict((k, v) for k, v in os.environ.items()
                    if k not in drop_env)
    full_env.update(env or {})

    def prepare():
        die_with_parent()
        if preexec_fn is not None:
            preexec_fn()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=full_env,
                            cwd=ROOT, preexec_fn=prepare)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        out, err = proc.communicate()
    finally:
        timer.cancel()
    return Ran(proc.returncode, out.decode('utf-8', 'replace'),
               err.decode('utf-8', 'replace'))


def die_with_parent():
    """preexec_fn: SIGTERM this child when the test process dies (Linux
    PR_SET_PDEATHSIG; kept across exec), so no worker outlives a killed
    test run."""
    import ctypes
    import signal
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGTERM), 0, 0, 0)   # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def wait_exit(proc, timeout):
    """Wait up to `timeout` seconds for proc; its exit status or None."""
    try:
        wait_for(lambda: proc.poll() is not None, timeout,
                 'pid %d exiting' % proc.pid, interval=0.05)
    except AssertionError:
        pass
    return proc.poll()


def stop_process(proc, grace=5):
    """Terminate proc (this pid only), kill it after `grace` seconds."""
    if proc.poll() is None:
        try:
            proc.terminate()
        except OSError:
            pass
        if wait_exit(proc, grace) is None:
            try:
                proc.kill()
            except OSError:
                pass
            wait_exit(proc, grace)
    return proc.poll()

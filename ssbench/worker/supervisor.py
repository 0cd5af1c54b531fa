"""`ssbench-worker --processes N|auto`: one command, N worker processes.

The parent is a plain supervisor: it never opens a ZeroMQ socket (its
children connect on their own), runs no gevent, and only starts, watches
and stops them.  Child k runs the same command line with id ID + k, found
through the CHILD_INDEX environment variable, and writes its log to
DIR/worker-<id>.log.

Children ignore SIGINT (a terminal's Ctrl-C reaches the whole process
group; it is the parent's to handle) and get SIGTERM when the parent dies,
even by SIGKILL (Linux's parent-death signal).  SIGINT or SIGTERM to the
parent sends SIGTERM to every child, on which each flushes its results and
exits; `kill-workers` tells each child to exit on its own.  A child that
exits is reported in one line with its id and status; the parent exits
once none is left: 0 when each exited with 0, else 1 (130 after SIGINT).
"""
from __future__ import absolute_import, division, print_function

import io
import logging
import os
import signal
import sys
import time

from ssbench.compat import PY2
from ssbench.errors import SsbenchError, UsageError

log = logging.getLogger('ssbench.worker.processes')

# Set in a child's environment: its index among the parent's children.
CHILD_INDEX = 'SSBENCH_WORKER_PROCESS_INDEX'
# Seconds children have to exit after SIGTERM before they are killed.
STOP_GRACE = 10.0
POLL_INTERVAL = 0.1
# prctl(2) option: the signal a child gets when its parent dies.
_PR_SET_PDEATHSIG = 1


def parse_processes(text):
    """argparse type of --processes: a positive count, or "auto" (one per
    core)."""
    import argparse
    if text == 'auto':
        return text
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1 or count > 4096:
        raise argparse.ArgumentTypeError(
            'expected "auto" or a count from 1 to 4096, got %r' % (text,))
    return count


def process_count(value, cores):
    """How many processes `value` (a count or "auto") means on a host of
    `cores` cores (None: unknown, taken as 1)."""
    if value == 'auto':
        return max(1, cores or 1)
    return value


def wants_processes(argv):
    """Whether a command line asks for --processes (however abbreviated),
    before it is parsed: the supervisor must not patch gevent in."""
    for token in argv:
        if token == '--':
            return False
        name = token.split('=', 1)[0]
        if len(name) >= len('--proc') and '--processes'.startswith(name):
            return True
    return False


def child_index(env):
    """This process's index among its parent's children, or None."""
    text = env.get(CHILD_INDEX)
    if text is None:
        return None
    try:
        return int(text)
    except ValueError:
        raise UsageError('%s=%r is not an index' % (CHILD_INDEX, text))


def _child_setup(parent_pid):
    """preexec_fn: ignore SIGINT, and get SIGTERM when the parent dies."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError, TypeError):
        return      # not Linux: a SIGKILLed parent leaves its children
    if os.getppid() != parent_pid:
        # The parent died before prctl() took effect.
        os.kill(os.getpid(), signal.SIGTERM)


def open_log(path, text=False):
    """A worker's log, appended to (a restart with the same --log-dir adds
    to it; nothing is truncated); symbolic links are refused.  Binary (a
    child's output), or with `text` a line-buffered file of native
    strings, for logging."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_APPEND | getattr(
        os, 'O_NOFOLLOW', 0)
    try:
        fd = os.open(path, flags, 0o644)
        if not text:
            return io.open(fd, 'ab')
        if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
            return os.fdopen(fd, 'a', 1)
        return io.open(fd, 'a', buffering=1, encoding='utf-8',
                       errors='replace')
    except (OSError, IOError) as exc:
        raise SsbenchError('cannot open the worker log %s: %s' % (
            path, exc.strerror or exc))


def describe_status(returncode):
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except (AttributeError, ValueError):
            name = 'signal %d' % -returncode
        return 'killed by %s' % name
    return 'exited with status %d' % returncode


class Supervisor(object):
    """Starts `count` children running `argv` (ssbench-worker's arguments)
    with ids from `first_id`, logging into `log_dir`, and waits for them."""

    def __init__(self, argv, first_id, count, log_dir, env=None,
                 executable=None):
        self.argv = list(argv)
        self.first_id = first_id
        self.count = count
        self.log_dir = log_dir
        self.env = dict(os.environ if env is None else env)
        self.executable = executable or sys.executable
        self.children = {}      # worker id -> Popen, running
        self.failed = []        # ids of children that did not exit 0
        self.received = None    # the signal that asked us to stop

    def log_path(self, worker_id):
        return os.path.join(self.log_dir, 'worker-%d.log' % worker_id)

    def start(self):
        # Not at the top: a child imports this module before gevent
        # patches subprocess (and the threading it imports).
        import subprocess
        parent = os.getpid()
        for index in range(self.count):
            worker_id = self.first_id + index
            env = dict(self.env)
            env[CHILD_INDEX] = str(index)
            with open_log(self.log_path(worker_id)) as logfile, \
                    open(os.devnull, 'rb') as devnull:
                try:
                    proc = subprocess.Popen(
                        [self.executable, '-m', 'ssbench.cli.worker'] +
                        self.argv, stdin=devnull, stdout=logfile,
                        stderr=subprocess.STDOUT, env=env, close_fds=True,
                        preexec_fn=lambda: _child_setup(parent))
                except (OSError, IOError) as exc:
                    self.stop()
                    raise SsbenchError('cannot start worker %d: %s' % (
                        worker_id, exc))
            self.children[worker_id] = proc
        log.info('started workers %d to %d (pids %s), logging to %s',
                 self.first_id, self.first_id + self.count - 1,
                 ' '.join(str(self.children[i].pid)
                          for i in sorted(self.children)),
                 os.path.join(self.log_dir, 'worker-ID.log'))
        return self

    def _on_signal(self, signum, frame):
        if self.received is None:
            log.info('received %s: stopping %d worker(s)',
                     'SIGINT' if signum == signal.SIGINT else 'SIGTERM',
                     len(self.children))
        self.received = signum
        self._terminate()

    def _terminate(self):
        for proc in self.children.values():
            try:
                proc.send_signal(signal.SIGTERM)
            except OSError:
                pass

    def reap(self):
        """Report and forget the children that exited."""
        for worker_id in sorted(self.children):
            proc = self.children[worker_id]
            if proc.poll() is None:
                continue
            del self.children[worker_id]
            if proc.returncode != 0:
                self.failed.append(worker_id)
            level = logging.INFO if proc.returncode == 0 else logging.ERROR
            log.log(level, 'worker %d (pid %d) %s (log: %s)', worker_id,
                    proc.pid, describe_status(proc.returncode),
                    self.log_path(worker_id))

    def wait(self, clock=time.time):
        """Until every child is gone; the exit status."""
        handlers = {}
        for signum in (signal.SIGINT, signal.SIGTERM):
            handlers[signum] = signal.signal(signum, self._on_signal)
        try:
            kill_at = None
            while self.children:
                self.reap()
                if self.received is not None and kill_at is None:
                    kill_at = clock() + STOP_GRACE
                if kill_at is not None and clock() > kill_at:
                    self.stop()
                    break
                time.sleep(POLL_INTERVAL)
        finally:
            for signum, handler in handlers.items():
                signal.signal(signum, handler)
            self.stop()
        if self.received == signal.SIGINT:
            return 130
        return 1 if self.failed else 0

    def stop(self, grace=0.0):
        """SIGKILL what is left (after `grace` seconds from SIGTERM)."""
        if not self.children:
            return
        self._terminate()
        deadline = time.time() + grace
        while self.children and time.time() < deadline:
            self.reap()
            time.sleep(POLL_INTERVAL)
        for worker_id, proc in list(self.children.items()):
            try:
                proc.kill()
            except OSError:
                pass
            proc.wait()
        self.reap()

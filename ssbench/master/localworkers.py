"""Spawn and reap the local ssbench-worker processes of `--workers N`.

They stay in the master's process group, so a terminal's Ctrl-Z reaches
them with it, but they ignore the signals the master stops on (SIGINT, a
hangup's SIGHUP, SIGUSR2; see ssbench.cli.stopsignals) and its mark
signal, SIGUSR1: those are the master's to handle, and it drains their
in-flight results before it stops them (with SIGTERM, on which a worker
flushes its results and exits quietly).

They die with their master however it ends, `kill -9` included: on Linux
each gets SIGTERM when the master dies (the parent-death signal),
elsewhere it exits MASTER_TIMEOUT seconds after it last heard from the
master.  Each carries a token of this run in its environment
(LOCAL_RUN_ENV) and in its heartbeats, and the master refuses a worker
carrying any other (ssbench.master.admission): a worker left behind by an
earlier master is never taken for one of this run's.  Their environment
holds no credential: the caller names the variables to leave out.
"""
from __future__ import absolute_import, division, print_function

import binascii
import logging
import os
import signal
import subprocess
import sys
import time

from ssbench.results import safefiles
from ssbench.errors import SsbenchError

log = logging.getLogger(__name__)

# Local workers exit by themselves this long after their master vanished
# where no parent-death signal reaches them (not Linux).
MASTER_TIMEOUT = 30
# The environment variable that hands a local worker its run's token.
LOCAL_RUN_ENV = 'SSBENCH_LOCAL_RUN'
# The master's signals (which a terminal or an operator may send its whole
# process group): local workers ignore them.
_MASTERS_SIGNALS = ('SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2')
# prctl(2) option: the signal a child gets when its parent dies.
_PR_SET_PDEATHSIG = 1


def worker_command(worker_id, zmq_host, work_port, results_port,
                   concurrency, batch_size, extra_args=()):
    """The argv of one local worker; never carries a credential."""
    return ([sys.executable, '-m', 'ssbench.cli.worker',
             '--zmq-host', zmq_host,
             '--zmq-work-port', str(work_port),
             '--zmq-results-port', str(results_port),
             '--concurrency', str(concurrency),
             '--batch-size', str(batch_size),
             '--master-timeout', str(MASTER_TIMEOUT)] + list(extra_args) +
            [str(worker_id)])


def scrubbed_env(drop, environ=None):
    """The master's environment (`environ`) less the variables named in
    `drop`: workers are configured by the master over the wire, so they
    need no credential of their own."""
    env = dict(os.environ if environ is None else environ)
    for name in drop:
        env.pop(name, None)
    return env


def fresh_log_dir(path):
    """`path` made ready for a run's worker logs (--keep-worker-logs): a
    new directory, or an existing one without the worker-N.log files of
    an earlier run; anything else in it is left alone."""
    import re
    try:
        if not os.path.isdir(path):
            os.mkdir(path, 0o755)
        for name in os.listdir(path):
            if re.match(r'worker-[0-9]+\.log$', name):
                os.unlink(os.path.join(path, name))
    except OSError as exc:
        raise SsbenchError('cannot keep the worker logs in %s: %s'
                           % (path, exc.strerror))
    return path


def _prctl():
    """libc's prctl(), or None where there is none (not Linux).  Looked
    up before fork: a child of a threaded process must not load
    libraries."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError, ImportError):
        return None


def _child_setup(parent_pid, prctl):
    """preexec_fn: ignore the master's signals (inherited across exec),
    and get SIGTERM when the master dies."""
    for name in _MASTERS_SIGNALS:
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    if prctl is None:
        return
    prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
    if os.getppid() != parent_pid:
        # The master died before prctl() took effect.
        os.kill(os.getpid(), signal.SIGTERM)


class LocalWorkers(object):
    """Context manager owning N worker processes; always reaps them.

    Their logs go to `log_dir`/worker-N.log; by default `log_dir` is a new
    private directory per run, so concurrent runs never share a log and
    nothing planted in /tmp can redirect one, and settle_logs() removes
    it after a run that went well.
    """

    def __init__(self, count, zmq_host, work_port, results_port,
                 concurrency, batch_size, extra_args=(), log_dir=None,
                 drop_env=()):
        self.commands = [
            worker_command(i, zmq_host, work_port, results_port,
                           concurrency, batch_size, extra_args)
            for i in range(count)]
        self.log_dir = log_dir
        self._own_dir = False
        self.ids = list(range(count))
        self.procs = []
        self.drop_env = tuple(drop_env)
        # This run's, in each worker's environment and heartbeats.
        self.token = binascii.hexlify(os.urandom(16)).decode('ascii')

    def log_path(self, worker_id):
        return os.path.join(self.log_dir, 'worker-%d.log' % worker_id)

    def start(self):
        if self.log_dir is None:
            self.log_dir = safefiles.private_directory('ssbench-workers-')
            self._own_dir = True
        env = scrubbed_env(self.drop_env)
        env[LOCAL_RUN_ENV] = self.token
        parent, prctl = os.getpid(), _prctl()
        for worker_id, argv in enumerate(self.commands):
            path = self.log_path(worker_id)
            log.info('Spawning local ssbench-worker (logging to %s) with '
                     '%s', path, ' '.join(['ssbench-worker'] + argv[3:]))
            try:
                with safefiles.create_new(path) as logfile, \
                        open(os.devnull, 'rb') as devnull:
                    proc = subprocess.Popen(
                        argv, stdin=devnull, stdout=logfile,
                        stderr=subprocess.STDOUT, env=env, close_fds=True,
                        preexec_fn=lambda: _child_setup(parent, prctl))
            except (OSError, IOError) as exc:
                self.stop()
                raise SsbenchError('cannot start local worker %d: %s'
                                   % (worker_id, exc))
            self.procs.append(proc)
        return self

    def alive(self):
        return [p for p in self.procs if p.poll() is None]

    def exited(self):
        """None while a worker runs (or none was started), else one line
        saying that every one of them exited, with their statuses."""
        if not self.procs or self.alive():
            return None
        how = sorted(set('signal %d' % -p.returncode if p.returncode < 0
                         else 'status %d' % p.returncode
                         for p in self.procs))
        return 'every local ssbench-worker exited (%s; logs in %s)' % (
            ', '.join(how), self.log_dir)

    def stop(self, grace=3.0):
        """Terminate, wait up to `grace` seconds, then kill what is left
        (also when interrupted while waiting)."""
        try:
            for proc in self.alive():
                try:
                    proc.send_signal(signal.SIGTERM)
                except OSError:
                    pass
            deadline = time.time() + grace
            while self.alive() and time.time() < deadline:
                time.sleep(0.05)
        finally:
            for proc in self.alive():
                try:
                    proc.kill()
                except OSError:
                    pass
            for proc in self.procs:
                proc.wait()
            self.procs = []

    def settle_logs(self, went_well):
        """After stop(): the private log directory of a run that
        `went_well` is removed (nobody reads those logs); any other
        directory is kept and named in one line."""
        if not self.log_dir or not os.path.isdir(self.log_dir):
            return
        if not went_well:
            log.warning("The local workers' logs are in %s", self.log_dir)
        elif self._own_dir:
            import shutil
            shutil.rmtree(self.log_dir, ignore_errors=True)
        else:
            log.info("The local workers' logs are in %s", self.log_dir)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()
        return False

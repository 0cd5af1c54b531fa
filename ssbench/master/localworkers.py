"""Spawn and reap the local ssbench-worker processes of `--workers N`.

They stay in the master's process group, so a terminal's Ctrl-Z or hangup
reaches them with it, but they ignore SIGINT: a Ctrl-C is the master's to
handle, and it drains their in-flight results before it stops them (with
SIGTERM, on which a worker flushes its results and exits quietly).
"""
from __future__ import absolute_import, division, print_function

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
# (e.g. it was killed with SIGKILL and could not reap them).
MASTER_TIMEOUT = 30


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


def _scrubbed_env():
    """The master's environment minus credentials: workers are configured
    by the master over the wire, so they need none of their own."""
    env = dict(os.environ)
    for name in list(env):
        if name in ('ST_KEY', 'OS_PASSWORD', 'OS_AUTH_TOKEN'):
            del env[name]
    return env


def _ignore_sigint():
    """preexec_fn: the child ignores SIGINT (inherited across exec)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class LocalWorkers(object):
    """Context manager owning N worker processes; always reaps them.

    Their logs go to `log_dir`/worker-N.log; by default `log_dir` is a new
    private directory per run, so concurrent runs never share a log and
    nothing planted in /tmp can redirect one.
    """

    def __init__(self, count, zmq_host, work_port, results_port,
                 concurrency, batch_size, extra_args=(), log_dir=None):
        self.commands = [
            worker_command(i, zmq_host, work_port, results_port,
                           concurrency, batch_size, extra_args)
            for i in range(count)]
        self.log_dir = log_dir
        self.ids = list(range(count))
        self.procs = []

    def log_path(self, worker_id):
        return os.path.join(self.log_dir, 'worker-%d.log' % worker_id)

    def start(self):
        if self.log_dir is None:
            self.log_dir = safefiles.private_directory('ssbench-workers-')
        for worker_id, argv in enumerate(self.commands):
            path = self.log_path(worker_id)
            log.info('Spawning local ssbench-worker (logging to %s) with '
                     '%s', path, ' '.join(['ssbench-worker'] + argv[3:]))
            try:
                with safefiles.create_new(path) as logfile, \
                        open(os.devnull, 'rb') as devnull:
                    proc = subprocess.Popen(
                        argv, stdin=devnull, stdout=logfile,
                        stderr=subprocess.STDOUT, env=_scrubbed_env(),
                        close_fds=True, preexec_fn=_ignore_sigint)
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

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc_info):
        self.stop()
        return False

"""The soak's processes (bench/soak.py): each started in a process group
of its own and stopped with its whole group, the standalone workers a
fault may kill and start again, and the RSS samples of them all.
"""
from __future__ import absolute_import, division, print_function

import os
import signal
import subprocess
import threading
import time

import benchlib
import soakfigures
from soakfaults import SoakError

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

# Seconds a stopped process gets between SIGTERM (SIGINT for the master)
# and SIGKILL.
GRACE = 10.0


def worker_env():
    """The soak's environment less every variable credentials are read
    from: its workers use the master's token, as the token fault
    expects, however the soak was started (ST_KEY set, say)."""
    from ssbench.cli import authopts, s3opts
    drop = set(authopts.ENV_NAMES + s3opts.ENV_NAMES)
    return dict((name, value) for name, value in os.environ.items()
                if name not in drop)


def start_group(argv, log_path, env=None):
    """Popen of argv in a process group of its own (so that it and
    whatever it starts can be signalled together), output to log_path."""
    with open(log_path, 'ab') as log:
        with open(os.devnull, 'rb') as nothing:
            return subprocess.Popen(argv, stdout=log,
                                    stderr=subprocess.STDOUT, stdin=nothing,
                                    cwd=ROOT, env=env, preexec_fn=os.setsid,
                                    close_fds=True)


def stop_group(proc, first=signal.SIGTERM, grace=GRACE):
    """Signal proc's group with `first`, SIGKILL it after `grace`
    seconds; reap it.  Its exit status."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, first)
        except OSError:
            pass
        deadline = time.time() + grace
        while proc.poll() is None and time.time() < deadline:
            time.sleep(0.1)
    try:
        os.killpg(proc.pid, signal.SIGKILL)   # stragglers of the group too
    except OSError:
        pass
    return proc.wait()


class Workers(object):
    """Standalone `ssbench-worker` processes, ids 1..N, each in its own
    process group; a killed one can be started again under its id."""

    def __init__(self, python, ports, out, count):
        self.python = python
        self.ports = ports
        self.out = out
        self.count = count
        self.lock = threading.Lock()
        self.live = {}          # worker id -> Popen
        self.every = []         # (worker id, Popen), restarts too
        self.stopping = False

    def ids(self):
        return list(range(1, self.count + 1))

    def start(self, worker_id):
        """Start worker `worker_id`: its pid."""
        argv = [self.python, '-m', 'ssbench.cli.worker',
                '--zmq-host', '127.0.0.1',
                '--zmq-work-port', str(self.ports[0]),
                '--zmq-results-port', str(self.ports[1]),
                '--master-timeout', '60', str(worker_id)]
        log = os.path.join(self.out, 'worker-%d.log' % worker_id)
        with self.lock:
            if self.stopping:
                raise SoakError('the soak is stopping: worker %d not '
                                'started again' % worker_id)
            proc = start_group(argv, log, env=worker_env())
            self.live[worker_id] = proc
            self.every.append((worker_id, proc))
        return proc.pid

    def kill(self, worker_id, sig):
        """Signal worker `worker_id`'s group and reap it: its pid."""
        with self.lock:
            proc = self.live.pop(worker_id)
        os.killpg(proc.pid, sig)
        proc.wait()
        return proc.pid

    def processes(self):
        with self.lock:
            return list(self.every)

    def stop(self):
        with self.lock:
            self.stopping = True
            procs = list(self.live.values())
        for proc in procs:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except OSError:
                    pass
        for proc in procs:
            stop_group(proc)


class Sampler(object):
    """RSS samples [(epoch seconds, MB)] per process (name, pid)."""

    def __init__(self, every, clock=time.time):
        self.every = every
        self.clock = clock
        self.series = {}
        self.order = []
        self.due = 0.0

    def sample(self, processes):
        """Sample each live (name, Popen) of `processes` if due."""
        now = self.clock()
        if now < self.due:
            return
        self.due = now + self.every
        for name, proc in processes:
            if proc.poll() is not None:
                continue
            value = benchlib.rss_mb(proc.pid)
            if value is None:
                continue
            key = (name, proc.pid)
            if key not in self.series:
                self.series[key] = []
                self.order.append(key)
            self.series[key].append((now, value))

    def summary(self, bench_start, skip):
        """Each series with its slope over the samples from `skip`
        seconds after the later of its first sample and `bench_start`."""
        out = []
        for name, pid in self.order:
            samples = self.series[(name, pid)]
            begin = max(samples[0][0], bench_start or samples[0][0])
            out.append(soakfigures.rss_series(name, pid, samples,
                                              begin + skip))
        return out

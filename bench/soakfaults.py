"""The soak's Swift (an instance of tools/saio of its own) and the faults
it suffers (bench/soak.py): each fault is a function that does it, from
its beginning to the service back, and says in a few words what it did;
FaultRunner does them in turn, each between two marks.
"""
from __future__ import absolute_import, division, print_function

import io
import os
import re
import signal
import socket
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SAIO = os.path.join(ROOT, 'tools', 'saio')

# The default plan, in this order, one every --fault-every seconds.
PLAN = ('proxy', 'object', 'network', 'worker', 'token')


class SoakError(RuntimeError):
    """Something the soak needs failed: one line says what."""


class Saio(object):
    """tools/saio on the instance of `saio_dir`: ports shifted by
    `offset`, Swift from the virtualenv `venv`."""

    def __init__(self, saio_dir, offset, venv):
        self.saio_dir = saio_dir
        self.env = dict(os.environ, SAIO_DIR=saio_dir,
                        SAIO_PORT_OFFSET=str(offset))
        if venv:
            self.env['SAIO_VENV'] = venv

    def _saio(self, args):
        proc = subprocess.Popen([SAIO] + list(args), env=self.env,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        out = proc.communicate()[0].decode('utf-8', 'replace')
        return proc.returncode, out

    def run(self, *args, **kwargs):
        """tools/saio ARGS...: its output; SoakError if it fails (unless
        check=False)."""
        status, out = self._saio(args)
        if status != 0 and kwargs.get('check', True):
            raise SoakError('tools/saio %s (SAIO_DIR=%s) failed: %s' % (
                ' '.join(args), self.saio_dir,
                last_line(out) or 'exit status %d' % status))
        return out

    def mount_point(self):
        """Where tools/saio mounts the instance's data image (its DEV)."""
        return os.path.join(self.saio_dir, 'srv', 'd1')

    def unmount(self):
        """After `stop`: unmount the data image, which `start` mounts
        again, so that a soak leaves no mount behind; a failure is one
        line (SoakError)."""
        where = self.mount_point()
        if not os.path.ismount(where):
            return
        proc = subprocess.Popen(['umount', where], stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
        out = proc.communicate()[0].decode('utf-8', 'replace')
        if proc.returncode != 0:
            raise SoakError('cannot unmount %s: %s' % (
                where, last_line(out) or 'exit status %d' % proc.returncode))

    def up(self):
        """Does `tools/saio status` say this instance runs?"""
        return self._saio(['status'])[0] == 0

    def credentials(self):
        """(auth URL, user, key) that `tools/saio env` prints."""
        out = self.run('env')
        found = dict(re.findall(r'\b(ST_AUTH|ST_USER|ST_KEY)=(\S+)', out))
        if len(found) != 3:
            raise SoakError('tools/saio env said no ST_AUTH/ST_USER/ST_KEY: '
                            '%s' % out.strip())
        return found['ST_AUTH'], found['ST_USER'], found['ST_KEY']

    def memcached(self, proxy_port):
        """(host, port) of the memcached the proxy on `proxy_port` uses
        (tempauth keeps its tokens there)."""
        path = os.path.join(self.saio_dir, 'etc',
                            'proxy-%d.conf' % proxy_port)
        try:
            with open(path) as conf:
                text = conf.read()
        except (IOError, OSError) as exc:
            raise SoakError('cannot read %s: %s' % (path, exc))
        match = re.search(r'(?m)^memcache_servers\s*=\s*([\d.]+):(\d+)',
                          text)
        if match is None:
            raise SoakError('%s names no memcache_servers' % path)
        return match.group(1), int(match.group(2))


def flush_memcached(address, timeout=5.0):
    """`flush_all` to a memcached: tempauth forgets every token it
    handed out, so the next request with one is answered 401."""
    sock = socket.create_connection(address, timeout=timeout)
    try:
        sock.sendall(b'flush_all\r\n')
        answer = sock.recv(64)
    finally:
        sock.close()
    if not answer.startswith(b'OK'):
        raise SoakError('memcached %s:%d answered flush_all with %r' % (
            address + (answer,)))


def last_line(text):
    lines = text.strip().splitlines()
    return lines[-1] if lines else ''


class Faults(object):
    """The faults of the plan, on the soak's Swift (`saio`, its proxy on
    `proxy_port`), its relay and its workers (a soakprocs.Workers)."""

    def __init__(self, saio, proxy_port, relay, workers, options,
                 sleep=time.sleep):
        self.saio = saio
        self.proxy_port = proxy_port
        self.relay = relay
        self.workers = workers
        self.options = options
        self.sleep = sleep
        self._next_worker = 0

    def proxy(self):
        """The proxy the workers reach restarted (tools/saio restart)."""
        return last_line(self.saio.run('restart',
                                       'proxy-%d' % self.proxy_port))

    def object(self):
        """The object server killed, started again after a while."""
        began = time.time()
        self.saio.run('kill', 'object')
        self.sleep(self.options.down_seconds)
        self.saio.run('start')
        return 'object server killed, up again %.1f s later' % (
            time.time() - began)

    def network(self):
        """The relay between workers and proxy forwards nothing for a
        while, then resets every connection and refuses new ones for a
        second."""
        self.relay.stall()
        try:
            self.sleep(self.options.stall_seconds)
        finally:
            self.relay.cut()
            self.relay.resume()
        self.sleep(1.0)
        self.relay.restore()
        return 'network stalled %.0f s, then reset' % (
            self.options.stall_seconds,)

    def worker(self):
        """One worker (each in turn) killed with -9 and started again
        under its id a moment later."""
        ids = self.workers.ids()
        worker_id = ids[self._next_worker % len(ids)]
        self._next_worker += 1
        pid = self.workers.kill(worker_id, signal.SIGKILL)
        self.sleep(self.options.worker_pause)
        new = self.workers.start(worker_id)
        return 'worker %d (pid %s) killed -9, back as pid %d' % (
            worker_id, pid, new)

    def token(self):
        """Every token expires at once: memcached, where tempauth keeps
        them, is flushed; the master renews on the first 401."""
        flush_memcached(self.saio.memcached(self.proxy_port))
        return 'tempauth tokens flushed from memcached'


# The master reads the mark file every half second and stamps a mark when
# it reads it: a fault waits this long after its begin mark, so that the
# mark comes before the fault's effects on the timeline.
MARK_SETTLE = 0.6


class FaultRunner(threading.Thread):
    """Does the plan's faults in turn, the k-th at bench_start + k *
    every, each between a begin and an end mark line."""

    def __init__(self, faults, plan, count, every, marks, bench_start,
                 stop_event):
        threading.Thread.__init__(self, name='faults')
        self.daemon = True
        self.faults = faults
        self.plan = plan
        self.count = count
        self.every = every
        self.marks = marks
        self.bench_start = bench_start
        self.stop_event = stop_event
        self.done = []
        self.failure = None

    def mark(self, line):
        with io.open(self.marks, 'ab') as fp:
            fp.write(line.encode('utf-8') + b'\n')

    def run(self):
        for index in range(self.count):
            name = self.plan[index % len(self.plan)]
            due = self.bench_start + (index + 1) * self.every
            if self.stop_event.wait(max(0.0, due - time.time())):
                return
            label = 'soak fault %d %s' % (index + 1, name)
            fault = {'name': name, 'began': time.time(),
                     'begin_mark': label + ' begin', 'ended': None,
                     'end_mark': None, 'detail': None}
            self.done.append(fault)
            self.mark(fault['begin_mark'])
            self.stop_event.wait(MARK_SETTLE)
            try:
                fault['detail'] = getattr(self.faults, name)()
            except Exception as exc:
                fault['detail'] = 'failed: %s' % (exc,)
                self.failure = '%s: %s' % (label, exc)
                return
            finally:
                fault['ended'] = time.time()
                fault['end_mark'] = label + ' end'
                self.mark(fault['end_mark'])

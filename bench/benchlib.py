"""Small helpers shared by the bench/ scripts (run as `python bench/X.py`,
so this directory is on sys.path)."""
from __future__ import absolute_import, division, print_function

import os
import re
import resource
import socket
import subprocess
import tempfile
import time


class Failed(RuntimeError):
    """A measured command failed or overran its time."""


def rss_mb(pid):
    """VmRSS of a process in MB, or None once it is gone."""
    try:
        with open('/proc/%d/status' % pid) as status:
            for line in status:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1]) / 1024.0
    except (IOError, OSError, ValueError):
        return None
    return None


def cpu_seconds():
    """User + system CPU seconds of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def median(values):
    """The median of a non-empty sequence (mean of the middle two)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def free_ports(count):
    """`count` distinct loopback ports free at the time of the call."""
    holders = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind(('127.0.0.1', 0))
        holders.append(sock)
    ports = [held.getsockname()[1] for held in holders]
    for held in holders:
        held.close()
    return ports


def measure(argv, cwd=None, env=None, timeout=300.0):
    """Run argv to its end: (CPU seconds of its reaped process tree, from
    wait4, and its output, stdout and stderr).  Raises Failed on a
    non-zero status or after `timeout` seconds (the child is killed)."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out,
                                 stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while True:
            pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                child.kill()
                os.wait4(child.pid, 0)
                child.returncode = -9
                raise Failed('%s did not finish in %.0f s' % (
                    ' '.join(argv[:4]), timeout))
            time.sleep(0.02)
        child.returncode = status
        out.seek(0)
        text = out.read().decode('utf-8', 'replace')
    if status != 0:
        raise Failed('exit status %d:\n%s' % (status, text[-3000:]))
    return usage.ru_utime + usage.ru_stime, text


WRK_RATE = re.compile(r'Requests/sec:\s*([0-9.]+)')
WRK_COUNT = re.compile(r'(\d+) requests in')


def which(name):
    """The path of executable `name` on PATH, or None."""
    for directory in os.environ.get('PATH', '').split(os.pathsep):
        path = os.path.join(directory, name)
        if os.access(path, os.X_OK):
            return path
    return None


def wrk_run(wrk, seconds, url, token, timeout):
    """(requests per second, CPU us per request) of `wrk -t2 -c64`
    GETting `url` with an X-Auth-Token for `seconds`."""
    cpu, out = measure([wrk, '-t2', '-c64', '-d%ds' % seconds,
                        '-H', 'X-Auth-Token: %s' % token, url],
                       timeout=timeout)
    rate, count = WRK_RATE.search(out), WRK_COUNT.search(out)
    if rate is None or count is None:
        raise Failed('wrk said:\n%s' % out[-1000:])
    return float(rate.group(1)), cpu / int(count.group(1)) * 1e6

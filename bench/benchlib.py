"""Small helpers shared by the bench/ scripts (run as `python bench/X.py`,
so this directory is on sys.path)."""
from __future__ import absolute_import, division, print_function

import os
import resource
import socket
import subprocess
import tempfile
import time


class Failed(RuntimeError):
    """A measured command failed or overran its time."""


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

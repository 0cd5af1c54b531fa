"""What this process and its host have used, as the kernel tells it: CPU
time, CPU waits, the host's busy ticks, its load and core count.  The
master and the workers both judge their health by these (ssbench.worker.
health, ssbench.master.selfhealth), so they live on the ground floor."""
from __future__ import absolute_import, division, print_function

import os


def process_cpu():
    """CPU seconds (user + system) this process used so far."""
    times = os.times()
    return times[0] + times[1]


def host_cpu_ticks(path='/proc/stat'):
    """(busy, total) clock ticks of all the host's CPUs so far (the
    first line of /proc/stat; idle and iowait are not busy), or None."""
    try:
        with open(path, 'rb') as fp:
            fields = fp.readline().split()
        ticks = [int(value) for value in fields[1:9]]
    except (IOError, OSError, ValueError):
        return None
    if not fields or fields[0] != b'cpu' or len(ticks) < 5:
        return None
    total = sum(ticks)
    return total - ticks[3] - ticks[4], total


def load_average():
    """The 1-minute load average, or None where there is none."""
    try:
        return os.getloadavg()[0]
    except (AttributeError, OSError):
        return None


def run_delay(path='/proc/self/schedstat'):
    """Seconds this thread has waited for a CPU so far, or None."""
    try:
        with open(path, 'rb') as fp:
            return int(fp.read().split()[1]) / 1e9
    except (IOError, OSError, ValueError, IndexError):
        return None


def cpu_count():
    """The host's CPU count, or None."""
    count = getattr(os, 'cpu_count', None)      # Python 3
    if count is not None:
        return count()
    import multiprocessing
    try:
        return multiprocessing.cpu_count()
    except NotImplementedError:
        return None

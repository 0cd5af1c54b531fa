"""The open-file limit, said up front.

Every Swift connection is a socket, one per greenlet, so a worker with
concurrency C holds up to C file descriptors besides those any process
needs (ZeroMQ's context and sockets, logs, gevent's hub, DNS lookups).
Past RLIMIT_NOFILE a connect() fails with EMFILE, which reaches the
results as retries and reconnects that name no cause.  So each process
raises its soft limit to the hard one at start, and a run whose
concurrency cannot fit under it is refused in one line, before any
request.
"""
from __future__ import absolute_import, division, print_function

import os

from ssbench.errors import SsbenchError

try:
    import resource
except ImportError:  # pragma: no cover (Windows: no such limit to raise)
    resource = None

# Descriptors a process needs besides its Swift connections and the ones
# open when it checks: ZeroMQ's context, io thread and sockets, gevent's
# hub, a DNS lookup, a log file.  Generous: a few too many cost nothing.
RESERVE = 64


class FileLimitError(SsbenchError):
    exit_status = 1


def raise_soft_limit(limits=resource):
    """Raise the soft RLIMIT_NOFILE to the hard one (where the system
    lets it: an unlimited hard limit may refuse); the soft limit now, or
    None where there is no such limit."""
    if limits is None:
        return None
    soft, hard = limits.getrlimit(limits.RLIMIT_NOFILE)
    if soft != hard:
        try:
            limits.setrlimit(limits.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):
            pass
        soft = limits.getrlimit(limits.RLIMIT_NOFILE)[0]
    return None if soft == limits.RLIM_INFINITY else soft


def open_now():
    """How many file descriptors this process has open (0 if unknown)."""
    for folder in ('/proc/self/fd', '/dev/fd'):
        try:
            # Listing opens one more for the listing itself.
            return max(0, len(os.listdir(folder)) - 1)
        except OSError:
            continue
    return 0


def needed(sockets, already_open):
    """Descriptors a process needs for `sockets` connections."""
    return sockets + already_open + RESERVE


def check(what, sockets, limit, already_open):
    """Raise FileLimitError, one line naming the limit and the fix, when
    `sockets` connections (for `what`, e.g. "-u 1000") cannot fit under
    `limit` (None: no limit)."""
    need = needed(sockets, already_open)
    if limit is None or need <= limit:
        return
    raise FileLimitError(
        '%s needs about %d open files (one socket per connection) but the '
        'open-file limit is %d and cannot be raised further here: raise it '
        '(ulimit -n %d; the hard limit needs root or '
        '/etc/security/limits.conf) or lower the concurrency' % (
            what, need, limit, need))


def raise_and_check(what, sockets):
    """At a process's start: raise the soft limit, then check() that
    `sockets` connections fit."""
    check(what, sockets, raise_soft_limit(), open_now())

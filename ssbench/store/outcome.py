"""What a store's request reports, whichever way it went.

Timing is what one (possibly retried) request measured; RequestError
(each store's own subclass) a request that failed for good.  Both carry
the retries it spent, counted per cause ({cause: count}, summed with
add_causes()): the HTTP status, or for a failure without a response its
error_class(), the name result records give it.
"""
from __future__ import absolute_import, division, print_function

import errno
import socket

from ssbench.compat import PY2
from ssbench.errors import StoreError


class RequestError(StoreError):
    """A request that failed for good: carries the HTTP status (None for a
    socket-level failure, whose error_class() is in `error_class`), the
    transaction id, the retries (and `retry_causes`, {cause: count} or
    None) and the reconnects spent, `time_to_failure`: seconds from its
    first send to giving up, and `endpoint` (as Timing's)."""

    def __init__(self, method, path, http_status, reason, trans_id=None,
                 retries=0, reconnects=0, error_class=None,
                 time_to_failure=0.0, retry_causes=None):
        self.method = method
        self.path = path
        self.http_status = http_status
        self.reason = reason
        self.trans_id = trans_id
        self.retries = retries
        self.reconnects = reconnects
        self.error_class = error_class
        self.time_to_failure = time_to_failure
        self.retry_causes = retry_causes
        self.endpoint = None
        StoreError.__init__(self, str(self))

    def __str__(self):
        # Built when shown: a caller may add the retries of an earlier
        # request of the same job.
        if self.http_status is None:
            text = '%s %s failed: %s' % (self.method, self.path, self.reason)
        else:
            text = '%s %s: %s %s' % (self.method, self.path,
                                     self.http_status, self.reason)
        if self.trans_id:
            text += ' (%s)' % self.trans_id
        if self.retries:
            text += ' after %d retries' % self.retries
        return text


class Timing(object):
    """What one (possibly retried) request measured, from its first send.

    `reconnects`: stale keep-alive connections replaced (not retries);
    `retry_causes`: {cause: count} of the retries (None without any);
    `size`: bytes of the response body read (None when not known);
    `segments`: what a large object's segment requests add up to (see
    ssbench.store.segments.Operation), else None; `endpoint`: the index of the
    storage URL it went to when the client has several, else None.
    """

    __slots__ = ('status', 'first_byte_latency', 'last_byte_latency',
                 'trans_id', 'retries', 'reconnects', 'size', 'headers',
                 'body', 'retry_causes', 'segments', 'endpoint')

    def __init__(self, status, first_byte_latency, last_byte_latency,
                 trans_id, retries, reconnects=0, size=None, headers=None,
                 body=None, retry_causes=None):
        self.status = status
        self.first_byte_latency = first_byte_latency
        self.last_byte_latency = last_byte_latency
        self.trans_id = trans_id
        self.retries = retries
        self.reconnects = reconnects
        self.size = size
        self.headers = headers
        self.body = body
        self.retry_causes = retry_causes
        self.segments = None
        self.endpoint = None

    def __repr__(self):
        return ('Timing(status=%r, first_byte_latency=%r, '
                'last_byte_latency=%r, trans_id=%r, retries=%r, '
                'reconnects=%r, size=%r, retry_causes=%r)' % (
                    self.status, self.first_byte_latency,
                    self.last_byte_latency, self.trans_id, self.retries,
                    self.reconnects, self.size, self.retry_causes))


def add_causes(causes, more):
    """{cause: count} `causes` with the counts of `more` added (either
    may be None, meaning none)."""
    if not more:
        return causes
    total = dict(causes or ())
    for cause, count in more.items():
        total[cause] = total.get(cause, 0) + count
    return total


# Python 3's names for the socket errors 2.7 raises as socket.error, so
# that result records name a cause alike whichever Python ran the worker.
_PY3_ERRNO_NAMES = {
    errno.ECONNREFUSED: 'ConnectionRefusedError',
    errno.ECONNRESET: 'ConnectionResetError',
    errno.ECONNABORTED: 'ConnectionAbortedError',
    errno.EPIPE: 'BrokenPipeError',
    errno.ESHUTDOWN: 'BrokenPipeError',
}


def error_class(exc):
    """The name result records give the exception that ended a job.

    Its class name, except that timeouts are 'timeout' on every Python
    (3.10 renamed socket.timeout TimeoutError, and a TCP-level ETIMEDOUT is
    yet another class), and 2.7's socket errors get the name Python 3
    gives their errno.
    """
    if isinstance(exc, socket.timeout) or \
            getattr(exc, 'errno', None) == errno.ETIMEDOUT:
        return 'timeout'
    if PY2 and isinstance(exc, EnvironmentError):
        name = _PY3_ERRNO_NAMES.get(exc.errno)
        if name is not None:
            return name
    return type(exc).__name__

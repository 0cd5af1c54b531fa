"""Failed results grouped by operation and cause.

The cause is the HTTP status of the final response ("HTTP 503"), with
the S3 error code beside it when the result names one ("HTTP 403
AccessDenied": an S3 run's ``error_class``; a Swift run's failure with a
status has none), else the exception class that ended the job without a
response (``error_class``), else "not recorded": stats files from ssbench
0.3.x and other workers that did not write those keys.
"""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute.cells import as_text

NOT_RECORDED = 'not recorded'
MESSAGE_CHARS = 200

try:  # Python 2: statuses may decode as long
    _INTS = (int, long)  # noqa: F821
except NameError:
    _INTS = (int,)


def cause_of(status, error_class):
    """(cause, status or None, error_class or None) of a failed result."""
    error_class = as_text(error_class)
    if isinstance(status, _INTS) and not isinstance(status, bool):
        if error_class:
            return u'HTTP %d %s' % (status, error_class), status, \
                u'%s' % (error_class,)
        return 'HTTP %d' % status, status, None
    if error_class:
        error_class = u'%s' % (error_class,)
        return error_class, None, error_class
    return NOT_RECORDED, None, None


def first_line(message):
    """The first line of an exception text, stripped, at most
    MESSAGE_CHARS long."""
    if message is None:
        return ''
    text = as_text(message)
    if not isinstance(text, type(u'')):
        text = u'%s' % (text,)
    lines = text.strip().splitlines()
    return lines[0].strip()[:MESSAGE_CHARS] if lines else u''


class _Cause(object):
    __slots__ = ('operation', 'cause', 'status', 'error_class', 'count',
                 'first_seen', 'last_seen', 'trans_id', 'message', 'order')

    def __init__(self, operation, cause, status, error_class, order):
        self.operation = operation
        self.cause = cause
        self.status = status
        self.error_class = error_class
        self.count = 0
        self.first_seen = None
        self.last_seen = None
        self.trans_id = None
        self.message = None
        self.order = order


class CauseTable(object):
    """Counts failures per (operation, cause) in one pass."""

    def __init__(self):
        self._causes = {}

    def add(self, operation, status, error_class, completed_at, trans_id,
            exception):
        """Count one failed result.

        The example message is the first one seen in the file; the
        example trans_id the first one that is not None.
        """
        cause, status, error_class = cause_of(status, error_class)
        key = (operation, cause)
        entry = self._causes.get(key)
        if entry is None:
            entry = self._causes[key] = _Cause(
                operation, cause, status, error_class, len(self._causes))
            entry.message = first_line(exception)
            entry.first_seen = entry.last_seen = completed_at
        entry.count += 1
        if completed_at < entry.first_seen:
            entry.first_seen = completed_at
        if completed_at > entry.last_seen:
            entry.last_seen = completed_at
        if entry.trans_id is None and trans_id is not None:
            entry.trans_id = as_text(trans_id)

    def summary(self):
        """The JSON document's "causes": most frequent first, ties in the
        order first seen."""
        entries = sorted(self._causes.values(),
                         key=lambda e: (-e.count, e.order))
        return [{'operation': e.operation, 'cause': e.cause,
                 'status': e.status, 'error_class': e.error_class,
                 'count': e.count, 'first_seen': e.first_seen,
                 'last_seen': e.last_seen,
                 'example_trans_id': e.trans_id,
                 'example_message': e.message} for e in entries]

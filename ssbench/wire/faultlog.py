"""Counting and logging dropped input without flooding the log.

A hostile or broken peer can send thousands of bad frames a second; each
is dropped (see ssbench.wire.protocol.decode) and counted here, and the log
gets at most one line per kind of fault per interval.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.compat import monotonic, text_type

log = logging.getLogger(__name__)

# Seconds between two log lines about the same kind of fault.
FAULT_LOG_INTERVAL = 10.0


class Faults(object):
    """Input dropped (malformed, or unexpected): counted by kind in
    `counts` (`total` in all).  The first of each kind is logged at once,
    later ones summed up at most once per `interval` seconds per kind;
    summary() logs the counts since the previous summary.

    A PULL socket does not say which peer sent a message, so faults are
    grouped by kind (a bounded set of texts), not by sender; a log line
    names the worker id a bad record claims, when it claims one.
    """

    def __init__(self, where, interval=FAULT_LOG_INTERVAL, clock=monotonic):
        self.where = where
        self.interval = interval
        self.clock = clock
        self.total = 0
        self.counts = {}
        self._since = {}         # kind -> faults since the last summary
        self._quiet_until = {}   # kind -> clock time of the next log line
        self._unlogged = {}      # kind -> faults since its last log line

    def add(self, kind, value, error=None, claimed=None):
        """Count one dropped frame or record; `value` is what was wrong
        (a short description of it is logged), `error` the exception
        that showed it, `claimed` the worker id it claims to come from."""
        self.total += 1
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self._since[kind] = self._since.get(kind, 0) + 1
        now = self.clock()
        until = self._quiet_until.get(kind)
        if until is not None and now < until:
            self._unlogged[kind] = self._unlogged.get(kind, 0) + 1
            return
        self._quiet_until[kind] = now + self.interval
        unlogged = self._unlogged.pop(kind, 0)
        detail = describe(value)
        if error is not None:
            detail += ' (%s: %s)' % (type(error).__name__,
                                     describe(str(error)))
        if claimed is not None:
            detail += ', claiming to be from worker %s' % describe(claimed)
        if until is None:
            log.warning('Dropped input %s: %s: %s; the run goes on (more '
                        'of this kind are logged at most every %g s)',
                        self.where, kind, detail, self.interval)
        else:
            log.warning('Dropped %d more inputs %s: %s; the latest: %s',
                        unlogged + 1, self.where, kind, detail)

    def summary(self):
        """Log the count of each kind since the previous summary (if
        any); the next fault of a kind is logged at once again."""
        since, self._since = self._since, {}
        self._unlogged.clear()
        self._quiet_until.clear()
        if since:
            log.warning('Inputs dropped %s: %d (%s)', self.where,
                        sum(since.values()), ', '.join(
                            '%s: %d' % item for item in sorted(
                                since.items())))


def describe(value, limit=60):
    """A short one-line description of any decoded value or received
    frame, at most about `limit` characters whatever its size or depth."""
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        return 'a %s of %d' % (type(value).__name__, len(value))
    if isinstance(value, (bytes, text_type)):
        # A byte may take four characters, as in \xff.
        shown = limit // 4 if isinstance(value, bytes) else limit
        text = repr(value[:shown])
        if len(value) > shown:
            text += '... (%d long)' % len(value)
        return text
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + '...'

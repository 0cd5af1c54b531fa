"""Retries grouped by operation and cause, those that met an expired
token apart.

A result's ``retry_causes`` ({cause: count}, see ssbench.measure.record)
says why each of its retries happened: an HTTP status ("503", "404",
"401"), named here as the failure causes are ("HTTP 503"), or an
exception class ("timeout", "ConnectionResetError").  A 401 means Swift
rejected the token: it expired, the master renewed it once, and the
request went again with the new one.  Those retries are the token's
doing, not the cluster's, so they are counted apart (``auth``).  The
retries of a result without usable causes (ssbench 0.3.x files) are
"not recorded".
"""
from __future__ import absolute_import, division, print_function

from ssbench.measure import record as spec
from ssbench.report.compute.causes import NOT_RECORDED
from ssbench.report.compute.cells import as_text

# A retry after Swift rejected the token (the name cause_name() gives).
AUTH_CAUSE = u'HTTP 401'


def cause_name(cause):
    """A retry cause as the reports name it: an HTTP status as "HTTP
    <status>", an exception class as it is."""
    return u'HTTP %s' % (cause,) if cause.isdigit() else cause


def split(causes, retries):
    """[(cause name, count)] of a result's ``retries`` (a positive
    number) from its ``retry_causes``: all of them "not recorded" when
    the causes are missing or do not add up to ``retries``."""
    if type(causes) is dict:
        text = dict((as_text(cause), count)
                    for cause, count in causes.items())
        if len(text) == len(causes) and spec.is_retry_causes(text, retries):
            return sorted((cause_name(cause), count)
                          for cause, count in text.items())
    return [(NOT_RECORDED, retries)]


class RetryTable(object):
    """Counts retries per (operation, cause) in one pass."""

    def __init__(self):
        self._counts = {}
        self._order = []

    def add(self, operation, causes, retries):
        """Count a result's ``retries`` (positive) by its
        ``retry_causes``."""
        counts = self._counts
        for cause, count in split(causes, retries):
            key = (operation, cause)
            if key not in counts:
                counts[key] = 0
                self._order.append(key)
            counts[key] += count

    def by_cause(self, operation=None):
        """{cause: count} of one operation's retries (None: all)."""
        out = {}
        for (op, cause), count in self._counts.items():
            if operation is None or op == operation:
                out[cause] = out.get(cause, 0) + count
        return out

    def summary(self):
        """The JSON document's "retries": the total, how many met an
        expired token (``auth``), and per (operation, cause) the count,
        most frequent first, ties in the order first seen."""
        counts = self._counts
        order = dict((key, index) for index, key in enumerate(self._order))
        keys = sorted(counts, key=lambda key: (-counts[key], order[key]))
        return {
            'total': sum(counts.values()),
            'auth': sum(count for (_, cause), count in counts.items()
                        if cause == AUTH_CAUSE),
            'causes': [{'operation': op, 'cause': cause,
                        'count': counts[op, cause],
                        'auth': cause == AUTH_CAUSE} for op, cause in keys],
        }

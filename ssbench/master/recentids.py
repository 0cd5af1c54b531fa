"""Ids the master remembers over a whole run, in bounded memory.

The master notes every job and worker it declares lost.  A long run with
many losses (or a peer forging heartbeats under ever new ids) must not
grow its memory with them: RecentIds keeps the latest few for the checks
and the lines that need ids, and counts those it let go.
"""
from __future__ import absolute_import, division, print_function

from collections import OrderedDict


class RecentIds(object):
    """The latest `keep` ids added (a set of them for `in`, iteration and
    len()), and how many older ones were let go."""

    def __init__(self, keep):
        self.keep = keep
        self.forgotten = 0      # ids let go to keep the bound
        self._ids = OrderedDict()

    def add(self, item):
        ids = self._ids
        ids.pop(item, None)
        ids[item] = True
        if len(ids) > self.keep:
            ids.popitem(last=False)
            self.forgotten += 1

    def discard(self, item):
        self._ids.pop(item, None)

    def __contains__(self, item):
        return item in self._ids

    def __iter__(self):
        return iter(list(self._ids))

    def __len__(self):
        return len(self._ids)

    def __bool__(self):
        return bool(self._ids)

    __nonzero__ = __bool__      # Python 2

    def describe(self):
        """The ids kept, sorted, as one comma-separated text, and how many
        older ones were let go."""
        text = ', '.join(str(item) for item in sorted(self._ids, key=str))
        if self.forgotten:
            text += ' and %d more' % self.forgotten
        return text

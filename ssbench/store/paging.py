"""Loops over a listing's pages that end whatever the server answers.

A listing comes a page at a time, each asked for with a marker the page
before gave (Swift's last name, S3's continuation token, ListMultipart-
Uploads' key and upload-id markers).  A server that repeats a marker, or
never stops handing out new ones, would keep the loop going for ever: a
Pages guards one listing's loop, and a Deadline a whole operation's
(docs/reliability.rst, "Answers from outside").

    pages = Pages('ListObjectsV2 of bucket b', deadline=Deadline(3600))
    token = None
    while True:
        page = ask(token)
        ...
        if not page.truncated:
            break
        token = page.next_token
        pages.next(token)     # StoreError: repeated, too many, too late
"""
from __future__ import absolute_import, division, print_function

import hashlib
import json

from ssbench.compat import monotonic
from ssbench.errors import StoreError

# Pages of one listing read at most: 100 million keys at S3's 1000 a
# page, a billion names at Swift's 10,000.
MAX_PAGES = 100000


class DeadlinePassed(StoreError):
    """The deadline of a whole operation passed."""


class Deadline(object):
    """The end, `seconds` from now on `clock` (monotonic), of the
    operation `what`; None seconds: no end."""

    def __init__(self, seconds, what='the operation', clock=monotonic):
        self.seconds = seconds
        self.what = what
        self.clock = clock
        self.end = None if seconds is None else clock() + seconds

    def check(self):
        """StoreError once the deadline has passed."""
        if self.end is not None and self.clock() >= self.end:
            raise DeadlinePassed('%s did not end within %g s'
                                 % (self.what, self.seconds))


def _digest(marker):
    # Markers are the server's text, as long as it likes: a digest each
    # keeps the record of those seen small.
    return hashlib.sha1(_text(marker).encode('utf-8')).digest()


class Pages(object):
    """The guard of one listing (`what` names it in errors), of at most
    `max_pages` pages (None: MAX_PAGES) by `deadline` (a Deadline, or
    None): next() is told each marker that asks for a further page."""

    def __init__(self, what, max_pages=None, deadline=None):
        self.what = what
        self.max_pages = MAX_PAGES if max_pages is None else max_pages
        self.deadline = deadline
        self.pages = 1
        self._seen = set()

    def next(self, marker):
        """Before the request of the next page, asked for with `marker`:
        StoreError when a page before was asked for with the same one
        (the listing does not advance), when max_pages were read, or when
        the deadline has passed."""
        digest = _digest(marker)
        if digest in self._seen:
            raise StoreError('%s does not advance: it hands out %s again, '
                             'so the same page would be asked for again'
                             % (self.what, _shown(marker)))
        if self.pages >= self.max_pages:
            raise StoreError('%s: more than %d pages; not ended'
                             % (self.what, self.max_pages))
        if self.deadline is not None:
            self.deadline.check()
        self._seen.add(digest)
        self.pages += 1


def _text(marker):
    """A marker (text, or a tuple of texts) as one line alike on every
    Python: JSON strings, a tuple's in parentheses."""
    if isinstance(marker, tuple):
        return '(%s)' % ', '.join(json.dumps(part) for part in marker)
    return json.dumps(marker)


def _shown(marker):
    """A marker as an error line shows it: cut short."""
    text = _text(marker)
    return text if len(text) <= 80 else text[:77] + '...'

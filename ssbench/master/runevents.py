"""The master's sink of run events (ssbench.results.eventrecords): the
places where they happen call it, the run loop flushes them into the
stats file.

Admission, liveness and the worker configuration call the sink with
(event, worker_id, text); an operator's mark comes from a signal handler
(mark()) or from lines appended to a file (watch_file()).  Events are
kept only while a stats file is attached (the benchmark phase); they go
into it as one batch per flush(), from the run loop, so that a signal
never interrupts a write.
"""
from __future__ import absolute_import, division, print_function

import io
import logging
import time

from ssbench.results import eventrecords

log = logging.getLogger(__name__)

# Bytes of a mark file read at most per flush: a runaway writer must not
# stall the run loop.
MARK_FILE_CHUNK = 65536


class RunEvents(object):
    """Collects events while a writer (a StatsWriter) is attached."""

    def __init__(self, clock=time.time):
        self.clock = clock
        self.writer = None
        self.pending = []
        self.marks = 0
        self.counts = {}           # event -> how many were kept, for --metrics
        self._mark_path = None
        self._mark_offset = 0
        self._mark_tail = b''

    def __call__(self, event, worker_id=None, text=None):
        """Record `event` now (dropped with no stats file attached)."""
        if self.writer is not None:
            self.pending.append(eventrecords.record(
                event, worker_id, text, self.clock()))
            self.counts[event] = self.counts.get(event, 0) + 1

    def mark(self, text=None):
        """An operator's mark, "mark N" unless `text` says more; safe in
        a signal handler (it only appends)."""
        self.marks += 1
        self(eventrecords.MARK, None, text or 'mark %d' % self.marks)

    def watch_file(self, path):
        """Make each line appended to `path` from now on a mark (read at
        each flush).  A file that does not exist yet is read from its
        start once it does."""
        self._mark_path = path
        try:
            with io.open(path, 'rb') as stream:
                stream.seek(0, io.SEEK_END)
                self._mark_offset = stream.tell()
        except (IOError, OSError):
            self._mark_offset = 0

    def attach(self, writer):
        """Keep events in `writer` from now on."""
        self.pending = []
        self.writer = writer

    def detach(self):
        """Flush, and keep no more events (also when the flush fails)."""
        try:
            self.flush()
        finally:
            self.writer = None

    def flush(self):
        """Write the events recorded since the last flush (the mark
        file's new lines first made marks) as one batch."""
        if self.writer is None:
            return
        self._read_marks()
        pending, self.pending = self.pending, []
        if not pending:
            return
        self.writer.write_batch(pending)
        for rec in pending:
            if rec['event'] == eventrecords.MARK:
                log.info('mark recorded: %s', rec['text'])

    def _read_marks(self):
        if self._mark_path is None:
            return
        try:
            with io.open(self._mark_path, 'rb') as stream:
                if stream.seek(0, io.SEEK_END) < self._mark_offset:
                    # Truncated or replaced: its lines are new.
                    self._mark_offset, self._mark_tail = 0, b''
                stream.seek(self._mark_offset)
                data = stream.read(MARK_FILE_CHUNK)
        except (IOError, OSError):
            return      # not there (yet), or gone: nothing to mark
        self._mark_offset += len(data)
        lines = (self._mark_tail + data).split(b'\n')
        self._mark_tail = lines.pop()
        for line in lines:
            text = line.decode('utf-8', 'replace').strip()
            if text:
                self.mark(text)

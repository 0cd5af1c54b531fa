"""Progress characters printed during the benchmark phase (one per result),
which progress display a run gets (mode()), and the clean-up's progress
in log lines (PhaseLog)."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.compat import monotonic
from ssbench.live.statusline import BeforeLogging, clock_text
from ssbench.measure.needs import RECORDS, SCANNED

log = logging.getLogger(__name__)

LEGEND = """Benchmark Run:
  X    work job raised an exception
  .  <  1s first-byte-latency
  o  <  3s first-byte-latency
  O  < 10s first-byte-latency
  * >= 10s first-byte-latency
  _  <  1s last-byte-latency  (CREATE or UPDATE)
  |  <  3s last-byte-latency  (CREATE or UPDATE)
  ^  < 10s last-byte-latency  (CREATE or UPDATE)
  @ >= 10s last-byte-latency  (CREATE or UPDATE)
"""

MODES = ('none', 'chars', 'line', 'ops')

_FIRST_BYTE = '.oO*'
_LAST_BYTE = '_|^@'
LINE_WIDTH = 78


def mode(requested, stream, verbose=False, quiet=False):
    """The progress display of a run: `requested` (--progress) if given;
    else, as in 0.3.9, none with -v or -q and characters when `stream`
    is not a terminal; else the status line (ssbench.live.liveview)."""
    if requested is not None:
        return requested
    if verbose or quiet:
        return 'none'
    isatty = getattr(stream, 'isatty', None)
    return 'line' if isatty is not None and isatty() else 'chars'


def _bucket(latency):
    if latency < 1:
        return 0
    if latency < 3:
        return 1
    if latency < 10:
        return 2
    return 3


def progress_chars(results):
    """The characters the legend assigns to result records, joined; the
    common fast answers (under a second) are decided inline."""
    chars = []
    append = chars.append
    for result in results:
        if 'exception' in result:
            append('X')
            continue
        latency = result.get('first_byte_latency')
        if latency is not None:
            append('.' if latency < 1 else _FIRST_BYTE[_bucket(latency)])
        else:
            latency = result.get('last_byte_latency') or 0.0
            append('_' if latency < 1 else _LAST_BYTE[_bucket(latency)])
    return ''.join(chars)


class ProgressPrinter(object):
    """Buffers progress characters and writes them in wrapped lines; a
    sink of the benchmark phase's results (docs/internals.rst, "Results:
    one pipeline").

    Writing one character per result would cost a system call each at tens
    of thousands of results per second, so callers add results and call
    idle() once per loop iteration, which writes at most every `interval`
    seconds; flush() writes at once.
    """

    needs = RECORDS
    phases = ('benchmark',)

    def __init__(self, stream, width=LINE_WIDTH, interval=0.1,
                 monotonic=monotonic):
        self.stream = stream
        self.width = width
        self.column = 0
        self.pending = []
        self.interval = interval
        self.monotonic = monotonic
        self._written_at = monotonic()
        self._logging = BeforeLogging(self.end_line)

    def begin(self, *phase):
        """Print the legend; from now until end(), a log line starts
        on a line of its own."""
        self.stream.write(LEGEND)
        self.stream.flush()
        self._logging.install()

    def end_line(self):
        """End the line of characters begun, if any."""
        if self.column:
            self.stream.write('\n')
            self.stream.flush()
            self.column = 0

    def results(self, message):
        self.add_results(message.records)

    def add_results(self, results):
        self.pending.append(progress_chars(results))

    def idle(self, now=None):
        """Flush if anything waits and `interval` has passed (`now` on
        the monotonic clock)."""
        if self.pending:
            if now is None:
                now = self.monotonic()
            if now - self._written_at >= self.interval:
                self.flush()

    def flush(self):
        self._written_at = self.monotonic()
        if not self.pending:
            return
        text = ''.join(self.pending)
        self.pending = []
        out = []
        while text:
            room = self.width - self.column
            chunk, text = text[:room], text[room:]
            out.append(chunk)
            self.column += len(chunk)
            if self.column >= self.width:
                out.append('\n')
                self.column = 0
        self.stream.write(''.join(out))
        self.stream.flush()

    def end(self):
        """Flush and end the current line, if any."""
        self._logging.remove()
        self.flush()
        self.end_line()


# Seconds between two lines of a long phase's PhaseLog.
PHASE_LOG_INTERVAL = 10.0


class PhaseLog(object):
    """A sink (docs/internals.rst, "Results: one pipeline") of log lines
    for the clean-up, which may take long and shows no progress
    characters: every `interval` seconds, how many of its jobs are done
    and, at the rate so far, about how long the rest takes.  A clean-up
    over within `interval` logs nothing."""

    needs = SCANNED
    phases = ('cleanup',)

    def __init__(self, what='Clean-up', interval=PHASE_LOG_INTERVAL,
                 monotonic=monotonic):
        self.what = what
        self.interval = interval
        self.monotonic = monotonic
        self.begin(None, 'cleanup', 0, None)

    def begin(self, master, name, total, seconds):
        self.total = total or 0
        self.done = 0
        self.started = self.monotonic()
        self._next = self.started + self.interval

    def results(self, message):
        self.done += message.count

    def idle(self, now):
        if now >= self._next:
            self._next = now + self.interval
            log.info('%s', self.line(now))

    def line(self, now):
        """'Clean-up: 300 of 1200 done (25%), about 00:30 left'."""
        done, total = min(self.done, self.total), self.total
        if not done:
            return '%s: 0 of %d done yet' % (self.what, total)
        left = (total - done) * (now - self.started) / done
        return '%s: %d of %d done (%d%%), about %s left' % (
            self.what, done, total, 100 * done // total, clock_text(left))

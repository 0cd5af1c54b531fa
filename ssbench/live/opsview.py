"""`--progress ops`: the status line with a row per operation under it
(rate, p99, errors), redrawn in place on a terminal; on anything else,
the same rows as plain lines every PLAIN_INTERVAL seconds
(docs/live-view.rst, "Per operation").

The rows come from LiveStats' ring of one-second slots, over the same
windows as the status line's figures (livestats.RATE_WINDOW for the
rate, livestats.WINDOW for p99 and errors)."""
from __future__ import absolute_import, division, print_function

from ssbench import OPERATION_TYPES
from ssbench.compat import monotonic
from ssbench.live.livestats import RATE_WINDOW, WINDOW, _text
from ssbench.live.statusline import latency_text, terminal_width
from ssbench.measure import loghist
from ssbench.measure.profile import PROFILE_KEYS

# Seconds between the plain blocks written when the stream is no
# terminal (a log file): often enough to follow, few enough to read.
PLAIN_INTERVAL = 10.0
NAMES = dict(zip(OPERATION_TYPES, PROFILE_KEYS))
# Up to the line's start, and the screen cleared from there on.
_UP = '\x1b[%dA'
_CLEAR_DOWN = '\r\x1b[J'


class _Operation(object):
    __slots__ = ('recent', 'latencies', 'errors')

    def __init__(self):
        self.recent = 0          # results of the rate's seconds
        self.latencies = {}      # loghist bin -> successes
        self.errors = {}         # outcome -> failures


def operation_figures(stats):
    """{operation: (rate, p99, {outcome: errors})} of a LiveStats now:
    rate in requests/s over the last RATE_WINDOW whole seconds (the
    phase so far before there are that many), p99 of the successes'
    last-byte latency (None without one) and errors over the last
    WINDOW seconds."""
    stats.settle()
    current = int(stats.monotonic())
    ops = {}

    def of(kind):
        kind = _text(kind)
        found = ops.get(kind)
        if found is None:
            found = ops[kind] = _Operation()
        return found
    slots = stats.ring + ([stats.slot] if stats.slot is not None else [])
    for slot in slots:
        if slot.second <= current - WINDOW:
            continue
        counted = current - RATE_WINDOW <= slot.second < current
        for key, cell in slot.raw.items():
            op = of(key[0])
            op.latencies[key[4]] = op.latencies.get(key[4], 0) + cell[0]
            op.recent += cell[0] if counted else 0
        for (kind, index), count in slot.last_byte.items():
            op = of(kind)
            op.latencies[index] = op.latencies.get(index, 0) + count
        for (kind, _, outcome, failed), cell in slot.requests.items():
            op = of(kind)
            op.recent += cell[0] if counted else 0
            if failed:
                op.errors[outcome] = op.errors.get(outcome, 0) + cell[0]
    whole = stats.phase_started is not None and \
        current - RATE_WINDOW >= stats.phase_started
    elapsed = stats.elapsed()
    out = {}
    for kind, op in ops.items():
        if whole:
            rate = op.recent / RATE_WINDOW
        else:
            # Before RATE_WINDOW whole seconds: every result of the
            # phase so far (all are in the ring then) over its time.
            done = sum(op.latencies.values()) + sum(op.errors.values())
            rate = done / elapsed if elapsed > 0 else 0.0
        hist = loghist.from_bins(op.latencies)
        out[kind] = (rate, hist.percentiles((99,))[0] if hist else None,
                     op.errors)
    return out


def format_rows(figures):
    """The rows of operation_figures() `figures`, in the report's order
    (CREATE, READ, UPDATE, DELETE, HEAD, LIST, then any other)."""
    order = dict((kind, i) for i, kind in enumerate(OPERATION_TYPES))
    rows = []
    for kind in sorted(figures, key=lambda k: (order.get(k, len(order)),
                                               '%s' % (k,))):
        rate, p99, errors = figures[kind]
        causes = sorted(errors.items(), key=lambda item: (-item[1],
                                                          item[0]))
        told = ' '.join('%s:%d' % item for item in causes[:3]) + (
            ' ...' if len(causes) > 3 else '')
        rows.append('  %-6s %9s req/s | p99 %-7s | errors %s%s' % (
            NAMES.get(kind, kind), format(int(round(rate)), ','),
            latency_text(p99), format(sum(errors.values()), ','),
            ' (%s)' % told if causes else ''))
    return rows


def block(view):
    """The text of a LiveView's block: its status line, then the rows."""
    return '\n'.join([view.line()] +
                     format_rows(operation_figures(view.stats)))


class StatusBlock(object):
    """Draws `text()` (several lines) on `stream` as the status line is
    drawn (ssbench.live.statusline.StatusLine: draw(), clear(),
    finish()): on a terminal redrawn in place (the cursor taken back up
    to the block's first line, the screen cleared below it), each line
    cut to the width so that none wraps; on anything else written as
    plain lines, at most every `plain_interval` seconds (of the
    `monotonic` clock)."""

    def __init__(self, stream, text, width=None, monotonic=monotonic,
                 plain_interval=PLAIN_INTERVAL):
        self.stream = stream
        self.text = text
        self.width = width if width is not None else \
            (lambda: terminal_width(stream))
        self.monotonic = monotonic
        isatty = getattr(stream, 'isatty', None)
        self.terminal = bool(isatty and isatty())
        self.plain_interval = plain_interval
        self.shown = False
        self._rows = 0           # lines of the block on screen
        self._plain_at = None

    def draw(self, now=None):
        if not self.terminal:
            now = self.monotonic() if now is None else now
            if self._plain_at is None or \
                    now - self._plain_at >= self.plain_interval:
                self._plain_at = now
                self._write(self.text() + '\n')
            return
        room = max(1, self.width() - 1)
        lines = [line[:room] for line in self.text().split('\n')]
        self._write(self._back() + '\n'.join(lines))
        self._rows = len(lines)
        self.shown = True

    def _write(self, text):
        self.stream.write(text)
        self.stream.flush()

    def _back(self):
        """Up to the block's first line, cleared to the screen's end."""
        up = self._rows - 1 if self.shown else 0
        return (_UP % up if up > 0 else '') + _CLEAR_DOWN

    def clear(self):
        """Take the block away (before a log line)."""
        if self.shown:
            self._write(self._back())
            self.shown = False

    def finish(self):
        """Leave the last figures on screen (a file gets them too)."""
        self._plain_at = None
        self.draw()
        if self.terminal:
            self._write('\n')
            self.shown = False

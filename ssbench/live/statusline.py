"""The status line: one line on a terminal, redrawn in place while a run
runs (see ssbench.live.livestats for the figures)."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.errors import printable

# Redraw at most this often (seconds).
INTERVAL = 0.5
DEFAULT_WIDTH = 80
# Back to the start of the line, and the line cleared from the cursor on.
_CLEAR = '\r\x1b[K'


def clock_text(seconds):
    """[H:]MM:SS of a duration, '--:--' when unknown."""
    if seconds is None:
        return '--:--'
    seconds = int(round(seconds))
    hours, seconds = divmod(seconds, 3600)
    minutes, seconds = divmod(seconds, 60)
    if hours:
        return '%d:%02d:%02d' % (hours, minutes, seconds)
    return '%02d:%02d' % (minutes, seconds)


def latency_text(seconds):
    """A latency in ms under 1 s, else in s; '-' when there is none."""
    if seconds is None:
        return '-'
    if seconds < 1:
        return '%.3gms' % (seconds * 1e3)
    return '%.3gs' % seconds


# Characters of a step's values on the line: a policy name may be long.
STEP_CHARS = 40


def format_line(figures, workers, saturated, step=None):
    """The status line of LiveStats.window() `figures`, with `workers`
    connected of which `saturated` passed a health limit lately, after
    the run-suite `step` (number, of, values) when there is one."""
    done, total = figures['done'], figures['total']
    parts = ['step %d/%d%s' % (
        step[0], step[1],
        ' ' + printable(step[2], STEP_CHARS) if step[2] else '')
             ] if step is not None else []
    parts += [
        '%s %s' % (figures['phase'], clock_text(figures['elapsed'])),
        'ETA %s' % clock_text(figures['left']),
        ('%s/%s req' % (format(done, ','), format(total, ','))
         if total is not None else '%s req' % format(done, ',')),
        '%s req/s' % format(int(round(figures['rate'])), ','),
        'p50 %s p99 %s' % (latency_text(figures['p50']),
                           latency_text(figures['p99'])),
    ]
    errors = figures['errors']
    if errors:
        causes = sorted(errors.items(), key=lambda item: (-item[1],
                                                          item[0]))
        parts.append('errors %s (%s)' % (
            format(sum(errors.values()), ','),
            ' '.join('%s:%d' % item for item in causes[:3]) +
            (' ...' if len(causes) > 3 else '')))
    else:
        parts.append('errors 0')
    parts.append('workers %d%s' % (
        workers, ' (%d saturated)' % saturated if saturated else ''))
    return ' | '.join(parts)


def terminal_width(stream):
    """Columns of the terminal `stream` is, DEFAULT_WIDTH if unknown."""
    import fcntl
    import struct
    import termios
    try:
        rows_cols = fcntl.ioctl(stream.fileno(), termios.TIOCGWINSZ,
                                b'\0' * 4)
        columns = struct.unpack('hh', rows_cols)[1]
    except (AttributeError, IOError, OSError, ValueError):
        return DEFAULT_WIDTH
    return columns or DEFAULT_WIDTH


class BeforeLogging(logging.Filter):
    """On the root logger's handlers while a run shows something on
    stderr: `call()` runs before each log line is written there (clears
    the status line, ends a line of progress characters)."""

    def __init__(self, call):
        logging.Filter.__init__(self)
        self.call = call

    def filter(self, record):
        self.call()
        return True

    def install(self):
        for handler in logging.getLogger().handlers:
            handler.addFilter(self)

    def remove(self):
        for handler in logging.getLogger().handlers:
            handler.removeFilter(self)


class StatusLine(object):
    """Redraws `line()` (a callable giving the text) on `stream`, cut to
    the terminal's width so that it never wraps (a wrapped line could not
    be redrawn in place)."""

    def __init__(self, stream, line, width=None):
        self.stream = stream
        self.line = line
        self.width = width if width is not None else \
            (lambda: terminal_width(stream))
        self.shown = False

    def draw(self):
        text = self.line()[:max(1, self.width() - 1)]
        self.stream.write(_CLEAR + text)
        self.stream.flush()
        self.shown = True

    def clear(self):
        """Take the line away (before other output, or at the end)."""
        if self.shown:
            self.stream.write(_CLEAR)
            self.stream.flush()
            self.shown = False

    def finish(self):
        """Leave the last figures on screen, on a line of their own."""
        self.draw()
        self.stream.write('\n')
        self.stream.flush()
        self.shown = False

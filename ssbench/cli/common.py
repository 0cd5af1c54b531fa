"""Pieces shared by both command-line tools: parser, logging, error mapping."""
from __future__ import absolute_import, division, print_function

import argparse
import logging
import sys

from ssbench.errors import SsbenchError, printable
from ssbench.measure.finite import is_finite

log = logging.getLogger('ssbench')


def write_outputs(outputs):
    """Write each (path, what, mode, write) of `outputs`: write(stream)
    into `path` whole (ssbench.results.safefiles.atomic_output), or to
    standard output for None or "-", which comes last, so that a file
    that fails is said before anything is printed."""
    from ssbench.results import safefiles
    for path, what, mode, write in sorted(
            outputs, key=lambda output: output[0] in (None, safefiles.STDOUT)):
        if path in (None, safefiles.STDOUT):
            write(sys.stdout)
            sys.stdout.flush()
        else:
            with safefiles.atomic_output(path, what, mode) as out:
                write(out)


class UsageExit(Exception):
    """Raised instead of exiting when argparse rejects the command line."""

    def __init__(self, status, message=None):
        Exception.__init__(self, message)
        self.status = status
        self.message = message


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad command line in one line and never exits
    the process itself, so main() can be called in-process by tests."""

    def error(self, message):
        if len(message) > MAX_MESSAGE:
            # argparse echoes what it was given ("unrecognized arguments:
            # ..."): a command line of any length stays a short line.
            message = '%s... (%d characters)' % (message[:MAX_MESSAGE],
                                                 len(message))
        raise UsageExit(2, '%s: error: %s (see %s -h)' % (
            self.prog, message, self.prog))

    def exit(self, status=0, message=None):
        if message:
            sys.stderr.write(message)
        raise UsageExit(status)

    def parse(self, argv):
        """(args, None), or (None, exit status) once the reason for
        refusing the command line (or the help asked for) is printed."""
        try:
            return self.parse_args(argv), None
        except UsageExit as exc:
            if exc.message:
                sys.stderr.write(exc.message + '\n')
            return None, exc.status


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows each option's default, unless its help already says it."""

    def _get_help_string(self, action):
        if '(default' in (action.help or ''):
            return action.help
        return argparse.ArgumentDefaultsHelpFormatter._get_help_string(
            self, action)


# Longest wait any timeout option takes: libzmq counts receive timeouts in
# int milliseconds, and nobody waits 11 days for a worker.
MAX_WAIT_SECONDS = 10 ** 6
# Shortest duration any seconds option takes (but 0 where 0 means "off"):
# libzmq's millisecond, and a duration a loop can step by.
MIN_SECONDS = 0.001
# Largest worker id: ids travel as msgpack integers (int64).
MAX_WORKER_ID = 2 ** 63 - 1
# Characters of a refused value, and of argparse's own message, shown.
SHOWN = 60
MAX_MESSAGE = 240


def shown(text):
    """repr() of a value from the command line, cut to SHOWN characters:
    a message names the value, it does not echo it."""
    if len(text) <= SHOWN:
        return '%r' % (text,)
    return '%r... (%d characters)' % (text[:SHOWN], len(text))


def _refused(text, why):
    """The ArgumentTypeError that refuses `text` (shown()) for `why`."""
    return argparse.ArgumentTypeError('%s %s' % (shown(text), why))


def _int(text):
    try:
        return int(text)
    except ValueError:
        raise _refused(text, 'is not an integer')


def _at_most(text, value, maximum):
    if maximum is not None and value > maximum:
        raise _refused(text, 'must be at most %s' % (maximum,))
    return value


def positive_int(text, maximum=None):
    value = _int(text)
    if value < 1:
        raise _refused(text, 'must be at least 1')
    return _at_most(text, value, maximum)


def non_negative_int(text, maximum=None):
    value = _int(text)
    if value < 0:
        raise _refused(text, 'must not be negative')
    return _at_most(text, value, maximum)


def _number(text):
    try:
        value = float(text)
    except ValueError:
        raise _refused(text, 'is not a number')
    if not is_finite(value):
        raise _refused(text, 'is not a finite number')
    return value


def positive_float(text, maximum=MAX_WAIT_SECONDS, minimum=MIN_SECONDS):
    value = _number(text)
    if not value > 0:
        raise _refused(text, 'must be greater than 0')
    if value < minimum:
        raise _refused(text, 'must be at least %s' % (minimum,))
    return _at_most(text, value, maximum)


def non_negative_float(text, maximum=MAX_WAIT_SECONDS):
    """A number from 0 (often "off") or MIN_SECONDS to `maximum`."""
    value = _number(text)
    if value < 0:
        raise _refused(text, 'must not be negative')
    if 0 < value < MIN_SECONDS:
        raise _refused(text, 'must be 0 or at least %s' % (MIN_SECONDS,))
    return _at_most(text, value, maximum)


def bounded(parse, maximum, minimum=None):
    """An argparse type: `parse` (e.g. positive_int) with an upper bound,
    and a lower one for positive_float."""
    limits = (maximum,) if minimum is None else (maximum, minimum)

    def parse_bounded(text):
        return parse(text, *limits)
    parse_bounded.__name__ = parse.__name__
    return parse_bounded


def checked(parse):
    """An argparse type of `parse`, whose ValueError says in one line why
    a value is refused."""
    def convert(text):
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError('%s' % (exc,))
    convert.__name__ = parse.__name__
    return convert


def percent(text):
    """A PERCENT flag, above 0 and below 100, as a fraction."""
    value = positive_float(text)
    if not value < 100:
        raise _refused(text, 'must be below 100')
    return value / 100


def shown_percent(fraction):
    """A PERCENT flag's default as --help shows it (0.05: "5%"), as the
    user types it, not as it is kept."""
    return '%g%%%%' % (fraction * 100)


def port(text):
    value = non_negative_int(text)
    if value > 65535:
        raise _refused(text, 'is not a TCP port')
    return value


def pctile(text):
    value = positive_int(text)
    if value > 100:
        raise _refused(text, 'is not a percentile (1-100)')
    return value


# Characters of one line of a log message: its text may echo a name or
# a path of any length.
MAX_LOG_LINE = 1000


class PrintableLines(logging.Filter):
    """Makes each line of a log message printable
    (ssbench.errors.printable: escape sequences escaped, at most
    MAX_LOG_LINE characters): a message may echo names and paths from
    the user or from the other end of the wire."""

    def filter(self, record):
        try:
            message = record.getMessage()
        except UnicodeError:    # Python 2: logging copes with it itself
            return True
        record.msg = '\n'.join(printable(line, MAX_LOG_LINE)
                               for line in message.split('\n'))
        record.args = None
        return True


def setup_logging(verbose=False, quiet=False, stream=None):
    """The original's root log format: LEVEL:message (plus time with -v)."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
    handler = logging.StreamHandler(stream or sys.stderr)
    if verbose:
        fmt = '%(asctime)s:%(levelname)s:%(message)s'
        level = logging.DEBUG
    else:
        fmt = '%(levelname)s:%(message)s'
        level = logging.WARNING if quiet else logging.INFO
    handler.setFormatter(logging.Formatter(fmt))
    handler.addFilter(PrintableLines())
    root.addHandler(handler)
    root.setLevel(level)


def quiet_gevent_interrupts():
    """gevent's hub prints a KeyboardInterrupt raised while it runs (a
    Ctrl-C during a green wait) before it hands it to the main greenlet;
    run_command() says "interrupted" in one line, so the hub need not."""
    import gevent
    hub = gevent.get_hub()
    if not issubclass(KeyboardInterrupt, hub.NOT_ERROR):
        hub.NOT_ERROR = tuple(hub.NOT_ERROR) + (KeyboardInterrupt,)


def run_command(func, args, verbose):
    """Call a subcommand, mapping failures to one log line and a status."""
    try:
        status = func(args)
    except SsbenchError as exc:
        log.error('%s', exc)
        if verbose:
            log.debug('traceback:', exc_info=True)
        return exc.exit_status
    except KeyboardInterrupt:
        log.error('interrupted')
        return 130
    except Exception as exc:  # anything unforeseen: one line, not a dump
        if verbose:
            log.exception('unexpected error')
        else:
            log.error('unexpected error: %s: %s (run with -v for a '
                      'traceback)', type(exc).__name__, exc)
        return 1
    return status or 0

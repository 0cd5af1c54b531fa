"""Python 2.7 / 3.x shims that every module shares, PY2 and PY_VERSION.

A version difference that many modules meet (text and string types,
range, queue, URL parsing, makedirs, a monotonic clock, opening CSV and
report files) gets a shim here.  A difference that is one module's own (a
type set, a socket call, an error message's wording) stays in that
module, behind a test of compat.PY2 (or of compat.PY_VERSION, where a
minor version matters).  No other module reads sys.version_info
(tests/unit/test_compat.py checks this).
"""
from __future__ import absolute_import, division, print_function

import errno
import io
import os
import sys
import time

# (major, minor) of this Python, for the few tests finer than PY2.
PY_VERSION = tuple(sys.version_info[:2])
PY2 = PY_VERSION[0] == 2

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    text_type = unicode  # noqa: F821
    string_types = (str, unicode)  # noqa: F821
    range = xrange  # noqa: F821
    import Queue as queue  # noqa: F401
    from urlparse import urljoin, urlsplit  # noqa: F401
else:
    text_type = str
    string_types = (str,)
    range = range
    import queue  # noqa: F401
    from urllib.parse import urljoin, urlsplit  # noqa: F401


def makedirs(path, mode=0o777):
    """os.makedirs(path, mode, exist_ok=True) of Python 3, on 2.7 too: a
    directory another process creates meanwhile is no error."""
    try:
        os.makedirs(path, mode)
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise


# clock_gettime's id of the monotonic clock, where Python 2.7 can call it.
_CLOCK_MONOTONIC = {'linux': 1, 'freebsd': 4, 'darwin': 6}


def _clock_gettime_monotonic(platform=sys.platform):
    """Python 2.7's monotonic clock: clock_gettime(CLOCK_MONOTONIC)
    through ctypes, or None where there is none (then the wall clock is
    all there is)."""
    clock_id = [value for name, value in _CLOCK_MONOTONIC.items()
                if platform.startswith(name)]
    if not clock_id:
        return None
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library('c'), use_errno=True)
        clock_gettime = libc.clock_gettime
    except (OSError, AttributeError, TypeError):
        return None
    # struct timespec as two longs (time_t is a long on these systems),
    # and no argtypes: a Structure and argtypes' checks doubled the cost
    # of a call (about 5 us), which the request path pays several times.
    timespec = ctypes.c_long * 2
    clock_id = clock_id[0]

    def monotonic():
        """Seconds of a clock that never steps back (its zero is
        arbitrary)."""
        spec = timespec()       # one per call: threads may call it too
        if clock_gettime(clock_id, spec):
            raise OSError(ctypes.get_errno(), 'clock_gettime failed')
        return spec[0] + spec[1] * 1e-9

    try:
        monotonic()
    except OSError:
        return None
    return monotonic


try:
    monotonic = time.monotonic
except AttributeError:  # pragma: no cover - Python 2.7
    monotonic = _clock_gettime_monotonic() or time.time


def open_csv(path):
    """Open a file for csv.writer the way each Python wants it."""
    if PY2:
        return open(path, 'wb')
    return io.open(path, 'w', newline='')


def open_text_out(path):
    """Open a file for report text: native str on 2, UTF-8 text on 3."""
    if PY2:
        return open(path, 'w')
    return io.open(path, 'w', encoding='utf-8')


def write_text(stream, text):
    """Write text to a stream; UTF-8 encodes unicode on a Python 2 byte
    stream."""
    if PY2 and isinstance(text, unicode) and not isinstance(  # noqa: F821
            stream, io.TextIOBase):
        text = text.encode('utf-8')
    stream.write(text)

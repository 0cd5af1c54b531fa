"""Python 2.7 / 3.x shims; the only place that branches on the version."""
from __future__ import absolute_import, division, print_function

import errno
import io
import os
import sys
import time

PY2 = sys.version_info[0] == 2

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    text_type = unicode  # noqa: F821
    string_types = (str, unicode)  # noqa: F821
    range = xrange  # noqa: F821
    import Queue as queue  # noqa: F401
else:
    text_type = str
    string_types = (str,)
    range = range
    import queue  # noqa: F401


def makedirs(path):
    """os.makedirs(path, exist_ok=True) of Python 3, on 2.7 too: a
    directory another process creates meanwhile is no error."""
    try:
        os.makedirs(path)
    except OSError as exc:
        if exc.errno != errno.EEXIST:
            raise


try:
    monotonic = time.monotonic
except AttributeError:  # pragma: no cover - Python 2.7
    monotonic = time.time


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

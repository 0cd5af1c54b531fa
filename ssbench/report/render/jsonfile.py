"""The analysis document as JSON (report-scenario --json)."""
from __future__ import absolute_import, division, print_function

import io
import json

from ssbench.compat import PY2, text_type, write_text
from ssbench.report.compute.jsonsafe import jsonable


def dumps(doc):
    """The document as one line of JSON text (ASCII, unicode escaped)."""
    text = json.dumps(jsonable(doc), allow_nan=False, separators=(',', ':'))
    return text if isinstance(text, text_type) else text.decode('ascii')


def write_json(doc, stream):
    """Write the document and a newline to a text or binary stream."""
    text = dumps(doc) + u'\n'
    if not PY2 and isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        stream.write(text.encode('ascii'))
    else:
        write_text(stream, text)

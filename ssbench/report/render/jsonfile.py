"""The analysis document as JSON (report-scenario --json)."""
from __future__ import absolute_import, division, print_function

import io
import json

from ssbench.compat import PY2, text_type, write_text
from ssbench.report.compute.jsonsafe import jsonable


def dumps(doc):
    """The document as one line of JSON text (ASCII, unicode escaped)."""
    text = _dumps(jsonable(doc))
    return text if isinstance(text, text_type) else text.decode('ascii')


def _dumps(obj):
    return json.dumps(obj, allow_nan=False, separators=(',', ':'))


def write_json(doc, stream):
    """Write the document and a newline to a text or binary stream."""
    text = dumps(doc) + u'\n'
    if not PY2 and isinstance(stream, (io.RawIOBase, io.BufferedIOBase)):
        stream.write(text.encode('ascii'))
    else:
        write_text(stream, text)

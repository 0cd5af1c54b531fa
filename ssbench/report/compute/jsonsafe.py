"""Values made fit for strict JSON: what the analysis document holds comes
from msgpack headers and records, which may hold anything."""
from __future__ import absolute_import, division, print_function

import json

from ssbench.compat import text_type
from ssbench.measure.finite import is_finite

try:  # Python 2
    _INTS = (int, long)  # noqa: F821
except NameError:
    _INTS = (int,)


def jsonable(obj):
    """A copy of obj that json.dumps takes and strict parsers accept.

    Map keys and bytes become text (undecodable bytes replaced), tuples
    lists, non-finite floats None (JSON has no NaN or Infinity); anything
    else unknown becomes its text.  Stats file headers are msgpack and may
    hold any of those.
    """
    if obj is None or isinstance(obj, (bool, text_type)):
        return obj
    if isinstance(obj, _INTS):
        return obj
    if isinstance(obj, float):
        return obj if is_finite(obj) else None
    if isinstance(obj, bytes):
        return obj.decode('utf-8', 'replace')
    if isinstance(obj, dict):
        return dict((_key(k), jsonable(v)) for k, v in obj.items())
    if isinstance(obj, (list, tuple)):
        return [jsonable(v) for v in obj]
    return u'%s' % (obj,)


def _key(key):
    if isinstance(key, bytes):
        return key.decode('utf-8', 'replace')
    if isinstance(key, text_type):
        return key
    if key is None or isinstance(key, (bool, float) + _INTS):
        # As JSON spells them: true, null, 1.5.
        return u'%s' % (json.dumps(jsonable(key)),)
    return u'%s' % (jsonable(key),)

"""Reading scenario JSON with one-line errors: where the text is not JSON
(line and column, the same wording on Python 2 and 3) and which value is
not what it should be (`Checker`).  Every problem is a ScenarioError naming
the file; ssbench.load.scenario says what a valid scenario is.
"""
from __future__ import absolute_import, division, print_function

import io
import json
import numbers
import re

from ssbench.compat import PY2, string_types
from ssbench.errors import ScenarioError
from ssbench.measure import profile
from ssbench.measure.finite import is_finite, is_non_negative


def read_json(path, max_bytes):
    """The parsed JSON of the file at `path`, which may not be larger than
    `max_bytes` (UTF-8, with or without a byte-order mark)."""
    try:
        with io.open(path, 'rb') as handle:
            # Bounded: -f /dev/zero must not fill the memory.
            raw = handle.read(max_bytes + 1)
    except (IOError, OSError) as exc:
        raise ScenarioError('%s: cannot read the scenario file: %s' % (
            path, exc.strerror or exc))
    if len(raw) > max_bytes:
        raise ScenarioError('%s: larger than %d bytes: not a scenario file'
                            % (path, max_bytes))
    try:
        # utf-8-sig: be generous about a byte-order mark editors may add.
        text = raw.decode('utf-8-sig')
    except UnicodeDecodeError as exc:
        line, column = _line_col(raw[:exc.start].decode('utf-8', 'replace'),
                                 exc.start)
        raise ScenarioError('%s: line %d column %d: not UTF-8 text (%s)' % (
            path, line, column, exc.reason))
    return parse_json(text, path)


def parse_json(text, source):
    """Parse JSON text; a syntax error becomes a one-line ScenarioError
    `<source>: line L column C: <what>`, with the same wording on 2 and 3."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ScenarioError('%s: %s' % (source, _json_error(exc, text)))
    except RuntimeError:  # RecursionError on 3: absurdly deep nesting
        raise ScenarioError('%s: JSON nested too deeply' % source)


_CHAR_POS = re.compile(r'\(char (\d+)')
# Python 2.7 wording -> Python 3 wording.
_PY2_MESSAGES = {
    'Expecting object': 'Expecting value',
    'No JSON object could be decoded': 'Expecting value',
}


def _line_col(text, pos):
    """1-based line and column of character offset `pos`, as json counts."""
    line = text.count('\n', 0, pos) + 1
    if line == 1:
        return line, pos + 1
    return line, pos - text.rindex('\n', 0, pos)


def _json_error(exc, text):
    """'line L column C: message' for a json ValueError on either Python."""
    if getattr(exc, 'lineno', None) is not None and hasattr(exc, 'msg'):
        return 'line %d column %d: %s' % (exc.lineno, exc.colno, exc.msg)
    if PY2:  # pragma: no cover - the 2.7 run covers this
        # Python 2's C scanner reports some errors without a position; its
        # pure-Python scanner always has one, so ask that one again.
        from json.scanner import py_make_scanner
        decoder = json.JSONDecoder()
        decoder.scan_once = py_make_scanner(decoder)
        try:
            decoder.decode(text)
        except ValueError as again:
            exc = again
    message = str(exc)
    match = _CHAR_POS.search(message)
    if match:
        pos = int(match.group(1))
        message = message.split(': line ', 1)[0]
    else:
        # Only "nothing to decode" lacks a position: where the value should
        # start, as Python 3 reports it.
        pos = len(text) - len(text.lstrip(' \t\n\r'))
    message = _PY2_MESSAGES.get(message, message)
    line, column = _line_col(text, min(pos, len(text)))
    return 'line %d column %d: %s' % (line, column, message)


# -- values ----------------------------------------------------------------

def show(value):
    """A value as the user wrote it in JSON (same text on Python 2 and 3)."""
    try:
        text = json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > 40:
        text = text[:37] + '...'
    return text


# A surrogate that makes no pair: JSON takes "\ud800", but no UTF-8 file
# name, header or msgpack string can.  Python 2 keeps a character beyond
# U+FFFF as a pair, Python 3 never does.
_LONE_SURROGATE = re.compile(
    u'[\ud800-\udbff](?![\udc00-\udfff])|'
    u'(?<![\ud800-\udbff])[\udc00-\udfff]' if PY2 else
    u'[\ud800-\udfff]')


def text_flaw(text):
    """What makes `text` unfit for a file name, a header or msgpack (a
    NUL character, a lone surrogate), or None."""
    if (b'\x00' if isinstance(text, bytes) else u'\x00') in text:
        return 'a NUL character'
    if not isinstance(text, bytes) and _LONE_SURROGATE.search(text):
        return 'a lone surrogate'
    return None


def _as_int(value):
    """`value` as an int if it is an integral number (2 or 2.0), else None.

    JSON has one number type, so 1e6 is accepted as a byte count; booleans
    are not numbers here even though Python says so.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class Checker(object):
    """Checks of single values: each returns the value (an int for
    integers, a tuple for a CRUD profile) or raises a ScenarioError
    prefixed with the source; `what` names the value in the message and
    `maximum` is its upper bound."""

    def __init__(self, source):
        self.source = source

    def fail(self, message):
        message = ' '.join(str(message).split('\n'))
        raise ScenarioError('%s: %s' % (self.source, message))

    def int_at_least(self, value, minimum, what, maximum):
        number = _as_int(value)
        if number is None or number < minimum:
            self.fail('%s must be an integer >= %d, not %s' % (
                what, minimum, show(value)))
        if number > maximum:
            self._too_large(value, maximum, what)
        return number

    def positive_number(self, value, what, maximum, minimum=None):
        if not is_finite(value) or value <= 0:
            self.fail('%s must be a number > 0, not %s' % (what, show(value)))
        if minimum is not None and value < minimum:
            self.fail('%s must be at least %s, not %s' % (
                what, minimum, show(value)))
        if value > maximum:
            self._too_large(value, maximum, what)
        return value

    def _too_large(self, value, maximum, what):
        self.fail('%s must be at most %d, not %s' % (
            what, maximum, show(value)))

    def text(self, value, what, allow_none=False):
        if value is None and allow_none:
            return None
        if not isinstance(value, string_types) or not value:
            self.fail('%s must be a non-empty string%s, not %s' % (
                what, ' or null' if allow_none else '', show(value)))
        flaw = text_flaw(value)
        if flaw:
            self.fail('%s must be text without %s, not %s' % (
                what, flaw, show(value)))
        return value

    def crud_profile(self, value, what, maximum):
        """A profile (ssbench.measure.profile): the list [C, R, U, D] as
        a 4-tuple, an object as the 6-tuple of its PROFILE_KEYS."""
        if isinstance(value, dict):
            found = self._profile_object(value, what)
        else:
            found = profile.weights(value)
            if found is None:
                self.fail('%s must be a list of 4 non-negative numbers '
                          '[C, R, U, D], not %s (or an object of weights '
                          'such as {"READ": 9, "HEAD": 1})' % (
                              what, show(value)))
            found = found[:profile.CRUD_COUNT]
        if max(found) > maximum:
            self.fail('%s: each weight must be at most %d (only their '
                      'ratios matter), not %s' % (
                          what, maximum, show(max(found))))
        return found

    def _profile_object(self, value, what):
        for key in sorted(value, key=show):
            if key not in profile.PROFILE_KEYS:
                self.fail('%s has no operation %s; it weighs %s' % (
                    what, show(key), ', '.join(profile.PROFILE_KEYS)))
            if not is_non_negative(value[key]):
                self.fail('%s: %s must be a non-negative number, not %s' % (
                    what, show(key), show(value[key])))
        return profile.weights(value)

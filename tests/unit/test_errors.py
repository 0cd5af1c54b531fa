"""ssbench.errors.printable: user text as one line shows it."""
from __future__ import absolute_import, division, print_function

import json

import pytest

from ssbench.errors import SHOWN_CHARS, printable


@pytest.mark.parametrize('text', [
    u'Small test scenario', u'gr\xfcn \u6771\u4eac', u'\U0001f600 emoji',
    b'plain bytes', u''])
def test_ordinary_text_comes_back_unchanged(text):
    assert printable(text) == text


def test_escape_sequences_and_newlines_are_escaped():
    assert printable(u'red\x1b[31m\nbell\x07\x9b') == \
        u'red\\x1b[31m\\x0abell\\x07\\x9b'
    assert printable(b'red\x1b[31m') == b'red\\x1b[31m'


def test_a_lone_surrogate_from_json_is_escaped():
    # json takes "\ud800" on both interpreters; no encoding does.
    text = json.loads('"a\\ud800b\\udc00"')
    shown = printable(text)
    assert shown == u'a\\ud800b\\udc00'
    shown.encode('utf-8')


def test_long_text_is_cut_with_its_length():
    shown = printable(u'A' * 900000)
    assert shown == u'A' * SHOWN_CHARS + u'... (900000 characters)'
    assert printable(b'B' * 300, 10) == b'BBBBBBBBBB... (300 characters)'
    assert printable(u'A' * 900000, None) == u'A' * 900000


def test_what_is_not_text_is_left_alone():
    assert printable(None) is None and printable(3) == 3

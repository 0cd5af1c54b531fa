"""Sweeps: the values of one setting a suite runs a step for, and the
steps of several settings at once (their product).

A sweep is written as one of::

    8                  one value
    8,16,32,64         a list, in the order given
    500:8000:x2        from 500 up to 8000, each value twice the last
    10:50:+10          from 10 up to 50, each value 10 more than the last

A range stops at its last value not beyond the end (1:10:x3 is 1, 3, 9);
between whole ends its values are rounded to whole numbers, each kept once
(1:4:x1.5 is 1, 2, 3, 4).
Each value is checked by the caller's `convert` (the flag's own check),
so a sweep accepts exactly the values the flag does.
"""
from __future__ import absolute_import, division, print_function

import collections
import itertools
import numbers
import re

from ssbench.measure.finite import is_finite

# The most values one sweep, and the most steps a suite, may have: a
# suite is a plan a person reads, and every step takes minutes.
MAX_VALUES = 100
MAX_STEPS = 1000
_RANGE_RE = re.compile(r'^([^:]+):([^:]+):([x+])([^:]+)$')


def expand(text, convert):
    """The list of values `text` (see the module docstring) stands for,
    each passed through `convert(token)` (which raises ValueError for a
    value the flag refuses); ValueError with one line saying what is
    wrong otherwise."""
    text = text.strip()
    match = _RANGE_RE.match(text)
    if match is None:
        if ':' in text:
            raise ValueError('%r is no sweep: write a list (8,16,32), '
                             'LOW:HIGH:xFACTOR (500:8000:x2) or '
                             'LOW:HIGH:+STEP (10:50:+10)' % (text,))
        tokens = [token.strip() for token in text.split(',')]
        if '' in tokens:
            raise ValueError('%r has an empty value (a stray comma?)'
                             % (text,))
        if len(tokens) > MAX_VALUES:
            raise ValueError('%r has more than %d values' % (
                text[:40], MAX_VALUES))
        return [convert(token) for token in tokens]
    low, high = convert(match.group(1)), convert(match.group(2))
    how, by = match.group(3), _number(match.group(4), text)
    if high < low:
        raise ValueError('%r ends below its start' % (text,))
    if how == 'x' and not by > 1:
        raise ValueError('%r: the factor must be more than 1' % (text,))
    if how == '+' and not by > 0:
        raise ValueError('%r: the step must be more than 0' % (text,))
    whole = all(isinstance(end, numbers.Integral) for end in (low, high))
    values = []
    value = low
    while value <= high * (1 + 1e-12):
        if len(values) == MAX_VALUES:
            raise ValueError('%r has more than %d values' % (
                text, MAX_VALUES))
        values.append(convert(_plain(round(value) if whole else value)))
        value = value * by if how == 'x' else value + by
    return _unique(values)


def _number(token, text):
    try:
        value = float(token)
    except ValueError:
        raise ValueError('%r: %r is not a number' % (text, token))
    if not is_finite(value):
        raise ValueError('%r: %r is not a number' % (text, token))
    return value


def _plain(value):
    """A computed value as the text a flag takes, to 12 significant
    digits: 1000 rather than 1000.0000000001, 0.3 rather than
    0.30000000000000004, and 1e-09 kept (not rounded away to 0)."""
    text = '%.12g' % (value,)
    if float(text) == int(float(text)):
        return '%d' % (float(text),)
    return text


def _unique(values):
    # A factor below 2 on small integers may round to a value twice.
    out = []
    for value in values:
        if value not in out:
            out.append(value)
    return out


def product(axes):
    """The steps of several sweeps: a list of OrderedDicts {setting:
    value}, one per combination, the first setting varying slowest.
    `axes` is a list of (setting, values); ValueError beyond MAX_STEPS."""
    count = 1
    for _, values in axes:
        count *= len(values)
    if count > MAX_STEPS:
        raise ValueError('the sweeps make %d steps, more than %d' % (
            count, MAX_STEPS))
    names = [name for name, _ in axes]
    return [collections.OrderedDict(zip(names, combination))
            for combination in itertools.product(
                *[values for _, values in axes])]

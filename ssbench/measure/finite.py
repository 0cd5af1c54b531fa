"""The one rule for a number read from a file, a message or a flag: a
real number, never a boolean, neither NaN nor infinite (json and msgpack
carry both, and no count, weight, time or rate means them)."""
from __future__ import absolute_import, division, print_function

import numbers


def is_finite(value):
    """True for a finite real number (not a boolean)."""
    # abs(NaN) < inf is False too.
    return isinstance(value, numbers.Real) and \
        not isinstance(value, bool) and abs(value) < float('inf')


def is_non_negative(value):
    """True for a finite real number at least 0: a weight, a duration."""
    return is_finite(value) and value >= 0

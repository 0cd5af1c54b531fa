"""The one rule for a number: finite, real, never a boolean."""
from __future__ import absolute_import, division, print_function

import decimal
import fractions

import pytest

from ssbench.measure.finite import is_finite, is_non_negative

INF = float('inf')


@pytest.mark.parametrize('value', [
    0, 1, -1, 2 ** 70, -2 ** 70, 0.5, -1e308, 1e308,
    fractions.Fraction(1, 3)])
def test_finite(value):
    assert is_finite(value)
    assert is_non_negative(value) == (value >= 0)


@pytest.mark.parametrize('value', [
    True, False, None, INF, -INF, float('nan'), '1', b'1', [1], {}, 1j,
    decimal.Decimal('NaN'), decimal.Decimal('Infinity')])
def test_not_finite(value):
    assert not is_finite(value)
    assert not is_non_negative(value)


def test_a_huge_integer_is_finite():
    # Above every float: compared exactly, not rounded to infinity.
    assert is_finite(10 ** 400)

"""ssbench.swift.expiry: a token's expiry from an auth server's answer,
narrowed by later answers, and the margin of its renewal."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.swift.expiry import Expiry, renewal_margin


def test_an_answer_bounds_the_expiry_by_its_round_trip_and_rounding():
    # Counted between 10.0 and 10.5 on our clock, rounded down: 3 left.
    expiry = Expiry.of_answer(10.0, 10.5, 3.0)
    # EARLY: tempauth's memcache may drop it up to 2 s before.
    assert (expiry.earliest, expiry.latest) == (11.0, 14.5)


def test_later_answers_narrow_it():
    first = Expiry.of_answer(10.0, 10.01, 2.0)          # [10, 13.01)
    # Asked at 11.7, 1 s left: at 10.7 at the earliest.
    second = first.narrowed(Expiry.of_answer(11.7, 11.71, 1.0))
    assert (second.earliest, second.latest) == (10.7, 13.01)
    # At 12.8, none left: at 13.81 at the latest, which the first said
    # already.
    third = second.narrowed(Expiry.of_answer(12.8, 12.81, 0.0))
    assert (third.earliest, third.latest) == (10.8, 13.01)


def test_answers_that_disagree_leave_it_unknown():
    first = Expiry.of_answer(10.0, 10.01, 2.0)
    assert first.narrowed(Expiry.of_answer(16.0, 16.01, 0.0)) is None
    assert first.narrowed(Expiry.of_answer(7.0, 7.01, 0.0)) is None


@pytest.mark.parametrize('left, margin', [
    (86400.0, 60.0), (600.0, 60.0), (100.0, 10.0), (3.0, 0.3), (0.0, 0.0)])
def test_renewal_margin_is_a_tenth_of_the_life_at_most_a_minute(
        left, margin):
    assert renewal_margin(left) == pytest.approx(margin)

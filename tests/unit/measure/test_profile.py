"""ssbench.measure.profile: the two forms of an operation profile read
as six weights."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench import OPERATION_TYPES
from ssbench.measure import profile


def test_the_keys_follow_the_job_types():
    assert len(profile.PROFILE_KEYS) == len(OPERATION_TYPES)
    assert profile.PROFILE_KEYS[:profile.CRUD_COUNT] == (
        'CREATE', 'READ', 'UPDATE', 'DELETE')


def test_the_list_form_weighs_no_head_and_no_list():
    assert profile.weights([10, 75, 15, 0]) == (10, 75, 15, 0, 0, 0)
    assert not profile.extended([10, 75, 15, 0])


def test_the_object_form_names_its_weights_and_misses_weigh_0():
    assert profile.weights({'READ': 60, 'HEAD': 15, 'LIST': 5.5}) == (
        0, 60, 0, 0, 15, 5.5)
    assert profile.weights({}) == (0,) * 6
    assert profile.extended({'READ': 1, 'LIST': 1})
    assert not profile.extended({'READ': 1, 'HEAD': 0})


@pytest.mark.parametrize('value', [
    None, 'READ', [1, 2, 3], [1, 2, 3, 4, 5], [1, -1, 1, 1], [True, 1, 1, 1],
    [1, float('nan'), 1, 1], [1, float('inf'), 1, 1], {'read': 1},
    {'READ': '1'}, {'HEAD': False}, {'LIST': -2}])
def test_anything_else_is_no_profile(value):
    assert profile.weights(value) is None
    assert not profile.extended(value)

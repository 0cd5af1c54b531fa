"""buckets: S3 bucket names of ssbench's containers."""
from __future__ import absolute_import, division, print_function

import re

import pytest

from ssbench.errors import ScenarioError
from ssbench.s3.buckets import bucket_name

VALID = re.compile(r'[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]\Z')


def test_the_default_containers():
    assert bucket_name('ssbench', 1, 'default_policy') == \
        'ssbench-000001-default-policy'
    assert bucket_name('ssbench', 1234567, 'gold') == 'ssbench-1234567-gold'


@pytest.mark.parametrize('base, label, name', [
    ('My_Bench', 'Silver', 'my-bench-000002-silver'),
    ('a.b c__d', 'gold', 'a-b-c-d-000002-gold'),
    ('--x--', 'gold', 'x-000002-gold'),
    (u'caf\xe9', u'g\xf6ld', 'caf-000002-g-ld'),
    ('b', '', 'b-000002'),
    ('b', '___', 'b-000002'),
])
def test_each_part_is_made_valid(base, label, name):
    assert bucket_name(base, 2, label) == name
    assert VALID.match(name)
    assert type(bucket_name(base, 2, label)) is str


def test_a_long_base_is_cut_to_fit_63_characters():
    name = bucket_name('x' * 60 + '_y', 3, 'default_policy')
    assert name == 'x' * 41 + '-000003-default-policy'
    assert len(name) == 63
    # Cut just after a '-': the name still ends the base with a letter.
    assert bucket_name('x' * 40 + '__y', 3, 'default_policy') == \
        'x' * 40 + '-000003-default-policy'


@pytest.mark.parametrize('base, label', [
    ('___', 'gold'), ('', 'gold'), ('ok', 'p' * 60)])
def test_no_letter_or_no_room_is_a_scenario_error(base, label):
    with pytest.raises(ScenarioError) as caught:
        bucket_name(base, 1, label)
    assert 'gives no S3 bucket name' in str(caught.value)


@pytest.mark.parametrize('base, label', [
    ('sthree', 'gold'), ('amzn_s3_demo', 'gold'), ('b', 's3alias')])
def test_the_names_s3_reserves_are_a_scenario_error(base, label):
    with pytest.raises(ScenarioError) as caught:
        bucket_name(base, 1, label)
    assert 'which S3 reserves' in str(caught.value)

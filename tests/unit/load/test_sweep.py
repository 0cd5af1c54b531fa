from __future__ import absolute_import, division, print_function

import pytest

from ssbench.load import sweep


def positive_int(text):
    value = int(text)
    if value < 1:
        raise ValueError('%s must be at least 1' % (text,))
    return value


def rate(text):
    value = float(text)
    return int(value) if value == int(value) else value


def test_a_list_keeps_its_order():
    assert sweep.expand('8, 16,4', positive_int) == [8, 16, 4]
    assert sweep.expand('8', positive_int) == [8]


def test_ranges_by_factor_and_by_step_stop_at_their_end():
    assert sweep.expand('500:8000:x2', rate) == [
        500, 1000, 2000, 4000, 8000]
    assert sweep.expand('1:10:x3', positive_int) == [1, 3, 9]
    assert sweep.expand('10:50:+10', positive_int) == [10, 20, 30, 40, 50]
    assert sweep.expand('0.5:2:x2', rate) == [0.5, 1, 2]
    assert sweep.expand('100:100:x2', rate) == [100]


def test_a_small_factor_on_integers_gives_each_value_once():
    assert sweep.expand('1:4:x1.2', positive_int) == [1, 2, 3, 4]
    assert sweep.expand('500:1200:x1.5', rate) == [500, 750, 1125]


@pytest.mark.parametrize('text, why', [
    ('8,,16', 'empty value'),
    ('1:2', 'is no sweep'),
    ('1:2:3:4', 'is no sweep'),
    ('50:10:+10', 'ends below its start'),
    ('1:10:x1', 'factor must be more than 1'),
    ('1:10:+0', 'step must be more than 0'),
    ('1:10:xz', "'z' is not a number"),
    ('1:10:xnan', 'is not a number'),
    ('1:1000:+1', 'more than 100 values'),
    (','.join(['1'] * 101), 'more than 100 values'),
])
def test_a_malformed_sweep_says_what_is_wrong(text, why):
    with pytest.raises(ValueError) as info:
        sweep.expand(text, positive_int)
    assert why in '%s' % (info.value,)


def test_each_value_passes_the_flag_own_check():
    with pytest.raises(ValueError) as info:
        sweep.expand('4,0', positive_int)
    assert '0 must be at least 1' in '%s' % (info.value,)
    with pytest.raises(ValueError):
        sweep.expand('0:8:x2', positive_int)


def test_the_product_varies_the_first_setting_slowest():
    steps = sweep.product([('user_count', [8, 16]), ('rate', [100, 200])])
    assert [list(step.items()) for step in steps] == [
        [('user_count', 8), ('rate', 100)],
        [('user_count', 8), ('rate', 200)],
        [('user_count', 16), ('rate', 100)],
        [('user_count', 16), ('rate', 200)]]
    assert sweep.product([]) == [{}]


def test_a_product_beyond_the_bound_is_refused():
    values = list(range(1, 101))
    with pytest.raises(ValueError) as info:
        sweep.product([('user_count', values), ('rate', values[:11])])
    assert 'more than 1000' in '%s' % (info.value,)


def test_values_keep_their_precision():
    # Rounded to 6 decimals, 1e-9 read as 0 and the three values as one.
    assert sweep.expand('1e-9:1e-7:x10', float) == [
        pytest.approx(1e-9), pytest.approx(1e-8), pytest.approx(1e-7)]
    assert sweep.expand('0.1:0.3:+0.1', rate) == [0.1, 0.2, 0.3]
    assert sweep.expand('1:1000:x10', rate) == [1, 10, 100, 1000]
    assert sweep.expand('0.0000001:0.0000004:+0.0000001', float) == [
        1e-7, 2e-7, 3e-7, 4e-7]

"""scenarioflags: the values of --size, --crud, --objects and
--container-base, and the scenario dict build() makes of them."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.load import scenarioflags as flags
from ssbench.load.scenario import Scenario


@pytest.mark.parametrize('text, count', [
    ('512', 512), ('0', 0), ('4K', 4096), ('4KiB', 4096), ('4kib', 4096),
    ('1M', 1024 ** 2), ('1.5MiB', 1536 * 1024), ('2G', 2 * 1024 ** 3),
    ('1TiB', 1024 ** 4), ('10B', 10), (' 1MiB ', 1024 ** 2),
])
def test_sizes_in_bytes_and_powers_of_1024(text, count):
    assert flags.parse_bytes(text) == count


@pytest.mark.parametrize('text, reason', [
    ('4KB', "unknown unit 'KB'"), ('1mb', "unknown unit 'mb'"),
    ('1.3', 'not a whole number of bytes'), ('', 'is not a size'),
    ('MiB', 'is not a size'), ('-1', 'is not a size'),
    ('1e3', 'is not a size'), (u'\u0661', 'is not a size'),
])
def test_a_size_that_is_none_says_why(text, reason):
    with pytest.raises(ValueError) as caught:
        flags.parse_bytes(text)
    assert reason in str(caught.value)


def test_size_lists_and_ranges():
    assert flags.parse_sizes('1MiB') == [(1024 ** 2, 1024 ** 2)]
    assert flags.parse_sizes('4KiB-64KiB,0,1M') == [
        (4096, 65536), (0, 0), (1024 ** 2, 1024 ** 2)]
    with pytest.raises(ValueError) as caught:
        flags.parse_sizes('64K-4K')
    assert 'from low to high' in str(caught.value)
    with pytest.raises(ValueError):
        flags.parse_sizes('1K,,2K')


@pytest.mark.parametrize('text, crud', [
    ('10,80,5,5', [10, 80, 5, 5]), ('0,100,0,0', [0, 100, 0, 0]),
    ('33.5,33.5,33,0', [33.5, 33.5, 33, 0]),
])
def test_crud_percentages(text, crud):
    assert flags.parse_crud(text) == crud
    assert [type(value) for value in flags.parse_crud(text)] == \
        [type(value) for value in crud]


@pytest.mark.parametrize('text, reason', [
    ('10,80,5,4', 'adds up to 99, not 100'),
    ('10,80,10', 'is not four percentages'),
    ('10,80,5,5,0', 'is not four percentages'),
    ('-10,100,5,5', 'is not four percentages'),
    ('a,b,c,d', 'is not four percentages'),
    ('nan,50,50,0', 'is not four percentages'),
])
def test_a_bad_mix_says_why(text, reason):
    with pytest.raises(ValueError) as caught:
        flags.parse_crud(text)
    assert reason in str(caught.value)


def test_counts_and_names():
    assert flags.parse_counts('100') == [100]
    assert flags.parse_counts('100,0,3') == [100, 0, 3]
    for bad in ('x', '1,-2', '1.5', ''):
        with pytest.raises(ValueError):
            flags.parse_counts(bad)
    assert flags.parse_names('tiny, big') == ['tiny', 'big']
    with pytest.raises(ValueError):
        flags.parse_names('tiny,,big')


@pytest.mark.parametrize('text', [
    'ssbench_mine', 'e2e-1', u'caf\xe9 run', u'\xe9' * 64, 'x' * 128])
def test_container_bases_swift_takes(text):
    assert flags.parse_container_base(text) == text


@pytest.mark.parametrize('text, reason', [
    ('', 'empty'), ('a/b', '"/"'), ('bad\x1b[31m', 'not printable'),
    ('tab\there', 'not printable'), (u'line\u2028sep', 'not printable'),
    ('x' * 129, 'longer than 128 bytes'),
    (u'\xe9' * 65, 'longer than 128 bytes'),
])
def test_container_bases_swift_refuses(text, reason):
    with pytest.raises(ValueError) as caught:
        flags.parse_container_base(text)
    assert reason in str(caught.value)


@pytest.mark.parametrize('bounds, label', [
    ((0, 0), '0'), ((1000, 1000), '1000'), ((1536, 1536), '1536'),
    ((4096, 65536), '4KiB-64KiB'), ((1024 ** 2, 5 * 1024 ** 2),
                                    '1MiB-5MiB'),
    ((3 * 1024 ** 3, 3 * 1024 ** 3), '3GiB'), ((1024 ** 4, 1024 ** 4),
                                               '1TiB'),
])
def test_size_labels_read_back_as_the_same_sizes(bounds, label):
    assert flags.size_label(*bounds) == label
    assert flags.parse_sizes(label) == [bounds]


def test_the_dict_of_one_size():
    assert flags.build([(1024 ** 2, 1024 ** 2)], [10, 80, 5, 5],
                       user_count=32, run_seconds=60.0,
                       operation_count=None) == {
        'name': '1MiB CRUD 10,80,5,5',
        'sizes': [{'name': '1MiB', 'size_min': 1048576,
                   'size_max': 1048576}],
        'initial_files': {'1MiB': 100},
        'crud_profile': [10, 80, 5, 5],
        'user_count': 32, 'run_seconds': 60}


def test_several_sizes_names_counts_and_settings():
    data = flags.build(
        [(4096, 65536), (1024 ** 2, 8 * 1024 ** 2)], [0, 100, 0, 0],
        objects=[200, 20], names=['small', 'large'],
        segment_size=4 * 1024 ** 2, user_count=8, operation_count=1000,
        rate=50.5, container_base='mine', container_count=10,
        policy='gold', delete_after=3600)
    assert data == {
        'name': 'small large CRUD 0,100,0,0',
        'sizes': [{'name': 'small', 'size_min': 4096, 'size_max': 65536},
                  {'name': 'large', 'size_min': 1048576,
                   'size_max': 8388608, 'segment_size': 4194304}],
        'initial_files': {'small': 200, 'large': 20},
        'crud_profile': [0, 100, 0, 0], 'user_count': 8,
        'operation_count': 1000, 'rate': 50.5, 'container_base': 'mine',
        'container_count': 10, 'policy': 'gold', 'delete_after': 3600}
    # One count for every size.
    data = flags.build([(1, 1), (2, 2)], [100, 0, 0, 0], objects=[7],
                       user_count=1, operation_count=1)
    assert data['initial_files'] == {'1': 7, '2': 7}


@pytest.mark.parametrize('changes, reason', [
    ({'objects': [1, 2, 3]}, '--objects gives 3 values for 2 sizes'),
    ({'names': ['one']}, '--size-name gives 1 values for 2 sizes: give '
     'one per size'),
])
def test_lists_that_do_not_fit_the_sizes(changes, reason):
    with pytest.raises(ValueError) as caught:
        flags.build([(1, 1), (2, 2)], [100, 0, 0, 0], **changes)
    assert reason in str(caught.value)


def test_only_scenario_keys_are_settings():
    with pytest.raises(TypeError):
        flags.build([(1, 1)], [100, 0, 0, 0], block_size=4096)


def test_what_build_makes_is_a_valid_scenario():
    data = flags.build([(4096, 8192)], [10, 75, 15, 0], objects=[5],
                       user_count=4, operation_count=50, container_count=3)
    scenario = Scenario(data)
    assert [(size.name, size.size_min, size.size_max, size.initial_count,
             size.crud_profile) for size in scenario.sizes] == [
        ('4KiB-8KiB', 4096, 8192, 5, (10, 75, 15, 0))]
    assert (scenario.user_count, scenario.operation_count,
            scenario.container_count) == (4, 50, 3)

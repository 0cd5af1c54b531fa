"""ssbench.load.scenario: validation corpus, defaults, overrides, derived
data."""
from __future__ import absolute_import, division, print_function

import glob
import io
import json
import os

import pytest

import ssbench
from ssbench.errors import ScenarioError
from ssbench.load.scenario import Scenario, load_scenario
from ssbench.load.scenariocheck import parse_json
from tests import paths

ROOT = paths.ROOT
BAD = os.path.join(ROOT, 'tests', 'data', 'bad')
SCENARIOS = os.path.join(ROOT, 'scenarios')
VERY_SMALL = os.path.join(SCENARIOS, 'very_small.scenario')

with io.open(os.path.join(BAD, 'cases.json'), encoding='utf-8') as _f:
    BAD_CASES = json.load(_f)


def minimal(**changes):
    """A small valid scenario dict; keyword arguments replace keys (None
    deletes)."""
    data = {
        'name': 'Minimal',
        'sizes': [{'name': 'zero', 'size_min': 0, 'size_max': 0,
                   'crud_profile': [60, 15, 20, 5]},
                  {'name': 'tiny', 'size_min': 4096, 'size_max': 8192}],
        'initial_files': {'zero': 30, 'tiny': 10},
        'operation_count': 500,
        'crud_profile': [10, 75, 15, 0],
        'user_count': 4,
    }
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


# -- the bad corpus ------------------------------------------------------

def test_every_bad_file_has_a_case():
    files = set(os.path.basename(p)
                for p in glob.glob(os.path.join(BAD, '*.scenario')))
    assert files == set(case['file'] for case in BAD_CASES)


@pytest.mark.parametrize('case', BAD_CASES,
                         ids=[c['file'] + ':' +
                              ','.join(c.get('overrides', {}))
                              for c in BAD_CASES])
def test_bad_scenario(case):
    path = os.path.join(BAD, case['file'])
    with pytest.raises(ScenarioError) as info:
        load_scenario(path, case.get('overrides'))
    message = str(info.value)
    assert '\n' not in message
    assert message.startswith(path + ': ')
    assert case['fragment'] in message
    assert info.value.exit_status == case['status']


def test_missing_file():
    path = os.path.join(BAD, 'no_such.scenario')
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    message = str(info.value)
    assert message.startswith(path + ': cannot read the scenario file: ')
    assert 'No such file or directory' in message
    assert info.value.exit_status == 2


def test_directory_is_unreadable():
    with pytest.raises(ScenarioError) as info:
        load_scenario(BAD)
    assert str(info.value).startswith(BAD + ': cannot read the scenario file')


def test_json_error_position_on_later_line():
    text = '{\n  "a": 1,\n  "b": [1, 2,\n  }'
    with pytest.raises(ScenarioError) as info:
        parse_json(text, 'x.scenario')
    assert str(info.value) == 'x.scenario: line 4 column 3: Expecting value'


def test_byte_order_mark_is_accepted(tmpdir):
    path = tmpdir.join('bom.scenario')
    path.write_binary(b'\xef\xbb\xbf' + json.dumps(minimal()).encode('ascii'))
    assert load_scenario(str(path)).name == 'Minimal'


def test_unknown_override_key_is_a_programming_error():
    with pytest.raises(ValueError):
        Scenario(minimal(), {'user_cuont': 3})


# -- generosity ----------------------------------------------------------

def test_unknown_keys_are_ignored():
    data = minimal(comment='hi', some_future_option=[1, 2])
    data['sizes'][0]['colour'] = 'blue'
    assert Scenario(data).name == 'Minimal'


def test_unused_size_needs_no_usable_profile():
    data = minimal(crud_profile=None)
    data['sizes'][1]['crud_profile'] = [1, 1, 1, 1]
    data['sizes'].append({'name': 'spare', 'size_min': 1, 'size_max': 2})
    data['sizes'].append({'name': 'off', 'size_min': 1, 'size_max': 2,
                          'crud_profile': [0, 0, 0, 0]})
    data['initial_files']['off'] = 0
    scenario = Scenario(data)
    assert scenario.size('spare').crud_profile is None
    assert [s.name for s in scenario.used_sizes] == ['zero', 'tiny']


def test_zero_top_level_profile_ok_when_every_used_size_has_its_own():
    data = minimal(crud_profile=[0, 0, 0, 0])
    data['sizes'][1]['crud_profile'] = [1, 0, 0, 0]
    assert Scenario(data).crud_profile == (0, 0, 0, 0)


def test_integral_floats_are_integers():
    data = minimal(operation_count=1e3, user_count=2.0)
    data['sizes'][1]['size_max'] = 1e4
    scenario = Scenario(data)
    assert scenario.operation_count == 1000
    assert scenario.user_count == 2
    assert scenario.size('tiny').size_max == 10000
    assert isinstance(scenario.size('tiny').size_max, int)


def test_every_upper_bound_is_itself_accepted():
    from ssbench.load import scenario as mod
    data = minimal(container_count=mod.MAX_CONTAINER_COUNT,
                   container_concurrency=mod.MAX_CONTAINER_CONCURRENCY,
                   block_size=mod.MAX_BLOCK_SIZE,
                   delete_after=mod.MAX_DELETE_AFTER,
                   crud_profile=[mod.MAX_CRUD_WEIGHT, 1, 1, 1],
                   initial_files={'zero': mod.MAX_INITIAL_FILES - 1,
                                  'tiny': 1})
    data['sizes'][1]['size_max'] = mod.MAX_OBJECT_SIZE
    scenario = Scenario(data, {
        'user_count': mod.MAX_USER_COUNT,
        'operation_count': mod.MAX_OPERATION_COUNT})
    assert scenario.operation_count == mod.MAX_OPERATION_COUNT
    assert scenario.container_count == mod.MAX_CONTAINER_COUNT
    secs = Scenario(minimal(run_seconds=mod.MAX_RUN_SECONDS))
    assert secs.run_seconds == mod.MAX_RUN_SECONDS


def test_too_many_size_classes():
    from ssbench.load.scenario import MAX_SIZE_CLASSES
    sizes = [{'name': 's%d' % i, 'size_min': 0, 'size_max': 0}
             for i in range(MAX_SIZE_CLASSES + 1)]
    with pytest.raises(ScenarioError) as info:
        Scenario(minimal(sizes=sizes, initial_files={'s0': 1}))
    assert '"sizes" has %d size classes; at most %d are supported' % (
        MAX_SIZE_CLASSES + 1, MAX_SIZE_CLASSES) in str(info.value)
    Scenario(minimal(sizes=sizes[:-1], initial_files={'s0': 1}))


def test_an_oversized_file_is_not_read_whole(tmpdir):
    from ssbench.load.scenario import MAX_SCENARIO_BYTES
    path = str(tmpdir.join('big.scenario'))
    with io.open(path, 'wb') as fp:
        fp.write(b' ' * (MAX_SCENARIO_BYTES + 1))
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    assert str(info.value) == '%s: larger than %d bytes: not a scenario ' \
        'file' % (path, MAX_SCENARIO_BYTES)


def test_required_counts_may_come_from_the_command_line():
    data = minimal(user_count=None, operation_count=None)
    scenario = Scenario(data, {'user_count': 3, 'run_seconds': 5})
    assert (scenario.user_count, scenario.run_seconds) == (3, 5)


def test_size_min_equal_max_and_zero_sizes():
    data = minimal()
    data['sizes'][1].update(size_min=7, size_max=7)
    assert Scenario(data).size('tiny').size_min == 7


# -- defaults and overrides ----------------------------------------------

def test_defaults():
    scenario = Scenario(minimal())
    assert scenario.container_base == 'ssbench'
    assert scenario.container_count == 100
    assert scenario.container_concurrency == 10
    assert scenario.delete_after is None
    assert scenario.policy is None
    assert scenario.block_size == 65536
    assert scenario.operation_count == 500
    assert scenario.run_seconds is None
    assert scenario.source == '<scenario>'


def test_file_values():
    scenario = Scenario(minimal(
        container_base='b', container_count=3, container_concurrency=2,
        delete_after=60, policy='gold'))
    assert (scenario.container_base, scenario.container_count,
            scenario.container_concurrency, scenario.delete_after,
            scenario.policy) == ('b', 3, 2, 60, 'gold')


def test_delete_after_zero_means_off():
    assert Scenario(minimal(delete_after=0)).delete_after is None
    scenario = Scenario(minimal(delete_after=60), {'delete_after': 0})
    assert scenario.delete_after is None


@pytest.mark.parametrize('key,value', [
    ('user_count', 9), ('operation_count', 7), ('run_seconds', 3),
    ('container_count', 5), ('delete_after', 30), ('policy', 'silver'),
    ('block_size', 4096)])
def test_each_override_beats_the_file(key, value):
    data = minimal(user_count=4, operation_count=500, container_count=50,
                   delete_after=10, policy='gold')
    scenario = Scenario(data, {key: value})
    assert getattr(scenario, key) == value
    # The raw JSON is kept as read.
    assert scenario.data == data


def test_none_overrides_are_not_given():
    scenario = Scenario(minimal(), dict(
        (key, None) for key in ('user_count', 'operation_count',
                                'run_seconds', 'container_count',
                                'delete_after', 'policy', 'block_size')))
    assert (scenario.user_count, scenario.operation_count) == (4, 500)


@pytest.mark.parametrize('file_ops,file_secs,cli_ops,cli_secs,expect', [
    # run_seconds beats operation_count at each level ...
    (500, 60, None, None, (None, 60)),
    (500, None, None, None, (500, None)),
    (None, 60, None, None, (None, 60)),
    (500, 60, 7, 9, (None, 9)),
    # ... and any command-line value beats both file values.
    (500, 60, 7, None, (7, None)),
    (500, None, None, 9, (None, 9)),
    (None, 60, 7, None, (7, None)),
    (None, 60, None, 2.5, (None, 2.5)),
])
def test_run_seconds_and_operation_count_precedence(
        file_ops, file_secs, cli_ops, cli_secs, expect):
    data = minimal(operation_count=file_ops, run_seconds=file_secs)
    scenario = Scenario(data, {'operation_count': cli_ops,
                               'run_seconds': cli_secs})
    assert (scenario.operation_count, scenario.run_seconds) == expect


def test_run_seconds_may_be_fractional():
    assert Scenario(minimal(
        run_seconds=0.5)).run_seconds == 0.5


def test_losing_file_count_is_still_validated():
    with pytest.raises(ScenarioError):
        Scenario(minimal(operation_count=-1, run_seconds=10))


# -- containers ----------------------------------------------------------

def test_container_names():
    scenario = Scenario(minimal(container_count=3))
    assert list(scenario.containers) == ['ssbench_000000_default_policy',
                                         'ssbench_000001_default_policy',
                                         'ssbench_000002_default_policy']
    assert scenario.container_name(61) == 'ssbench_000061_default_policy'


def test_container_names_are_made_on_demand():
    scenario = Scenario(minimal(container_count=1000000))
    names = scenario.containers
    assert len(names) == 1000000
    assert names[999999] == 'ssbench_999999_default_policy'
    assert names[-1] == names[999999]
    assert names[0] == 'ssbench_000000_default_policy'
    with pytest.raises(IndexError):
        names[1000000]
    with pytest.raises(IndexError):
        names[-1000001]


def test_container_names_with_base_and_policy():
    scenario = Scenario(minimal(container_base='bench'),
                        {'policy': 'ec', 'container_count': 2})
    assert list(scenario.containers) == ['bench_000000_ec',
                                         'bench_000001_ec']
    scenario = Scenario(minimal(policy='gold', container_count=1))
    assert list(scenario.containers) == ['ssbench_000000_gold']


def test_containers_named_by_another_protocol():
    # S3's buckets (ssbench.s3.buckets): named from the same three parts.
    scenario = Scenario(minimal(container_base='Bench', container_count=2))
    scenario.name_containers(
        lambda base, index, label: '%s-%d-%s' % (base.lower(), index, label))
    assert list(scenario.containers) == ['bench-0-default_policy',
                                         'bench-1-default_policy']
    assert scenario.container_name(7) == 'bench-7-default_policy'


# -- sizes ------------------------------------------------------------

def test_sizes_in_file_order_with_effective_profiles():
    scenario = load_scenario(VERY_SMALL)
    assert [(s.name, s.initial_count) for s in scenario.sizes] == [
        ('zero', 300), ('tiny', 100), ('small', 10)]
    assert scenario.size('small').crud_profile == (10, 75, 15, 0)
    assert scenario.size('zero').crud_profile == (60, 15, 20, 5)
    assert scenario.size('tiny').size_min == 4096
    assert scenario.max_initial_count == 300


# -- stats header round trip ---------------------------------------------

def test_stats_header():
    scenario = load_scenario(VERY_SMALL, {'user_count': 8, 'run_seconds': 30,
                                          'container_count': 10})
    header = scenario.stats_header()
    assert header == {
        '_scenario_data': scenario.data,
        'name': 'Small test scenario',
        'version': ssbench.version,
        'user_count': 8,
        'operation_count': None,
        'run_seconds': 30,
        'container_base': 'ssbench',
        'container_count': 10,
        'container_concurrency': 10,
        'delete_after': None,
    }
    # The file's JSON, not the overrides, is what gets stored.
    assert header['_scenario_data']['user_count'] == 4
    assert scenario.stats_header('0.3.9')['version'] == '0.3.9'


# -- canned scenarios ----------------------------------------------------

CANNED = sorted(glob.glob(os.path.join(SCENARIOS, '*.scenario')) +
                glob.glob(os.path.join(SCENARIOS, '*', '*.scenario')))


@pytest.mark.parametrize('path', CANNED, ids=[os.path.relpath(p, SCENARIOS)
                                              for p in CANNED])
def test_canned_scenario_loads(path):
    scenario = load_scenario(path)
    assert (scenario.operation_count is None) != (scenario.run_seconds is None)


# -- the object form of crud_profile and the listing key -------------------

def test_object_profile_weighs_head_and_list_beside_crud():
    data = minimal(crud_profile={'CREATE': 10, 'READ': 60, 'UPDATE': 5,
                                 'DELETE': 5, 'HEAD': 15, 'LIST': 5})
    data['sizes'][0]['crud_profile'] = {'HEAD': 1}
    scenario = Scenario(data)
    assert scenario.crud_profile == (10, 60, 5, 5, 15, 5)
    assert scenario.size('tiny').crud_profile == (10, 60, 5, 5, 15, 5)
    assert scenario.size('zero').crud_profile == (0, 0, 0, 0, 1, 0)


def test_list_profile_stays_four_weights():
    assert Scenario(minimal()).crud_profile == (10, 75, 15, 0)


@pytest.mark.parametrize('profile, fragment', [
    ({'READ': 1, 'GET': 1}, '"crud_profile" has no operation "GET"; it '
     'weighs CREATE, READ, UPDATE, DELETE, HEAD, LIST'),
    ({'HEAD': -1}, '"crud_profile": "HEAD" must be a non-negative number, '
     'not -1'),
    ({'LIST': True}, '"LIST" must be a non-negative number, not true'),
    ({'HEAD': 2 * 10 ** 9}, 'each weight must be at most 1000000000'),
    ({'HEAD': 0}, '"crud_profile" is all zero but size "tiny" uses it'),
    ([1, 2, 3], 'not [1, 2, 3] (or an object of weights'),
])
def test_bad_object_profiles_fail_in_one_line(profile, fragment):
    with pytest.raises(ScenarioError) as info:
        Scenario(minimal(crud_profile=profile), source='s.scenario')
    assert fragment in str(info.value)
    assert '\n' not in str(info.value)


def test_listing_defaults_and_values():
    assert Scenario(minimal()).listing == (100, None)
    assert Scenario(minimal(listing={'limit': 7, 'prefix': 'tiny_0000'})
                    ).listing == (7, 'tiny_0000')
    assert Scenario(minimal(listing={'limit': 10000})).listing == (
        10000, None)


@pytest.mark.parametrize('listing, fragment', [
    ([100], '"listing" must be an object such as {"limit": 100, '),
    ({'limit': 0}, '"listing": "limit" must be an integer >= 1, not 0'),
    ({'limit': 10001}, '"listing": "limit" must be at most 10000'),
    ({'prefix': ''}, '"listing": "prefix" must be a non-empty string or '
     'null, not ""'),
    ({'marker': 'x'}, '"listing" has no key "marker"; it takes "limit" '
     'and "prefix"'),
])
def test_bad_listing_fails_in_one_line(listing, fragment):
    with pytest.raises(ScenarioError) as info:
        Scenario(minimal(listing=listing), source='s.scenario')
    assert fragment in str(info.value)


# -- text JSON takes but no path, header or msgpack can (issue 50) -------

def _from_json(text):
    """A scenario from JSON text: "\\ud800" arrives as a lone surrogate
    on both interpreters."""
    return Scenario(parse_json(text, 'x.scenario'), source='x.scenario')


@pytest.mark.parametrize('change, where', [
    ({'name': 'a\\ud800b'}, '"name"'),
    ({'name': 'a\\udfffb'}, '"name"'),
    ({'container_base': 'ssb\\u0000x'}, '"container_base"'),
    ({'policy': '\\udc80gold'}, '"policy"'),
    ({'listing': {'prefix': 'p\\ud83d'}}, '"prefix"'),
])
def test_text_no_encoding_takes_is_refused(change, where):
    text = json.dumps(minimal(**change)).replace('\\\\u', '\\u')
    with pytest.raises(ScenarioError) as info:
        _from_json(text)
    message = '%s' % (info.value,)
    assert where in message and '\n' not in message
    assert 'lone surrogate' in message or 'NUL character' in message
    assert info.value.exit_status == 2
    message.encode('utf-8')


def test_a_size_name_with_a_lone_surrogate_is_refused():
    data = minimal()
    data['sizes'][1]['name'] = 'ti\\udbffny'
    data['initial_files'] = {'zero': 30, 'ti\\udbffny': 10}
    text = json.dumps(data).replace('\\\\u', '\\u')
    with pytest.raises(ScenarioError) as info:
        _from_json(text)
    assert 'sizes[1]: "name" must be text without a lone surrogate' in \
        '%s' % (info.value,)


def test_a_pair_of_surrogates_is_one_character_and_fine():
    text = json.dumps(minimal(name='smile \\ud83d\\ude00')).replace(
        '\\\\u', '\\u')
    assert _from_json(text).name == u'smile \U0001f600'


def test_a_rate_too_low_to_end_is_refused():
    with pytest.raises(ScenarioError) as info:
        Scenario(minimal(rate=1e-300), source='x.scenario')
    assert '"rate" must be at least 0.001, not 1e-300' in \
        '%s' % (info.value,)
    assert Scenario(minimal(rate=0.001), source='x.scenario').rate == 0.001

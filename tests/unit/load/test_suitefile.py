from __future__ import absolute_import, division, print_function

import io
import json
import os

import pytest

from ssbench.compat import PY2
from ssbench.load import suitefile
from ssbench.load.suitefile import SuiteError, load_suite, parse_suite


def parse(data, folder='/suites'):
    return parse_suite(data, 'curve.suite', 'curve', folder)


def mistakes(data):
    with pytest.raises(SuiteError) as info:
        parse(data)
    assert info.value.exit_status == 2
    return info.value.lines


def test_steps_take_the_defaults_and_their_own_settings():
    suite = parse({'name': 'Read curve',
                   'defaults': {'scenario': 'small.scenario',
                                'operation_count': 2000},
                   'steps': [{'user_count': 8},
                             {'user_count': 16, 'rate': 400,
                              'scenario': '/abs/big.scenario'}]})
    assert suite.name == 'Read curve'
    assert [(s.number, s.scenario, list(s.settings.items()))
            for s in suite.steps] == [
        (1, '/suites/small.scenario',
         [('user_count', 8), ('operation_count', 2000)]),
        (2, '/abs/big.scenario',
         [('user_count', 16), ('operation_count', 2000), ('rate', 400)])]
    # Labelled by what differs: the scenario, the users and the rate.
    assert [s.label() for s in suite.steps] == ['small.u8',
                                                'big.u16.rate400']
    assert suitefile.StepPlan(1, 'x', suite.steps[1].settings).label() == \
        'u16.o2000.rate400'


def test_a_sweep_makes_each_step_once_per_combination():
    suite = parse({'defaults': {'scenario': 's.scenario'},
                   'sweep': {'rate': '100:400:x2', 'user_count': [4, 8]}})
    assert suite.name == 'curve'
    assert [s.label() for s in suite.steps] == [
        'u4.rate100', 'u4.rate200', 'u4.rate400',
        'u8.rate100', 'u8.rate200', 'u8.rate400']
    assert [s.number for s in suite.steps] == [1, 2, 3, 4, 5, 6]


def test_a_sweep_of_scenarios():
    suite = parse({'sweep': {'scenario': ['a.scenario', 'b.scenario']}})
    assert [s.scenario for s in suite.steps] == ['/suites/a.scenario',
                                                 '/suites/b.scenario']


def test_every_mistake_is_one_line_naming_where():
    lines = mistakes({'nme': 'x',
                      'defaults': {'users': 8, 'user_count': 0},
                      'steps': [{'rate': -1}, 'u8', {'policy': ''}],
                      'sweep': {'batch_size': '1:4:x1', 'seed': [1],
                                'run_seconds': 'abc'}})
    assert lines == [
        'curve.suite: unknown key "nme" (known: name, defaults, steps, '
        'sweep)',
        'curve.suite: defaults: "user_count" must be an integer >= 1, '
        'not 0',
        'curve.suite: defaults: unknown setting "users" (known: scenario, '
        'user_count, operation_count, run_seconds, rate, container_count, '
        'batch_size, policy, delete_after)',
        'curve.suite: steps[0]: "rate" must be a number > 0, not -1',
        'curve.suite: steps[1] must be an object of settings, not "u8"',
        'curve.suite: steps[2]: "policy" must be a non-empty string, '
        'not ""',
        "curve.suite: sweep: \"run_seconds\": 'abc' is not a number",
        "curve.suite: sweep: \"batch_size\": '1:4:x1': the factor must be "
        "more than 1",
        'curve.suite: sweep: unknown setting "seed" (known: scenario, '
        'user_count, operation_count, run_seconds, rate, container_count, '
        'batch_size, policy, delete_after)']
    assert all('\n' not in line for line in lines)


def test_a_swept_value_the_setting_refuses_is_named():
    lines = mistakes({'defaults': {'scenario': 's'},
                      'sweep': {'user_count': '0:8:+4'}})
    assert lines == ['curve.suite: sweep: "user_count": a value must be '
                     'an integer >= 1, not 0']


@pytest.mark.parametrize('swept', ['1,inf', 'inf:10:x2', 'nan'])
def test_a_swept_infinity_or_nan_is_refused_in_one_line(swept):
    # int(inf) raised OverflowError here once: a traceback, not a line.
    lines = mistakes({'defaults': {'scenario': 's'},
                      'sweep': {'user_count': swept}})
    assert len(lines) == 1 and lines[0].startswith(
        'curve.suite: sweep: "user_count": a value must be an integer >= 1')


def test_a_step_without_a_scenario_is_refused():
    assert mistakes({'steps': [{'user_count': 4}]}) == [
        'curve.suite: steps[0]: no "scenario" (give it in the step or in '
        '"defaults")']


@pytest.mark.parametrize('data, line', [
    ([], 'curve.suite: must contain a JSON object, not []'),
    ({'steps': []}, 'curve.suite: "steps" must be a non-empty list of '
     'objects, not []'),
    ({'sweep': []}, 'curve.suite: "sweep" must be an object of settings, '
     'not []'),
    ({'defaults': {'scenario': 's'}, 'sweep': {'user_count': [],
                                               'rate': 7}},
     'curve.suite: sweep: "user_count" must be a non-empty list of values '
     'or a sweep such as "8:64:x2", not []'),
])
def test_a_wrong_shape_is_named(data, line):
    assert mistakes(data)[0] == line


def test_too_many_steps_are_refused():
    lines = mistakes({'defaults': {'scenario': 's'},
                      'sweep': {'user_count': '1:100:+1',
                                'rate': '1:11:+1'}})
    assert lines == ['curve.suite: the sweeps make 1100 steps, more than '
                     '1000']


def test_many_mistakes_are_cut_with_a_count():
    lines = mistakes({'steps': [{'user_count': 0}] * 25})
    assert len(lines) == suitefile.MAX_LINES + 1
    assert lines[-1] == 'curve.suite: and 5 more mistakes'


def test_a_suite_file_on_disk(tmpdir):
    path = os.path.join(str(tmpdir), 'my.suite')
    with io.open(path, 'w', encoding='utf-8') as fp:
        fp.write(u'%s' % json.dumps({'defaults': {'scenario': 'x.scenario'},
                                     'sweep': {'user_count': '8,16'}}))
    suite = load_suite(path)
    assert suite.name == 'my'
    assert suite.steps[0].scenario == os.path.join(str(tmpdir),
                                                   'x.scenario')


def test_a_suite_file_that_is_no_json_says_where(tmpdir):
    path = os.path.join(str(tmpdir), 'bad.suite')
    with io.open(path, 'w', encoding='utf-8') as fp:
        fp.write(u'{"steps": [\n  {"user_count": 8,}\n]}')
    with pytest.raises(suitefile.ScenarioError) as info:
        load_suite(path)
    assert ('%s' % (info.value,)).startswith(
        '%s: line 2 column ' % (path,))


# -- text JSON takes but no path, header or msgpack can (issue 50) -------

def _suite_json(text):
    from ssbench.load.scenariocheck import parse_json
    return parse(parse_json(text, 'curve.suite'))


def test_a_suite_name_with_a_lone_surrogate_is_refused():
    with pytest.raises(SuiteError) as info:
        _suite_json('{"name": "curve\\ud800", "defaults": '
                    '{"scenario": "a.scenario"}}')
    assert info.value.lines == [
        'curve.suite: "name": the name must be text without a lone '
        'surrogate, not "curve\\ud800"']


def test_a_nul_in_a_step_s_scenario_path_is_refused():
    with pytest.raises(SuiteError) as info:
        _suite_json('{"steps": [{"scenario": "a\\u0000.scenario"}]}')
    assert info.value.lines == [
        'curve.suite: steps[0]: "scenario" must be text without a NUL '
        'character, not "a\\u0000.scenario"']


def test_a_rate_too_low_to_end_is_refused_in_a_step_and_a_sweep():
    lines = mistakes({'defaults': {'scenario': 'a.scenario'},
                      'steps': [{'rate': 1e-300}],
                      'sweep': {'rate': '1e-9:1:x10'}})
    assert len(lines) == 2
    assert all('must be at least 0.001' in line for line in lines), lines


@pytest.mark.skipif(PY2, reason='Python 2 holds a file name as its bytes')
def test_a_file_name_that_is_no_utf8_names_a_step_in_text():
    # Python 3 holds the byte 0xff of a file name as '\udcff', which no
    # stats header could store: a suite of two -f files failed after its
    # first step.
    step = suitefile.StepPlan(2, u'/s/a\udcff.scenario', {},
                              shown=['scenario'])
    assert step.label() == u'a\ufffd'
    step.label().encode('utf-8')
    assert suitefile.file_stem(u'/s/b\ud800.suite') == u'b?'
    assert suitefile.file_stem(u'/s/read.suite') == u'read'

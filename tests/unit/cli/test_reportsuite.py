"""report-scenario on a run-suite folder, through the real CLI
(in-process main()): the table again from the steps' stats files, the
comparison of two suites, --json and --slo, and bad suite files."""
from __future__ import absolute_import, division, print_function

import io
import json
import os

import pytest

from ssbench.cli import master as cli
from tests import paths
from tests.suitefiles import (make_suite, suite_mark, with_header,
                              write_suite_json)

SWIFT = os.path.join(paths.GOLDEN, 'swift_u8_o2000_c10.stat.gz')
NOOP = os.path.join(paths.GOLDEN, 'noop_u4_w1_b1.run1.stat.gz')


def main(capsys, *argv):
    status = cli.main(['report-scenario'] + list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_a_suite_folder_gives_the_suite_table_again(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT, NOOP], moved=True)
    status, out, err = main(capsys, '-s', folder)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == 'Suite "curve": 2 steps'
    assert lines[2].split()[:3] == ['1', 'u4', 'closed']
    assert lines[3].split()[:3] == ['2', 'u8', 'closed']


def test_the_summary_of_a_suite_is_a_line_per_step(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT, NOOP], moved=True)
    status, out, err = main(capsys, '-s', folder, '--summary')
    assert status == 0, err
    assert out == (
        'Step 1 (u4): 2000 requests, 143.6 req/s, p50 49.0 ms, p99 117 ms, '
        'p99.9 171 ms, 0 errors (0.00%), 0.06 MB/s, client unknown\n'
        'Step 2 (u8): 30000 requests, 9187.0 req/s, p50 -, p99 -, p99.9 -, '
        '0 errors (0.00%), 4.27 MB/s, client unknown\n')


def test_the_json_of_a_suite_has_each_step_figures(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT])
    path = str(tmpdir.join('out.json'))
    status, out, err = main(capsys, '-s', os.path.join(folder, 'suite.json'),
                            '--json', path)
    assert status == 0, err
    with io.open(path, encoding='utf-8') as handle:
        doc = json.load(handle)
    total = doc['steps'][0]['figures']['operations']['total']
    assert total['count'] + total['errors'] == 2000


def test_two_suites_side_by_side(tmpdir, capsys):
    base = make_suite(str(tmpdir.join('base')), [SWIFT, SWIFT], name='old')
    this = make_suite(str(tmpdir.join('this')), [SWIFT, NOOP], name='new')
    status, out, err = main(capsys, '-s', this, '--compare', base)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == 'Suite "new" against the base suite "old"'
    assert lines[2].split()[4] == '+0.0%'
    assert lines[3].split()[4].startswith('+')     # noop is faster


def test_a_missed_objective_names_the_step_and_exits_3(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT, SWIFT])
    status, out, err = main(capsys, '-s', folder, '--slo', 'p99<1us')
    assert status == 3, err
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert [line.split(':')[1] for line in lines] == ['step 1', 'step 2']


@pytest.mark.parametrize('content, fragment', [
    (u'{"format": "ssbench-suite"', 'not a suite file'),
    (u'{"format": "other", "steps": []}', 'not a run-suite suite.json'),
    (u'{"format": "ssbench-suite", "format_version": 1, "name": "x", '
     u'"steps": [{"step": "1"}]}', 'steps[0].step must be 1'),
])
def test_a_bad_suite_file_is_one_line(tmpdir, capsys, content, fragment):
    folder = str(tmpdir.join('s'))
    os.makedirs(folder)
    with io.open(os.path.join(folder, 'suite.json'), 'w',
                 encoding='utf-8') as handle:
        handle.write(content)
    status, out, err = main(capsys, '-s', folder)
    assert status == 1
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert len(lines) == 1 and fragment in lines[0], err


def test_a_folder_without_a_suite_is_one_line(tmpdir, capsys):
    status, out, err = main(capsys, '-s', str(tmpdir))
    assert status == 1
    assert 'a folder without suite.json' in err


@pytest.mark.parametrize('argv', [['--csv'], ['--hdr-log', 'x.hlog']])
def test_run_only_outputs_are_refused_for_a_suite(tmpdir, capsys, argv):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT])
    status, out, err = main(capsys, '-s', folder, *argv)
    assert status == 2
    assert "report a step's stats file for -r, --csv" in err
    assert not os.path.exists('x.hlog')


def step_entry(**changes):
    entry = {'step': 1, 'label': 'u4', 'scenario': 'x.scenario',
             'settings': {}, 'stats_file': None, 'complete': True}
    entry.update(changes)
    return entry


@pytest.mark.parametrize('changes, fragment', [
    ({'name': 5}, 'name must be a string, not 5'),
    ({'format_version': 2}, 'format_version must be 1, not 2'),
    ({'steps': {}}, 'steps must be a non-empty list, not {}'),
    ({'steps': ['x']}, 'steps[0] must be an object, not "x"'),
    ({'steps': [step_entry(step=True)]}, 'steps[0].step must be 1'),
    ({'steps': [step_entry(step=2)]}, 'steps[0].step must be 1'),
    ({'steps': [step_entry(label=7)]},
     'steps[0].label must be a string, not 7'),
    ({'steps': [step_entry(), step_entry(step=2, complete='yes')]},
     'steps[1].complete must be true or false, not "yes"'),
    ({'steps': [step_entry(stats_file=[])]},
     'steps[0].stats_file must be a string or null, not []'),
    ({'steps': [step_entry(settings={'user_count': [1]})]},
     'steps[0].settings must be an object of numbers and strings'),
    ({'steps': [{'step': 1, 'label': 'u4'}]}, 'steps[0] has no "scenario"'),
    ({'steps': [step_entry(html=5)]}, 'steps[0].html must be a string'),
    ({'search': 'x'}, 'search must be an object, not "x"'),
    ({'search': {'summary': 3}}, 'search.summary must be a string, not 3'),
])
def test_each_odd_type_in_suite_json_is_one_line_naming_it(
        tmpdir, capsys, changes, fragment):
    folder = str(tmpdir.join('s'))
    os.makedirs(folder)
    doc = {'format': 'ssbench-suite', 'format_version': 1, 'name': 'x',
           'steps': [step_entry()]}
    doc.update(changes)
    write_suite_json(folder, doc)
    status, out, err = main(capsys, '-s', folder)
    assert status == 1, err
    lines = err.splitlines()
    assert len(lines) == 1 and fragment in lines[0], err
    assert 'unexpected error' not in err


def edit_suite_json(folder, edit):
    path = os.path.join(folder, 'suite.json')
    with io.open(path, encoding='utf-8') as handle:
        doc = json.load(handle)
    edit(doc)
    write_suite_json(folder, doc)


def test_figures_edited_into_suite_json_are_not_printed(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT])

    def edit(doc):
        doc['steps'][0]['figures'] = {
            'offered': None, 'health': 'ok', 'operations': {'total': {
                'count': 5, 'errors': -5, 'error_share': -1.0,
                'req_per_s': 99999.0, 'latency': {}, 'MB_per_second': 1}}}
        doc['steps'][0]['steady'] = {'steady': True, 'after': 1}
    edit_suite_json(folder, edit)
    status, out, err = main(capsys, '-s', folder)
    assert status == 0, err
    assert '99999' not in out and '-5' not in out and 'steady' not in out
    row = out.splitlines()[2].split()
    assert row[:3] == ['1', 'u4', 'closed'] and float(row[3]) > 0


@pytest.mark.parametrize('mark, fragment', [
    (suite_mark('other', 1, 'u4', 1), 'is of step 1 of suite "other"'),
    (suite_mark('curve', 2, 'u4', 2), 'is of step 2 of suite "curve"'),
    (suite_mark('curve', 1, 'u4', 1, suite_id='beef'),
     '(another run of it)'),
    (None, 'names no suite'),
])
def test_another_runs_stats_file_is_refused_as_a_step(tmpdir, capsys, mark,
                                                      fragment):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT], marks=[mark])
    status, out, err = main(capsys, '-s', folder)
    assert status == 2, err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert 'not the stats file of step 1 of suite "curve"' in lines[0]
    assert fragment in lines[0]
    assert out == ''


def test_a_stats_file_outside_the_suite_folder_is_refused(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT])
    stray = with_header(SWIFT, str(tmpdir.join('curve.01.u4.stat.gz')),
                        suite=suite_mark('curve', 1, 'u4', 1))

    def edit(doc):
        doc['steps'][0]['stats_file'] = '/etc/passwd'
    edit_suite_json(folder, edit)
    status, out, err = main(capsys, '-s', folder)
    assert status == 2, err
    assert 'steps[0].stats_file "/etc/passwd" is not the stats file of ' \
        'step 1 (curve.01.u4.stat.gz in the suite\'s folder)' in err
    assert len(err.splitlines()) == 1
    os.remove(os.path.join(folder, 'curve.01.u4.stat.gz'))

    def elsewhere(doc):
        doc['steps'][0]['stats_file'] = stray
    edit_suite_json(folder, elsewhere)
    status, out, err = main(capsys, '-s', folder)
    # The file is taken from the suite's folder only: none there.
    assert status == 0, err
    assert out.splitlines()[2].split() == ['1', 'u4', 'no', 'results']


def test_suite_json_nested_beyond_any_suite_is_one_line(tmpdir, capsys):
    folder = str(tmpdir.join('s'))
    os.makedirs(folder)
    with io.open(os.path.join(folder, 'suite.json'), 'w',
                 encoding='utf-8') as handle:
        handle.write(u'[' * 100000 + u']' * 100000)
    status, out, err = main(capsys, '-s', folder)
    assert status == 1
    assert err.splitlines() == ['ERROR:%s: not a suite file: nested too '
                                'deeply' % (os.path.join(folder,
                                                         'suite.json'),)]

"""report-scenario on a run-suite folder, through the real CLI
(in-process main()): the table again from the steps' stats files, the
comparison of two suites, --json and --slo, and bad suite files."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import shutil

import pytest

from ssbench.cli import master as cli
from tests import paths

SWIFT = os.path.join(paths.GOLDEN, 'swift_u8_o2000_c10.stat.gz')
NOOP = os.path.join(paths.GOLDEN, 'noop_u4_w1_b1.run1.stat.gz')


def main(capsys, *argv):
    status = cli.main(['report-scenario'] + list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def make_suite(folder, stats_files, name='curve', moved=False):
    """A suite folder as run-suite leaves it, with copies of
    `stats_files` as its steps (named where they were run, elsewhere
    when `moved`)."""
    os.makedirs(folder)
    steps = []
    for number, source in enumerate(stats_files, 1):
        target = os.path.join(folder, '%s.%02d.u%d.stat.gz' % (
            name, number, 4 * number))
        shutil.copy(source, target)
        where = os.path.join('/elsewhere', os.path.basename(target)) \
            if moved else target
        steps.append({'step': number, 'label': 'u%d' % (4 * number),
                      'scenario': 'x.scenario', 'settings': {},
                      'stats_file': where, 'complete': True})
    with io.open(os.path.join(folder, 'suite.json'), 'w',
                 encoding='utf-8') as handle:
        handle.write(u'%s' % json.dumps({
            'format': 'ssbench-suite', 'format_version': 1, 'name': name,
            'steps': steps}))
    return folder


def test_a_suite_folder_gives_the_suite_table_again(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT, NOOP], moved=True)
    status, out, err = main(capsys, '-s', folder)
    assert status == 0, err
    lines = out.splitlines()
    assert lines[0] == 'Suite "curve": 2 steps'
    assert lines[2].split()[:3] == ['1', 'u4', 'closed']
    assert lines[3].split()[:3] == ['2', 'u8', 'closed']


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
    (u'{"format": "ssbench-suite", "steps": [{"step": "1"}]}',
     'not a run-suite suite.json'),
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


def test_run_only_outputs_are_refused_for_a_suite(tmpdir, capsys):
    folder = make_suite(str(tmpdir.join('s')), [SWIFT])
    status, out, err = main(capsys, '-s', folder, '--csv')
    assert status == 2
    assert "report a step's stats file for -r, --csv" in err

"""Bad stats files, data-driven (tests/data/bad/stats_cases.json): every
bad value is one "not a valid ssbench stats file" line naming the file,
exit status 1 and no output file, in every report output; results far
outside the run and a run that ended early are one warning each, and the
report of the rest.  --fail-if and --compare on their edge cases.

Each case runs `ssbench-master report-scenario`'s main() in this process
(the `cli` fixture); the memory bound is a real process's."""
from __future__ import absolute_import, division, print_function

import io
import json
import os

import pytest

from ssbench.wire import protocol
from tests import paths
from tests.clirun import MASTER, check, error_lines

# A main() that hangs is bounded as the process of each case was.
pytestmark = pytest.mark.timeout(120)

CASES = json.load(io.open(os.path.join(paths.DATA, 'bad',
                                       'stats_cases.json'),
                          encoding='utf-8'))
START = 1795317000.25
RESULTS = 200

SCENARIO = {'name': 'bad values', 'sizes': [
    {'name': 'tiny', 'size_min': 1, 'size_max': 9}],
    'initial_files': {'tiny': 10}, 'crud_profile': [1, 1, 1, 1],
    'user_count': 2, 'operation_count': RESULTS}


def header(**changes):
    values = {'_scenario_data': SCENARIO, 'name': 'bad values',
              'version': '0.4.0', 'user_count': 2,
              'operation_count': RESULTS, 'run_seconds': None,
              'delete_after': None}
    values.update(changes)
    return values


def result(i, **changes):
    record = {'type': 'get_object', 'size_str': 'tiny', 'worker_id': i % 2,
              'completed_at': START + i, 'first_byte_latency': 0.01,
              'last_byte_latency': 0.02, 'trans_id': 'tx%d' % i,
              'retries': 0}
    record.update(changes)
    return record


def write_stats(path, head, results):
    with io.open(path, 'wb') as fp:
        fp.write(protocol.pack(head))
        for i in range(0, len(results), 10):
            fp.write(protocol.pack(results[i:i + 10]))
    return path


def case_file(directory, case):
    scenario = dict(SCENARIO, **case.get('scenario', {}))
    results = [result(i) for i in range(RESULTS)]
    results[RESULTS // 2].update(case.get('result', {}))
    return write_stats(os.path.join(directory, case['name'] + '.stat'),
                       header(**dict(case.get('header', {}),
                                     _scenario_data=scenario))
                       if '_scenario_data' not in case.get('header', {})
                       else header(**case['header']), results)


@pytest.fixture(scope='module')
def stats(tmpdir_factory):
    d = str(tmpdir_factory.mktemp('badstats'))
    files = dict((case['name'], case_file(d, case)) for case in CASES)
    clean = [result(i) for i in range(RESULTS)]
    files['clean'] = write_stats(os.path.join(d, 'clean.stat'), header(),
                                 clean)
    files['clean_copy'] = write_stats(os.path.join(d, 'clean_copy.stat'),
                                      header(), clean)
    files['strays'] = write_stats(
        os.path.join(d, 'strays.stat'), header(operation_count=RESULTS + 2),
        clean[:50] + [result(50, completed_at=5.0)] + clean[50:150] +
        [result(150, completed_at=START + 365 * 86400)] + clean[150:])
    files['ended_early'] = write_stats(
        os.path.join(d, 'ended_early.stat'),
        header(operation_count=RESULTS * 3), clean)
    files['one_second'] = write_stats(
        os.path.join(d, 'one_second.stat'), header(operation_count=RESULTS),
        [result(i, completed_at=START + i / 1000.0)
         for i in range(RESULTS)])
    files['dir'] = d
    return files


# The report outputs; {out} is a fresh folder, {clean} a good stats file.
OUTPUTS = [
    ('text', []),
    ('json', ['--json', '-']),
    ('csv and rps histogram', ['--csv', '-r', '{out}/rps.csv']),
    ('html', ['--html', '{out}/report.html']),
    ('compare', ['--compare', '{clean}']),
    ('compare as the base', None),
]
BAD_RUNS = [(case, output, flags) for case in CASES
            for output, flags in OUTPUTS if 'fragment' in case and (
                case.get('all_outputs') or output in ('text', 'json'))]
# A result with a bad value is left out with one warning (the header
# is fine): the report of the rest.
LEFT_OUT_RUNS = [(case, output, flags) for case in CASES
                 for output, flags in OUTPUTS if 'warning' in case and (
                     case.get('all_outputs') or output in ('text', 'json'))]


def report_args(path, flags, stats_files, out):
    if flags is None:
        return ['-s', stats_files['clean'], '--compare', path]
    return ['-s', path] + [flag.format(out=out, clean=stats_files['clean'])
                           for flag in flags]


@pytest.mark.parametrize('case, output, flags', BAD_RUNS,
                         ids=['%s, %s' % (c['name'], o)
                              for c, o, _ in BAD_RUNS])
def test_a_bad_value_is_one_line_in_every_output(cli, stats, tmpdir, case,
                                                 output, flags):
    path = stats[case['name']]
    args = report_args(path, flags, stats, str(tmpdir))
    got, out, err = cli(MASTER, ['report-scenario'] + args)
    check(got, err, 1, '%s: not a valid ssbench stats file: %s' % (
        path, case['fragment']))
    assert error_lines(err)[0].startswith('ERROR:%s: ' % (path,))
    assert 'unexpected error' not in err
    assert tmpdir.listdir() == []


@pytest.mark.parametrize('case, output, flags', LEFT_OUT_RUNS,
                         ids=['%s, %s' % (c['name'], o)
                              for c, o, _ in LEFT_OUT_RUNS])
def test_a_bad_result_value_is_left_out_with_one_warning(cli, stats, tmpdir,
                                                         case, output,
                                                         flags):
    path = stats[case['name']]
    args = report_args(path, flags, stats, str(tmpdir))
    got, out, err = cli(MASTER, ['report-scenario'] + args)
    assert got == 0 and not error_lines(err), err
    assert 'unexpected error' not in err and 'Traceback' not in err
    assert warnings(err) == ['WARNING:%s: %s' % (path, case['warning'])]


def test_the_corpus_covers_the_issue():
    names = set(case['name'] for case in CASES)
    assert set(['retries_string', 'retries_huge', 'intended_start_far',
                'sizes_not_list', 'last_byte_latency_bool',
                'completed_at_bool', 'time_to_failure_string',
                'time_to_failure_on_a_success']) <= names
    assert len(names) == len(CASES) >= 25


def warnings(err):
    return [line for line in err.splitlines() if 'WARNING' in line]


@pytest.mark.parametrize('flags', [[], ['--csv'], ['-r', '{out}/rps.csv'],
                                   ['--json', '-']])
def test_results_far_outside_the_run_are_left_out(cli, stats, tmpdir, flags):
    clean_dir = tmpdir.mkdir('clean')
    stray_dir = tmpdir.mkdir('strays')
    clean = cli(MASTER, ['report-scenario', '-s', stats['clean']] + [
        f.format(out=str(clean_dir)) for f in flags])
    got, out, err = cli(MASTER, [
        'report-scenario', '-s', stats['strays']] + [
        f.format(out=str(stray_dir)) for f in flags])
    assert (got, clean[0]) == (0, 0) and 'Traceback' not in err
    if flags[:1] == ['--json']:
        doc, want = json.loads(out), json.loads(clean[1])
        assert doc.pop('stats_file') == stats['strays']
        want.pop('stats_file')
        # The strays were operations of the run too.
        assert doc['header'].pop('operation_count') == RESULTS + 2
        want['header'].pop('operation_count')
        assert doc == want
    else:
        assert out == clean[1]
    if flags[:1] == ['-r']:
        assert stray_dir.join('rps.csv').read() == \
            clean_dir.join('rps.csv').read()
    lines = warnings(err)
    assert len(lines) == 1, err
    assert lines[0].startswith(
        'WARNING:%s: left out 2 results completed far outside the run '
        '(before ' % (stats['strays'],))


@pytest.mark.parametrize('flags', [[], ['--json', '-'], ['--csv']])
def test_a_run_that_ended_early_says_so(cli, stats, flags):
    got, out, err = cli(MASTER, ['report-scenario', '-s',
                                 stats['ended_early']] + flags)
    assert got == 0 and out
    assert warnings(err) == [
        'WARNING:%s: holds %d results of the %d operations its run asked '
        'for: the run ended early (a master stopped before the end?); the '
        'report is of those results' % (
            stats['ended_early'], RESULTS, RESULTS * 3)]


def test_a_truncated_file_says_so_once(cli, stats, tmpdir):
    path = str(tmpdir.join('cut.stat'))
    with io.open(stats['ended_early'], 'rb') as fp:
        data = fp.read()
    with io.open(path, 'wb') as fp:
        fp.write(data[:-5])     # mid-object: the master died writing
    got, out, err = cli(MASTER, ['report-scenario', '-s', path])
    assert got == 0 and 'TOTAL' in out
    lines = warnings(err)
    assert len(lines) == 1 and lines[0].startswith(
        'WARNING:%s: truncated (' % (path,)), err


@pytest.mark.parametrize('rule', ['p99.99>+10%', 'p100>+10%',
                                  'read.first_byte.p99_95>+1%'])
def test_a_percentile_rule_is_computed_on_request(cli, stats, rule):
    got, out, err = cli(MASTER, [
        'report-scenario', '-s', stats['clean'], '--compare',
        stats['clean_copy'], '--fail-if', rule])
    assert got == 0, err
    assert not error_lines(err)
    # The comparison shows the percentile it was asked for.
    assert rule.split('>')[0].split('.')[-1].replace('_', '.') in out


@pytest.mark.parametrize('rule, fragment', [
    (u'p\uff19\uff19>+10%', 'unknown metric'),
    (u'p99>+\uff11\uff10%', 'the change must look like +10% or -5%'),
    ('x' * 100000 + '>+1%', "bad --fail-if rule '%s...'" % ('x' * 57)),
    ('p99' + ' ' * 100000 + '>+1%x', 'the change must look like'),
])
def test_a_bad_rule_is_one_short_line(cli, stats, rule, fragment):
    if str is bytes:
        rule = rule.encode('utf-8')
    got, out, err = cli(MASTER, [
        'report-scenario', '-s', stats['clean'], '--compare',
        stats['clean_copy'], '--fail-if', rule])
    check(got, err, 2, fragment)
    assert len(err) < 400


def test_a_spread_from_one_second_is_unknown(cli, stats):
    got, out, err = cli(MASTER, [
        'report-scenario', '-s', stats['one_second'], '--compare',
        stats['clean']])
    assert got == 0, err
    assert 'per-second spread: base +/-0.0%, this run unknown' in out
    assert 'this run +/-0.0%' not in out

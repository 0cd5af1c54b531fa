"""report-scenario's outputs through the real CLI (in-process main()):
--json, --html, --hdr-log, --compare and --fail-if, on the 0.3.9 golden
stats files."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import shutil

import pytest

from ssbench.cli import master as cli
from tests import hdrlogs, paths

GOLDEN = paths.GOLDEN
SWIFT = os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz')
NOOP = os.path.join(GOLDEN, 'noop_u4_w1_b1.run1.stat.gz')


def have_plotly():
    try:
        import plotly  # noqa: F401
    except ImportError:
        return False
    return True


def main(capsys, *argv):
    status = cli.main(['report-scenario'] + list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def read_text(path):
    with io.open(path, encoding='utf-8') as fp:
        return fp.read()


def test_json_next_to_the_unchanged_text_report(tmpdir, capsys):
    path = str(tmpdir.join('run.json'))
    status, out, err = main(capsys, '-s', SWIFT, '--json', path)
    assert status == 0, err
    with io.open(os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'),
                 encoding='utf-8') as fp:
        assert out == fp.read()
    doc = json.loads(read_text(path))
    assert doc['format_version'] == 1
    total = doc['operations'][0]
    assert total['operation'] == 'total' and total['count'] == 2000
    assert doc['errors']['recorded'] is False


def test_json_dash_is_standard_output_instead_of_the_report(tmpdir,
                                                            capsys):
    with_file = str(tmpdir.join('run.json'))
    assert main(capsys, '-s', SWIFT, '--json', with_file)[0] == 0
    rps = str(tmpdir.join('rps.csv'))
    status, out, err = main(capsys, '-s', SWIFT, '--json', '-', '-r', rps)
    assert status == 0, err
    assert out == read_text(with_file)
    assert read_text(rps) == read_text(
        os.path.join(GOLDEN, 'swift_u8_o2000_c10.rps_histogram.csv'))
    assert not os.path.exists('-')
    report = str(tmpdir.join('report.txt'))
    status, out, err = main(capsys, '-s', SWIFT, '--json', '-', '-f', report)
    assert status == 0 and out == read_text(with_file)
    assert read_text(report) == read_text(
        os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'))


@pytest.mark.parametrize('argv', [['--errors'], ['--compare', SWIFT]])
def test_json_dash_shares_standard_output_with_nothing(capsys, argv):
    status, out, err = main(capsys, '-s', SWIFT, '--json', '-', *argv)
    assert (status, out) == (2, '')
    assert 'would share standard output' in err and 'Traceback' not in err


@pytest.mark.skipif(not have_plotly(), reason="needs ssbench[html] (plotly)")
def test_html_is_one_self_contained_page(tmpdir, capsys):
    path = str(tmpdir.join('run.html'))
    status, out, err = main(capsys, '-s', SWIFT, '--html', path, '-f',
                            os.devnull)
    assert status == 0, err
    page = read_text(path)
    assert page.startswith('<!DOCTYPE html>')
    assert 'Small test scenario' in page
    assert 'src="http' not in page and "src='http" not in page


def test_compare_replaces_the_report(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--compare', SWIFT)
    assert status == 0, err
    assert out.startswith('Comparison of two ssbench runs')
    assert 'Worst latency TX ID' not in out


def test_fail_if_passes_on_the_same_run(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--compare', SWIFT,
                            '--fail-if', 'p99>+10%,rps<-5%')
    assert status == 0, err
    assert 'ERROR' not in err


def test_a_crossed_threshold_exits_3_with_one_line_per_rule(capsys):
    # Against the noop run, the Swift run's throughput fell by 98%.
    status, out, err = main(capsys, '-s', SWIFT, '--compare', NOOP,
                            '--fail-if', 'rps<-5%,create.rps<-5%,p99>+1000%')
    assert status == 3, err
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert len(lines) == 3, err
    assert lines[0].startswith('ERROR:--fail-if rps<-5%: total requests/s')
    assert 'missing in the base run' in lines[2]


@pytest.mark.parametrize('argv, fragment', [
    (['--fail-if', 'p99>+10%'], 'needs --compare'),
    (['--compare', SWIFT, '--fail-if', 'p99>10%'], "'p99>10%'"),
    (['--compare', SWIFT, '--fail-if', ''], 'at least one rule'),
    (['--compare', '/nonexistent/base.stat'], '/nonexistent/base.stat'),
])
def test_bad_compare_usage_is_one_line(capsys, argv, fragment):
    status, out, err = main(capsys, '-s', SWIFT, *argv)
    assert status in (1, 2), err
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert len(lines) == 1 and fragment in lines[0], err
    assert 'Traceback' not in err


def test_outputs_may_not_replace_an_input(tmpdir, capsys):
    stats = str(tmpdir.join('s.stat.gz'))
    shutil.copy(SWIFT, stats)
    base = str(tmpdir.join('b.stat.gz'))
    shutil.copy(NOOP, base)
    for argv in (['--json', stats], ['--html', stats], ['--hdr-log', stats],
                 ['--compare', base, '--json', base],
                 ['--json', str(tmpdir.join('x')), '-r',
                  str(tmpdir.join('x'))]):
        with io.open(stats, 'rb') as fp:
            before = fp.read()
        status, out, err = main(capsys, '-s', stats, *argv)
        assert status == 2, (argv, err)
        with io.open(stats, 'rb') as fp:
            assert fp.read() == before
    assert sorted(os.listdir(str(tmpdir))) == ['b.stat.gz', 's.stat.gz']


def test_a_failing_analysis_writes_no_output(tmpdir, capsys):
    corrupt = tmpdir.join('corrupt.stat.gz')
    corrupt.write_binary(b'\x1f\x8b\x08junk')
    json_path = tmpdir.join('old.json')
    json_path.write('{"kept": true}')
    status, out, err = main(capsys, '-s', str(corrupt), '--json',
                            str(json_path), '--force')
    assert status == 1, err
    assert json_path.read() == '{"kept": true}'
    assert sorted(os.listdir(str(tmpdir))) == ['corrupt.stat.gz', 'old.json']


def test_errors_table_follows_the_unchanged_report(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--errors')
    assert status == 0, err
    with io.open(os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'),
                 encoding='utf-8') as fp:
        report = fp.read()
    assert out.startswith(report)
    assert out[len(report):] == '\nErrors by cause\n       No errors.\n'


def test_errors_table_is_not_for_csv(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--errors', '--csv')
    assert status == 2 and '--errors' in err and out == ''


def test_bandwidth_table_follows_the_unchanged_report(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--bandwidth', '--errors')
    assert status == 0, err
    with io.open(os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'),
                 encoding='utf-8') as fp:
        report = fp.read()
    assert out.startswith(report + '\nErrors by cause\n')
    tail = out[out.index('\nBandwidth (bytes of the successful'):]
    # The run's span to the precision of the records, not the "Ran" line's
    # whole seconds (13 s, from 13.034 s).
    assert "the run's 13.929 seconds)" in tail.splitlines()[1]
    assert tail.splitlines()[4].split() == [
        'TOTAL', '(all)', '837430', '0.06', '0.06']


@pytest.mark.parametrize('extra, words', [
    (['--csv'], '--bandwidth adds a table to the text report'),
    (['--json', '-'], 'would share standard output'),
])
def test_bandwidth_table_needs_the_text_report(capsys, extra, words):
    status, out, err = main(capsys, '-s', SWIFT, '--bandwidth', *extra)
    assert status == 2 and words in err and out == ''


GOOD_RECORD = {'type': 'get_object', 'size_str': 's', 'worker_id': 1,
               'completed_at': 1700000000.0, 'first_byte_latency': 0.1,
               'last_byte_latency': 0.2, 'trans_id': 'tx', 'retries': 0}


@pytest.mark.parametrize('bad', [
    {'completed_at': 'soon'}, {'completed_at': float('nan')},
    {'last_byte_latency': 'fast'}, {'retries': 'x'}],
    ids=['text time', 'nan time', 'text latency', 'text retries'])
@pytest.mark.parametrize('output', [[], ['--json', os.devnull]],
                         ids=['text', 'json'])
def test_corrupt_records_are_left_out_with_one_warning(tmpdir, capsys, bad,
                                                       output):
    from ssbench.wire import protocol
    path = str(tmpdir.join('hand-made.stat'))
    record = dict(GOOD_RECORD, **bad)
    with io.open(path, 'wb') as fp:
        fp.write(protocol.pack({'_scenario_data': {}, 'name': 'x'}))
        fp.write(protocol.pack([GOOD_RECORD, record]))
    status, out, err = main(capsys, '-s', path, '-f', os.devnull, *output)
    assert status == 0, err
    lines = [line for line in err.splitlines() if line.startswith('WARN')]
    assert len(lines) == 1, err
    assert lines[0].startswith('WARNING:%s: left out 1 result with a bad '
                               'value (the first: %s ' % (
                                   path, list(bad)[0])), err


def test_a_record_the_reports_cannot_read_is_one_line(tmpdir, capsys):
    from ssbench.wire import protocol
    path = str(tmpdir.join('hand-made.stat'))
    with io.open(path, 'wb') as fp:
        fp.write(protocol.pack({'_scenario_data': {}, 'name': 'x'}))
        fp.write(protocol.pack([GOOD_RECORD, dict(GOOD_RECORD,
                                                  worker_id=[1])]))
    status, out, err = main(capsys, '-s', path, '-f', os.devnull)
    assert status == 1, err
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert len(lines) == 1, err
    assert lines[0].startswith('ERROR:%s: not a valid ssbench stats file: '
                               'a result has a bad value' % path), err


def golden(name):
    return read_text(os.path.join(GOLDEN, 'swift_u8_o2000_c10.' + name))


def test_dash_is_standard_output_for_every_output(tmpdir, capsys):
    status, out, err = main(capsys, '-s', SWIFT, '-f', '-')
    assert (status, out) == (0, golden('report.txt')), err
    status, out, err = main(capsys, '-s', SWIFT, '-r', '-')
    assert (status, out) == (0, golden('rps_histogram.csv')), err
    if have_plotly():
        report = str(tmpdir.join('report.txt'))
        status, out, err = main(capsys, '-s', SWIFT, '--html', '-', '-f',
                                report)
        assert status == 0 and out.startswith('<!DOCTYPE html>'), err
        assert read_text(report) == golden('report.txt')
    assert os.listdir(str(tmpdir)) in ([], ['report.txt'])
    assert not os.path.exists('-')


@pytest.mark.parametrize('argv', [['-f', '-', '--json', '-'],
                                  ['-r', '-', '--html', '-'],
                                  ['--hdr-log', '-', '--json', '-'],
                                  ['--json', '-', '--html', '-']])
def test_one_output_at_most_on_standard_output(capsys, argv):
    status, out, err = main(capsys, '-s', SWIFT, *argv)
    assert (status, out) == (2, ''), err
    assert 'would share standard output' in err and 'Traceback' not in err


def test_an_existing_output_is_replaced_only_with_force(tmpdir, capsys):
    outputs = []
    for flag in ('-f', '-r', '--json', '--hdr-log'):
        path = tmpdir.join(flag.strip('-'))
        path.write_binary(b'precious')
        outputs.append((flag, str(path)))
        status, out, err = main(capsys, '-s', SWIFT, flag, str(path))
        assert (status, out) == (2, '')
        assert '%s: exists; choose another path or give --force' % path \
            in err
        assert path.read_binary() == b'precious'
    args = [arg for output in outputs for arg in output]
    status, out, err = main(capsys, '-s', SWIFT, '--force', *args)
    assert (status, out) == (0, ''), err
    assert tmpdir.join('f').read() == golden('report.txt')
    assert tmpdir.join('r').read() == golden('rps_histogram.csv')
    assert tmpdir.join('hdr-log').read().startswith('#[ssbench ')


@pytest.mark.parametrize('interval, lines', [
    ([], 14), (['--hdr-interval', '5'], 4)])
def test_hdr_log_of_a_0_3_9_stats_file(tmpdir, capsys, interval, lines):
    path = str(tmpdir.join('run.hlog'))
    json_path = str(tmpdir.join('run.json'))
    status, out, err = main(capsys, '-s', SWIFT, '--hdr-log', path,
                            '--json', json_path, *interval)
    assert (status, out) == (0, golden('report.txt')), err
    comments, read = hdrlogs.read_log(read_text(path))
    assert comments[2].startswith('#[StartTime: 17953178')
    counts = {}
    for line in read:
        counts[line.tag] = counts.get(line.tag, 0) + sum(line.hist.counts)
    doc = json.loads(read_text(json_path))
    assert counts == dict(
        [(None if op['operation'] == 'total' else op['operation'].upper(),
          op['latency']['last_byte'][0]['count'])
         for op in doc['operations']] +
        [('READ-first-byte', doc['operations'][2]['latency']['first_byte']
          [0]['count'])])
    assert len(read) == lines * 6
    assert set(line.length for line in read) == set([
        float(interval[1]) if interval else 1.0])


def test_hdr_log_dash_is_standard_output_instead_of_the_report(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--hdr-log', '-')
    assert status == 0, err
    assert len(hdrlogs.read_log(out)[1]) == 14 * 6


def test_hdr_interval_needs_hdr_log(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--hdr-interval', '5')
    assert (status, out) == (2, '')
    assert err == 'ERROR:--hdr-interval needs --hdr-log FILE\n'


def test_files_are_written_before_the_report_is_printed(capsys):
    if not os.path.exists('/dev/full'):
        pytest.skip('needs /dev/full')
    status, out, err = main(capsys, '-s', SWIFT, '--json', '/dev/full')
    assert (status, out) == (1, '')
    assert err == ('ERROR:cannot write JSON file /dev/full: No space left '
                   'on device\n')


def test_slo_met_keeps_the_report_and_exit_0(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--slo',
                            'p99<100s,errors<100%,rps>1')
    assert status == 0, err
    assert 'ERROR' not in err
    with io.open(os.path.join(GOLDEN, 'swift_u8_o2000_c10.report.txt'),
                 encoding='utf-8') as fp:
        assert out == fp.read()


def test_a_missed_slo_exits_3_with_one_line_per_objective(capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--slo',
                            'p99<1us,read.p99.9<100s,delete.max<1us,'
                            'rps>1000000')
    assert status == 3, err
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert [line.split(':')[1] for line in lines] == [
        '--slo p99<1us', '--slo delete.max<1us', '--slo rps>1000000'], err
    assert 'total last-byte p99 is ' in lines[0]
    assert out     # the report is still printed


def test_slo_judges_a_percentile_beyond_the_analysis_own(capsys):
    # p99.95 of the 2000 results: the most the file can judge.
    status, out, err = main(capsys, '-s', SWIFT, '--slo', 'p99.95<1us')
    assert status == 3, err
    assert 'total last-byte p99.95 is ' in err


@pytest.mark.parametrize('argv, fragment', [
    (['--slo', 'p99<200'], 'a time needs its unit'),
    (['--slo', ''], 'at least one objective'),
])
def test_a_malformed_slo_is_one_line_and_exit_2(capsys, argv, fragment):
    status, out, err = main(capsys, '-s', SWIFT, *argv)
    assert status == 2, err
    lines = [line for line in err.splitlines() if line.startswith('ERROR:')]
    assert len(lines) == 1 and fragment in lines[0], err
    assert out == ''


def test_slo_on_too_few_results_is_neither_met_nor_missed(capsys):
    # p99.99 of 2000 results would be their maximum: too few to judge.
    status, out, err = main(capsys, '-s', SWIFT, '--slo',
                            'p99.99<1us,p99<1us')
    assert status == 3, err
    assert 'WARNING:--slo p99.99<1us: too few results: total has 2000 ' \
        'last-byte latencies, p99.99 needs at least 10000' in err
    assert 'ERROR:--slo p99<1us' in err and 'ERROR:--slo p99.99' not in err
    status, out, err = main(capsys, '-s', SWIFT, '--slo', 'p99.99<1us')
    assert status == 0 and 'too few results' in err, err


SWIFT_LINE = ('2000 requests, 143.6 req/s, p50 49.0 ms, p99 117 ms, '
              'p99.9 171 ms, 0 errors (0.00%), 0.06 MB/s, client unknown\n')


def test_summary_is_one_line_in_place_of_the_report(tmpdir, capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--summary')
    assert status == 0, err
    assert out == SWIFT_LINE
    path = str(tmpdir.join('line.txt'))
    assert main(capsys, '-s', SWIFT, '--summary', '-f', path)[0] == 0
    assert read_text(path) == SWIFT_LINE


@pytest.mark.parametrize('flags, clash', [
    (['--csv'], '--csv'), (['-r', 'x.csv'], '-r'),
    (['--compare', NOOP], '--compare')])
def test_summary_refuses_another_main_output(flags, clash, capsys):
    status, out, err = main(capsys, '-s', SWIFT, '--summary', *flags)
    assert status == 2 and out == ''
    assert err == ('ERROR:--summary is one line in place of the report: '
                   'not with %s\n' % clash)


def test_the_text_report_logs_no_summary(capsys):
    status, out, err = main(capsys, '-s', SWIFT)
    assert status == 0 and 'Summary' not in err

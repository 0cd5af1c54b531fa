"""Bad input corpus: every user mistake gets exit status 2 (usage) or 1
(runtime), one ERROR line on stderr and never a traceback.

Each case runs the command's main() in this process (the `cli` fixture:
what it prints and its exit status); a few run as real processes too, as
a user would, to show that what a process prints is the same."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import json
import os
import socket
import sys

import pytest

from ssbench.wire import protocol
from tests import commands, localswift, paths
from tests.authservers import AuthServer, not_swift, stuck_listing
from tests.clirun import MASTER, NO_AUTH_ENV, WORKER, check, error_lines

# A main() that hangs is bounded as the process of each case was.
pytestmark = pytest.mark.timeout(120)

DATA = paths.DATA
BAD = os.path.join(DATA, 'bad')
GOOD = os.path.join(paths.SCENARIOS,
                    'very_small.scenario')


def run_process(module, args, timeout=60, env=None):
    """(status, stdout, stderr) of `python -m module ARGS`, a real
    process, with no credentials in its environment."""
    ran = commands.run([sys.executable, '-m', module] + list(args), timeout,
                       env=env, drop_env=NO_AUTH_ENV)
    return ran.status, ran.out, ran.err


def write(path, data):
    with io.open(path, 'wb') as fp:
        fp.write(data)
    return path


@pytest.fixture(scope='module')
def files(tmpdir_factory):
    d = tmpdir_factory.mktemp('bad')
    # Storage URL of a server that is not Swift.
    server = AuthServer(not_swift)
    stuck = AuthServer(stuck_listing)
    header = protocol.pack({'name': 'x'})         # no _scenario_data
    good_header = protocol.pack({'_scenario_data': {}, 'name': 'x'})

    def with_result(name, **latencies):
        # Two good results around one whose latencies are `latencies`.
        result = {'type': 'get_object', 'size_str': 'tiny', 'worker_id': 1,
                  'completed_at': 100.5, 'first_byte_latency': 0.01,
                  'last_byte_latency': 0.02, 'trans_id': 'tx1',
                  'retries': 0}
        batch = [dict(result, completed_at=100.0),
                 dict(result, completed_at=100.7, **latencies),
                 dict(result, completed_at=101.0)]
        if not latencies:
            del batch[1]
        return write(str(d.join(name)),
                     good_header + protocol.pack(batch))
    with io.open(GOOD, 'rb') as fp:
        scenario = write(str(d.join('copy.scenario')), fp.read())
    existing = write(str(d.join('precious.txt')), b'precious')
    os.symlink(existing, str(d.join('link.txt')))
    yield {
        'scenario_copy': scenario,
        'existing': existing,
        'link_to_existing': str(d.join('link.txt')),
        'not_swift': 'http://127.0.0.1:%d/v1/AUTH_x' % server.port,
        'stuck_listing': 'http://127.0.0.1:%d/v1/AUTH_x' % stuck.port,
        'clean': with_result('clean.stat'),
        'neg_latency': with_result('neg.stat', last_byte_latency=-0.5),
        'nan_latency': with_result('nan.stat',
                                   first_byte_latency=float('nan')),
        'inf_latency': with_result('inf.stat', last_byte_latency=1e400),
        'last_before_first': with_result('order.stat',
                                         first_byte_latency=0.3,
                                         last_byte_latency=0.2),
        'text_latency': with_result('word.stat', last_byte_latency='x'),
        'empty': write(str(d.join('empty.stat')), b''),
        'garbage': write(str(d.join('garbage.stat')), b'\xc1\xc1\xc1 not'),
        'text': write(str(d.join('text.stat')), b'hello world\n'),
        'not_ssbench': write(str(d.join('other.stat')), header),
        'bad_gz': write(str(d.join('bad.stat.gz')), b'\x1f\x8b\x08junk'),
        'list_header': write(str(d.join('list.stat')),
                             protocol.pack([1, 2, 3])),
        'header_only': write(str(d.join('header_only.stat')), good_header),
        'dir': str(d),
        'scenario_dir': str(d.mkdir('scenario_dir')),
        'json_list': write(str(d.join('list.scenario')), b'[1, 2]'),
        'gz_text': write(str(d.join('text.stat.gz')),
                         gzip.compress(b'plain text') if hasattr(
                             gzip, 'compress') else b'\x1f\x8b'),
    }
    server.stop()
    stuck.stop()
    # What the output cases named is intact.
    with io.open(GOOD, 'rb') as fp:
        assert fp.read() == open_bytes(scenario)
    assert open_bytes(existing) == b'precious'


def open_bytes(path):
    with io.open(path, 'rb') as fp:
        return fp.read()


# (name, module, args, status, fragment); {name} is replaced by files[name].
CASES = [
    ('no subcommand', MASTER, [], 2, 'error:'),
    ('unknown subcommand', MASTER, ['frobnicate'], 2, 'invalid choice'),
    ('unknown flag', MASTER, ['report-scenario', '-s', 'x', '--nope'], 2,
     'unrecognized arguments'),
    ('report without -s', MASTER, ['report-scenario'], 2,
     '-s/--stats-file'),
    ('report missing file', MASTER, ['report-scenario', '-s',
                                     '/nonexistent/x.stat'], 1,
     '/nonexistent/x.stat'),
    ('report empty file', MASTER, ['report-scenario', '-s', '{empty}'], 1,
     'empty.stat'),
    ('report garbage file', MASTER, ['report-scenario', '-s', '{garbage}'],
     1, 'garbage.stat'),
    ('report text file', MASTER, ['report-scenario', '-s', '{text}'], 1,
     'text.stat'),
    ('report non-ssbench msgpack', MASTER,
     ['report-scenario', '-s', '{not_ssbench}'], 1, 'other.stat'),
    ('report bad gzip', MASTER, ['report-scenario', '-s', '{bad_gz}'], 1,
     'bad.stat.gz'),
    ('report list header', MASTER,
     ['report-scenario', '-s', '{list_header}'], 1, 'list.stat'),
    ('report directory', MASTER, ['report-scenario', '-s', '{dir}'], 1,
     'bad'),
    ('report bad pctile', MASTER,
     ['report-scenario', '-s', '{empty}', '--pctile', '0'], 2,
     'argument --pctile'),
    ('report pctile over 100', MASTER,
     ['report-scenario', '-s', '{empty}', '--pctile', '101'], 2,
     'argument --pctile'),
    ('report pctile not a number', MASTER,
     ['report-scenario', '-s', '{empty}', '--pctile', 'x'], 2,
     'argument --pctile'),
    ('report unwritable report file', MASTER,
     ['report-scenario', '-s', '{header_only}', '-f',
      '/nonexistent/dir/report.txt'], 2, '/nonexistent/dir/report.txt'),
    ('run without -f', MASTER, ['run-scenario'], 2, '-f/--scenario-file'),
    ('run missing scenario', MASTER,
     ['run-scenario', '-f', '/nonexistent.scenario', '--noop'], 2,
     '/nonexistent.scenario'),
    ('run scenario is a directory', MASTER,
     ['run-scenario', '-f', '{scenario_dir}', '--noop'], 2, 'scenario_dir'),
    ('run scenario is a list', MASTER,
     ['run-scenario', '-f', '{json_list}', '--noop'], 2,
     'must contain a JSON object'),
    ('run user count zero', MASTER,
     ['run-scenario', '-f', GOOD, '-u', '0', '--noop'], 2,
     'argument -u/--user-count'),
    ('run op count negative', MASTER,
     ['run-scenario', '-f', GOOD, '-o', '-5', '--noop'], 2,
     'argument -o/--op-count'),
    ('run op count not integer', MASTER,
     ['run-scenario', '-f', GOOD, '-o', '1.5', '--noop'], 2,
     'argument -o/--op-count'),
    ('run seconds zero', MASTER,
     ['run-scenario', '-f', GOOD, '-r', '0', '--noop'], 2,
     'argument -r/--run-seconds'),
    ('run block size zero', MASTER,
     ['run-scenario', '-f', GOOD, '-b', '0', '--noop'], 2,
     'argument -b/--block-size'),
    ('run port out of range', MASTER,
     ['run-scenario', '-f', GOOD, '--zmq-work-port', '70000', '--noop'], 2,
     'argument --zmq-work-port'),
    ('run negative delete-after', MASTER,
     ['run-scenario', '-f', GOOD, '--delete-after', '-1', '--noop'], 2,
     'argument --delete-after'),
    ('run mark file is a directory', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--mark-file',
      '{scenario_dir}'], 2, '--mark-file'),
    ('run workers not a number', MASTER,
     ['run-scenario', '-f', GOOD, '--workers', 'two', '--noop'], 2,
     'argument --workers'),
    ('run no credentials', MASTER, ['run-scenario', '-f', GOOD], 2,
     'auth'),
    ('run unreachable auth URL', MASTER,
     ['run-scenario', '-f', GOOD, '-A', 'http://127.0.0.1:9/auth/v1.0',
      '-U', 'a:b', '-K', 'secret-key-xyz'], 1, '127.0.0.1:9'),
    ('run malformed auth URL', MASTER,
     ['run-scenario', '-f', GOOD, '-A', 'not a url', '-U', 'a:b', '-K',
      'secret-key-xyz'], 1, 'not a url'),
    ('run unresolvable bind host', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--zmq-bind-ip',
      'no-such-host.invalid'], 1, 'no-such-host.invalid'),
    ('run no worker connects', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--zmq-bind-ip', '127.0.0.1',
      '--zmq-work-port', '0', '--zmq-results-port', '0',
      '--worker-wait', '1'], 1, 'no ssbench-worker connected'),
    ('cleanup no credentials', MASTER, ['cleanup-containers'], 2, 'auth'),
    ('cleanup concurrency zero', MASTER,
     ['cleanup-containers', '-c', '0'], 2, 'argument -c/--concurrency'),
    ('kill-workers bad port', MASTER,
     ['kill-workers', '--zmq-work-port', 'x'], 2, 'argument --zmq-work-port'),
    ('worker without id', WORKER, [], 2, 'ssbench-worker: error:'),
    ('worker id not a number', WORKER, ['abc'], 2, 'worker_id'),
    ('worker concurrency zero', WORKER, ['-c', '0', '1'], 2,
     'argument -c/--concurrency'),
    ('worker unresolvable master', WORKER,
     ['--zmq-host', 'no-such-host.invalid', '1'], 1,
     'no-such-host.invalid'),
    # Upper bounds (issue 13): refused before anything starts.
    ('run container count too large', MASTER,
     ['run-scenario', '-f', GOOD, '-c', '1000000000000', '--noop'], 2,
     "argument -c/--container-count: '1000000000000' must be at most "
     "1000000"),
    ('run op count too large', MASTER,
     ['run-scenario', '-f', GOOD, '-o', '99999999999999999999999',
      '--noop'], 2, 'argument -o/--op-count: '),
    ('run user count too large', MASTER,
     ['run-scenario', '-f', GOOD, '-u', '100001', '--noop'], 2,
     'argument -u/--user-count'),
    ('run seconds infinite', MASTER,
     ['run-scenario', '-f', GOOD, '-r', 'inf', '--noop'], 2,
     "argument -r/--run-seconds: 'inf' is not a finite number"),
    ('run seconds not a number', MASTER,
     ['run-scenario', '-f', GOOD, '-r', 'nan', '--noop'], 2,
     "argument -r/--run-seconds: 'nan' is not a finite number"),
    ('run seconds too long', MASTER,
     ['run-scenario', '-f', GOOD, '-r', '1e300', '--noop'], 2,
     'argument -r/--run-seconds'),
    ('run block size too large', MASTER,
     ['run-scenario', '-f', GOOD, '-b', '100000000000', '--noop'], 2,
     'argument -b/--block-size'),
    ('run batch size too large', MASTER,
     ['run-scenario', '-f', GOOD, '--batch-size', '9999999', '--noop'], 2,
     'argument --batch-size'),
    ('run delete-after too large', MASTER,
     ['run-scenario', '-f', GOOD, '--delete-after', '99999999999',
      '--noop'], 2, 'argument --delete-after'),
    ('run too many local workers', MASTER,
     ['run-scenario', '-f', GOOD, '--workers', '100000', '--noop'], 2,
     'argument --workers'),
    ('run negative local workers', MASTER,
     ['run-scenario', '-f', GOOD, '--workers', '-1', '--noop'], 2,
     'argument --workers'),
    ('run infinite worker wait', MASTER,
     ['run-scenario', '-f', GOOD, '--worker-wait', 'inf', '--noop'], 2,
     'argument --worker-wait'),
    ('run huge connect timeout', MASTER,
     ['run-scenario', '-f', GOOD, '--connect-timeout', '1e308', '--noop'],
     2, 'argument --connect-timeout'),
    ('run zero drain', MASTER,
     ['run-scenario', '-f', GOOD, '--drain-seconds', '0', '--noop'], 2,
     'argument --drain-seconds'),
    ('run one port for both sockets', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--zmq-work-port', '5999',
      '--zmq-results-port', '5999'], 2,
     '--zmq-work-port and --zmq-results-port are both 5999'),
    ('run endless scenario file', MASTER,
     ['run-scenario', '-f', '/dev/zero', '--noop'], 2,
     '/dev/zero: larger than 1048576 bytes: not a scenario file'),
    ('run no local worker and none connects', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--workers', '0',
      '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', '0',
      '--zmq-results-port', '0', '--worker-wait', '1'], 1,
     'no ssbench-worker connected within 1 s; start workers'),
    ('kill-workers one port for both sockets', MASTER,
     ['kill-workers', '--zmq-work-port', '5999', '--zmq-results-port',
      '5999'], 2, 'are both 5999'),
    ('kill-workers infinite timeout', MASTER,
     ['kill-workers', '--timeout', 'inf'], 2, 'argument --timeout'),
    ('cleanup concurrency too large', MASTER,
     ['cleanup-containers', '-c', '101'], 2, 'argument -c/--concurrency'),
    ('worker id beyond int64', WORKER, ['18446744073709551616'], 2,
     "argument worker_id: '18446744073709551616' must be at most "
     "9223372036854775807"),
    ('worker negative id', WORKER, ['-1'], 2,
     "argument worker_id: '-1' must not be negative"),
    ('worker negative master timeout', WORKER,
     ['--master-timeout', '-1', '1'], 2,
     "argument --master-timeout: '-1' must not be negative"),
    ('worker infinite master timeout', WORKER,
     ['--master-timeout', 'inf', '1'], 2, 'argument --master-timeout'),
    ('worker concurrency too large', WORKER, ['-c', '100000000', '1'], 2,
     'argument -c/--concurrency'),
    ('worker retries too many', WORKER, ['--retries', '100000', '1'], 2,
     'argument --retries'),
    ('worker batch size too large', WORKER,
     ['--batch-size', '100001', '1'], 2, 'argument --batch-size'),
    # Issue 19: outputs, warm-up, listings.
    ('run warmup as long as the run', MASTER,
     ['run-scenario', '-f', GOOD, '-r', '2', '--warmup', '5', '--noop'], 2,
     'the run lasts 2 s and --warmup leaves out its first 5 s: nothing '
     'would be left to report'),
    ('run json over the scenario', MASTER,
     ['run-scenario', '-f', '{scenario_copy}', '--noop', '--json',
      '{scenario_copy}'], 2, 'copy.scenario is the scenario file'),
    ('run html over the stats file', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '-s', '{existing}.out.gz',
      '--html', '{existing}.out'], 2, 'are the same file'),
    ('run stats file over the scenario even with force', MASTER,
     ['run-scenario', '-f', '{scenario_copy}', '--noop', '-s',
      '{scenario_copy}', '--force'], 2,
     'stats file %s is the scenario file' % os.path.join('{dir}',
                                                         'copy.scenario')),
    ('run stats file to standard output', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '-s', '-'], 2,
     '--stats-file -: the stats file is binary'),
    ('run json over an existing file', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--json', '{existing}'], 2,
     'precious.txt: exists; choose another path or give --force'),
    ('report json over an existing file', MASTER,
     ['report-scenario', '-s', '{clean}', '--json', '{existing}'], 2,
     'JSON file %s: exists; choose another path or give --force to '
     'replace it' % os.path.join('{dir}', 'precious.txt')),
    ('report report file over an existing file', MASTER,
     ['report-scenario', '-s', '{clean}', '-f', '{existing}'], 2,
     'precious.txt: exists; choose another path or give --force'),
    ('report html through a link', MASTER,
     ['report-scenario', '-s', '{clean}', '--html', '{link_to_existing}'],
     2, 'link.txt: exists (a symbolic link to '),
    ('report two outputs on standard output', MASTER,
     ['report-scenario', '-s', '{clean}', '--json', '-', '--html', '-'], 2,
     '--json - and --html - would share standard output'),
    ('report json to a full device', MASTER,
     ['report-scenario', '-s', '{clean}', '--json', '/dev/full'], 1,
     'cannot write JSON file /dev/full: No space left on device'),
    ('worker profile to standard output', WORKER,
     ['-p', '10', '--profile-file', '-', '1'], 2,
     '--profile-file -: a profile is binary; name a file'),
    ('worker profile over an existing file', WORKER,
     ['-p', '10', '--profile-file', '{existing}', '1'], 2,
     'precious.txt: exists; choose another path or give --force'),
    ('cleanup listing that is no text', MASTER,
     ['cleanup-containers', '-S', '{not_swift}', '-T', 'AUTH_tk'], 1,
     'cannot list containers: the answer is not a Swift listing (UTF-8 '
     'JSON, a list of names); check the storage URL'),
    ('cleanup listing that does not advance', MASTER,
     ['cleanup-containers', '-S', '{stuck_listing}', '-T', 'AUTH_tk'], 1,
     'GET {stuck_listing}?format=json&limit=10000&prefix=ssbench_&marker='
     'ssbench_000000_default_policy: the listing does not advance'),
]


def _expand(args, files):
    return [a.format(**files) if a.startswith('{') else a for a in args]


@pytest.mark.parametrize('name, module, args, status, fragment', CASES,
                         ids=[c[0] for c in CASES])
def test_bad_input(cli, files, name, module, args, status, fragment):
    got, out, err = cli(module, _expand(args, files))
    check(got, err, status, fragment.format(**files))
    assert 'secret-key-xyz' not in out + err


# One case of each kind (a usage error and a runtime error, of each
# command) as a real process: what the process prints and its status are
# those of main(), with no traceback.
PROCESS_CASES = [case for case in CASES if case[0] in (
    'unknown flag', 'report missing file', 'worker id not a number',
    'worker unresolvable master')]


@pytest.mark.parametrize('name, module, args, status, fragment',
                         PROCESS_CASES, ids=[c[0] for c in PROCESS_CASES])
def test_a_real_process_prints_one_line(cli, files, name, module, args,
                                        status, fragment):
    args = _expand(args, files)
    got, out, err = run_process(module, args)
    check(got, err, status, fragment.format(**files))
    in_status, _, in_err = cli(module, args)
    assert (got, error_lines(err)) == (in_status, error_lines(in_err))


# Latencies that are no measurement (0.3.x timed with the wall clock, so
# a clock stepped back can leave them in a real file): every report leaves
# them out with one warning, and reports the rest as if they were absent.
@pytest.mark.parametrize('name', ['neg_latency', 'nan_latency',
                                  'inf_latency', 'last_before_first'])
@pytest.mark.parametrize('flags', [[], ['--csv'], ['--pctile', '50']])
def test_latencies_that_are_no_measurement_are_left_out(cli, files, name,
                                                        flags):
    clean = cli(MASTER, ['report-scenario', '-s', files['clean']] + flags)
    got, out, err = cli(MASTER, ['report-scenario', '-s', files[name]] + flags)
    assert (got, out) == (0, clean[1])
    assert clean[0] == 0 and 'WARNING' not in clean[2]
    assert 'Traceback' not in err
    assert [line for line in err.splitlines() if 'WARNING' in line] == [
        'WARNING:%s: left out 1 result whose latencies are no measurement '
        '(negative, NaN or infinite, or the last byte before the first)'
        % (files[name],)]


def test_a_latency_that_is_not_a_number_is_left_out(cli, files):
    got, out, err = cli(MASTER, ['report-scenario', '-s',
                                 files['text_latency'], '--csv'])
    assert got == 0 and out and not error_lines(err), err
    assert [line for line in err.splitlines() if 'WARNING' in line] == [
        "WARNING:%s: left out 1 result with a bad value (the first: "
        "last_byte_latency 'x')" % (files['text_latency'],)]


STORAGE_URL = 'http://127.0.0.1:8080/v1/AUTH_test'
UNREACHABLE_URL = 'http://127.0.0.1:9/v1/AUTH_test'
RUN = ['run-scenario', '-f', GOOD, '-u', '2', '-o', '20', '--workers', '1']

# The master's own container requests (created before a run, listed by
# cleanup-containers) against the local Swift of tools/saio; a run also
# gets free ports, a local worker and a stats path that must not appear.
SWIFT_CASES = [
    ('run bad token', MASTER, RUN + ['-S', STORAGE_URL, '-T', 'AUTH_tkno'],
     1, 'cannot create containers: HEAD %s/ssbench_' % STORAGE_URL,
     'Swift refused the token: give a valid one (-T)'),
    ('run unreachable storage URL', MASTER,
     RUN + ['-S', UNREACHABLE_URL, '-T', 'AUTH_tkno'], 1,
     'cannot create containers: HEAD %s/ssbench_' % UNREACHABLE_URL,
     'check the storage URL (-S, or the one the auth server returns)'),
    ('run unknown storage policy', MASTER,
     RUN + localswift.auth_args() + ['--policy', 'no-such-policy'], 1,
     "cannot create containers: unknown storage policy 'no-such-policy' "
     "(PUT %s/ssbench_" % STORAGE_URL,
     'name one the cluster has with --policy'),
    ('cleanup bad token', MASTER,
     ['cleanup-containers', '-S', STORAGE_URL, '-T', 'AUTH_tkno'], 1,
     'cannot list containers: GET %s?' % STORAGE_URL,
     'Swift refused the token: give a valid one (-T)'),
    ('cleanup unreachable storage URL', MASTER,
     ['cleanup-containers', '-S', UNREACHABLE_URL, '-T', 'AUTH_tkno'], 1,
     'cannot list containers: GET %s?' % UNREACHABLE_URL,
     'check the storage URL (-S'),
]


@pytest.mark.parametrize('name, module, args, status, start, hint',
                         SWIFT_CASES, ids=[c[0] for c in SWIFT_CASES])
def test_container_requests_say_what_to_fix(cli, name, module, args, status,
                                            start, hint, tmpdir):
    localswift.require_swift()
    stats = tmpdir.join('run.stat')
    if args[0] == 'run-scenario':
        args = args + ['-s', str(stats)] + commands.zmq_args()
    got, out, err = cli(module, args)
    check(got, err, status, hint)
    assert error_lines(err)[0].startswith('ERROR:' + start), err
    assert not stats.check() and 'testing' not in out + err


def test_corpus_is_large_enough():
    scenario_cases = json.load(io.open(os.path.join(BAD, 'cases.json')))
    assert len(CASES) + len(scenario_cases) >= 30
    assert len(CASES) >= 30


@pytest.mark.parametrize('case', json.load(io.open(
    os.path.join(BAD, 'cases.json'), encoding='utf-8'))[:12],
    ids=lambda c: c['file'])
def test_bad_scenarios_through_the_cli(cli, case):
    if case.get('overrides'):
        pytest.skip('override cases are covered in test_scenario')
    got, out, err = cli(MASTER, ['run-scenario', '-f',
                                 os.path.join(BAD, case['file']), '--noop'])
    check(got, err, case['status'], case['fragment'])


# The scenario cases over an upper bound, except block_size, which -b
# (65536 unless given) always overrides on the command line.
BOUND_CASES = [case for case in json.load(io.open(
    os.path.join(BAD, 'cases.json'), encoding='utf-8'))
    if not case.get('overrides') and '"block_size"' not in case['fragment']
    and ('at most' in case['fragment'] or 'add up to' in case['fragment'])]


@pytest.mark.parametrize('case', BOUND_CASES, ids=lambda c: c['file'])
def test_oversized_scenarios_leave_no_stats_file(cli, case, tmpdir):
    stats = str(tmpdir.join('run.stat'))
    got, out, err = cli(MASTER, ['run-scenario', '-f',
                                 os.path.join(BAD, case['file']), '--noop',
                                 '-s', stats])
    check(got, err, case['status'], case['fragment'])
    assert tmpdir.listdir() == []


def test_workers_zero_is_the_default_in_the_help(cli):
    got, out, err = cli(MASTER, ['run-scenario', '-h'])
    assert got == 0
    text = ' '.join(out.split())
    assert '--workers COUNT Spawn COUNT local ssbench-worker processes ' \
        'just for this run (0: none;' in text
    assert '(default: 0)' in text.split('--workers COUNT Spawn', 1)[1].split(
        '--batch-size', 1)[0]


@pytest.mark.parametrize('module, prog', [(MASTER, 'ssbench-master'),
                                          (WORKER, 'ssbench-worker')])
def test_version(cli, module, prog):
    import ssbench
    got, out, err = cli(module, ['--version'])
    assert got == 0
    # argparse prints it to stdout on Python 3, to stderr on 2.
    assert (out + err).strip() == '%s %s' % (prog, ssbench.version)


def test_port_in_use(cli):
    sock = socket.socket()
    sock.bind(('127.0.0.1', 0))
    sock.listen(1)
    port = sock.getsockname()[1]
    try:
        got, out, err = cli(MASTER, [
            'run-scenario', '-f', GOOD, '--noop', '--zmq-bind-ip',
            '127.0.0.1', '--zmq-work-port', str(port)])
    finally:
        sock.close()
    check(got, err, 1, str(port))


def test_verbose_shows_the_traceback(cli):
    got, out, err = cli(MASTER, ['-v', 'report-scenario', '-s',
                                 '/nonexistent/x.stat'])
    assert got == 1 and 'ERROR:' in err


KEYSTONE_ARGS = ['--os-auth-url', 'http://127.0.0.1:9/v3', '--os-username',
                 'u', '--os-password', 'secret-key-xyz',
                 '--os-project-name', 'p']


@pytest.mark.parametrize('module, args', [
    (MASTER, ['run-scenario', '-f', GOOD, '-V', '3'] + KEYSTONE_ARGS),
    (MASTER, ['cleanup-containers', '-V', '2.0'] + KEYSTONE_ARGS),
    (WORKER, ['-V', '3'] + KEYSTONE_ARGS + ['1']),
], ids=['run', 'cleanup', 'worker'])
def test_keystone_auth_without_the_keystone_extra_names_it(
        cli, monkeypatch, module, args):
    # None in sys.modules makes an import of that name fail, as a missing
    # extra would (submodules imported already go with their package).
    for name in list(sys.modules):
        if name.split('.')[0] in ('keystoneclient', 'keystoneauth1'):
            monkeypatch.delitem(sys.modules, name)
    for name in ('keystoneclient', 'keystoneauth1'):
        monkeypatch.setitem(sys.modules, name, None)
    got, out, err = cli(module, args)
    check(got, err, 2, "pip install 'ssbench[keystone]'")
    assert 'secret-key-xyz' not in out + err


def test_keystone_extra_missing_in_a_real_process(tmpdir):
    # Packages of these names that cannot be imported stand for a missing
    # extra: they come first on the path.
    for name in ('keystoneclient', 'keystoneauth1'):
        tmpdir.mkdir(name).join('__init__.py').write(
            "raise ImportError('No module named %s')\n" % name)
    got, out, err = run_process(
        MASTER, ['cleanup-containers', '-V', '2.0'] + KEYSTONE_ARGS,
        env={'PYTHONPATH': str(tmpdir)})
    check(got, err, 2, "pip install 'ssbench[keystone]'")
    assert 'secret-key-xyz' not in out + err

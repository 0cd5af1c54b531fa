"""Bad input corpus: every user mistake gets exit status 2 (usage) or 1
(runtime), one ERROR line on stderr and never a traceback.

Each case runs the command's main() in this process (the `cli` fixture:
what it prints and its exit status); a few run as real processes too, as
a user would, to show that what a process prints is the same."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import sys

import pytest

from tests import paths
from tests.clirun import MASTER, WORKER, check

# A main() that hangs is bounded as the process of each case was.
pytestmark = pytest.mark.timeout(120)

DATA = paths.DATA
BAD = os.path.join(DATA, 'bad')
GOOD = os.path.join(paths.SCENARIOS,
                    'very_small.scenario')


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
    ('run hdr interval without hdr log', MASTER,
     ['run-scenario', '-f', GOOD, '--noop', '--hdr-interval', '5'], 2,
     '--hdr-interval needs --hdr-log FILE'),
    ('suite hdr log', MASTER,
     ['run-suite', '-f', GOOD, '--noop', '--hdr-log', 'x.hlog'], 2,
     '--hdr-log is a run-scenario flag'),
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

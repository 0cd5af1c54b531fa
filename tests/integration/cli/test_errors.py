"""Bad input corpus: every user mistake gets exit status 2 (usage) or 1
(runtime), one ERROR line on stderr and never a traceback.

Each case runs the command's main() in this process (the `cli` fixture:
what it prints and its exit status); a few run as real processes too, as
a user would, to show that what a process prints is the same."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import os
import socket
import sys

import pytest

from ssbench.wire import protocol
from tests import commands, localswift
from tests.authservers import AuthServer, not_swift, stuck_listing
from tests.clirun import MASTER, NO_AUTH_ENV, check, error_lines

from tests.unit.cli.test_errors import CASES, GOOD, KEYSTONE_ARGS

pytestmark = pytest.mark.timeout(120)


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

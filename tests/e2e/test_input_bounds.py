"""Input that made a loop, an allocation or a run go wrong (issue 50
items 3, 11, 13 and 16), through the real CLI: a duration too short to
step by, text that JSON takes but no path or msgpack can, a suite name
of 300,000 characters with escape sequences, --slo limits and endpoints
a run cannot have, and --until-steady with a worker a month ahead."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import sys

import pytest

from tests import clirun
from tests.e2e import support
from tests.paths import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

GOLDEN = os.path.join(ROOT, 'tests', 'data', 'golden',
                      'noop_u4_w1_b1.run1.stat.gz')


def refused(ran, fragment):
    """Status 2 and one error line holding `fragment`, no traceback."""
    clirun.check(ran.status, ran.err, 2, fragment)


@pytest.mark.parametrize('argv, fragment', [
    (['run-suite', '--until-steady', '--steady-seconds', '1e-300'],
     "--steady-seconds: '1e-300' must be at least 3"),
    (['run-suite', '--until-steady', '--steady-seconds', '1e9'],
     "--steady-seconds: '1e9' must be at most 3600"),
    (['run-scenario', '--rate', '1e-300'],
     "--rate: '1e-300' must be from 0.001"),
    (['run-suite', '--rate', '1e-300:1:x10'],
     "'1e-300' must be from 0.001"),
    (['run-scenario', '--worker-timeout', '1e-300'],
     "'1e-300' must be at least 0.001"),
    (['run-scenario', '--network-timeout', '5e-324'],
     "'5e-324' must be at least 0.001"),
])
def test_a_duration_too_short_to_step_by_is_refused(tmpdir, argv, fragment):
    path, _ = support.write_scenario(tmpdir)
    ran = support.master(*(argv + ['-f', path, '--noop', '--workers', '1'] +
                           support.zmq_args()), timeout=60)
    refused(ran, fragment)


def test_a_kill_workers_timeout_too_short_is_refused():
    ran = support.master('kill-workers', '--timeout', '1e-300',
                         *support.zmq_args(), timeout=60)
    refused(ran, "'1e-300' must be at least 0.001")


def write_text(path, text):
    with io.open(path, 'wb') as handle:
        handle.write(text.encode('utf-8') if isinstance(text, type(u''))
                     else text)
    return path


def json_text(data):
    """JSON of `data` whose "\\\\u" escapes are JSON's own "\\u" ones: a
    lone surrogate or a NUL written as JSON writes them."""
    return json.dumps(data).replace('\\\\u', '\\u')


def bad_scenario(tmpdir, base, where):
    _, data = support.write_scenario(tmpdir, container_base=base)
    if where == 'name':
        data['name'] = 'e2e \\ud800'
    else:
        data['sizes'][0]['name'] = 'tiny\\udfff'
        data['initial_files'] = dict(
            ('tiny\\udfff' if name == data['sizes'][0]['name'] else name,
             count) for name, count in data['initial_files'].items())
    return write_text(os.path.join(str(tmpdir), 'bad.scenario'),
                      json_text(data))


@pytest.mark.parametrize('case', ['scenario name', 'size name',
                                  'suite name', 'suite path'])
def test_text_no_path_or_msgpack_takes_is_refused_before_any_work(
        tmpdir, case):
    # A lone surrogate ran the benchmark and then failed on the stats
    # file, leaving containers and an empty file; a NUL was "embedded
    # null byte".
    support.require_swift()
    base = support.unique_base()
    good, _ = support.write_scenario(tmpdir, container_base=base)
    stats = os.path.join(str(tmpdir), 'run.stat')
    if case in ('scenario name', 'size name'):
        argv = ['run-scenario', '-f', bad_scenario(
            tmpdir, base, case.split()[0]), '-s', stats]
        fragment = 'must be text without a lone surrogate'
    else:
        suite = {'defaults': {'scenario': good}, 'steps': [{}]}
        if case == 'suite name':
            suite['name'] = 'curve\\udc80'
            fragment = '"name": the name must be text without a lone'
        else:
            suite['steps'] = [{'scenario': good + '\\u0000x'}]
            fragment = '"scenario" must be text without a NUL character'
        argv = ['run-suite', '--suite', write_text(
            os.path.join(str(tmpdir), 'bad.suite'), json_text(suite)),
            '--suite-dir', os.path.join(str(tmpdir), 'suite')]
    ran = support.master(*(argv + ['--workers', '1'] + support.zmq_args() +
                           support.auth_args()), timeout=120)
    refused(ran, fragment)
    assert support.SwiftView().containers(base) == []
    assert not os.path.exists(stats + '.gz')
    assert not os.path.exists(os.path.join(str(tmpdir), 'suite'))


def test_a_long_suite_name_with_escape_sequences_stays_printable(tmpdir):
    path, _ = support.write_scenario(tmpdir)
    name = 'A' * 300000 + '\x1b[31m\x1b]0;owned\x07'
    suite = write_text(os.path.join(str(tmpdir), 'long.suite'), json_text(
        {'name': name, 'defaults': {'scenario': path, 'operation_count': 5,
                                    'user_count': 1}}))
    folder = os.path.join(str(tmpdir), 'suite')
    ran = support.master('run-suite', '--suite', suite, '--noop',
                         '--workers', '1', '--suite-dir', folder,
                         *support.zmq_args(), timeout=120)
    assert ran.status == 0, ran.err[-2000:]
    for stream in (ran.out, ran.err):
        assert '\x1b' not in stream and '\x07' not in stream
        assert max(len(line) for line in stream.splitlines()) < 1100
    assert 'Suite "AAAA' in ran.out and '... (300015 characters)' in ran.out
    (stats,) = [entry for entry in os.listdir(folder)
                if entry.endswith('.stat.gz')]
    assert len(stats) < 120


@pytest.mark.parametrize('objectives, fragment', [
    ('p99<0ms', 'a time limit must be at least 1us'),
    ('p99<1s,endpoint[99].p99<1s', 'the run has one storage URL'),
])
def test_objectives_a_run_cannot_have_are_usage_errors(objectives,
                                                       fragment):
    ran = support.master('report-scenario', '-s', GOLDEN, '--slo',
                         objectives, timeout=60)
    refused(ran, fragment)


def test_an_endpoint_beyond_the_storage_urls_is_refused_before_the_run(
        tmpdir):
    path, _ = support.write_scenario(tmpdir)
    ran = support.master(
        'run-scenario', '-f', path, '--noop', '--workers', '1', '-S',
        'http://127.0.0.1:9/v1/AUTH_x', '-S', 'http://127.0.0.1:9/v1/AUTH_y',
        '-T', 'token', '--slo', 'endpoint[2].p99<1s', *support.zmq_args(),
        timeout=60)
    refused(ran, 'endpoint[0] to endpoint[1] only')


FAKETIME = any(os.access(os.path.join(d, 'faketime'), os.X_OK)
               for d in ('/usr/bin', '/usr/local/bin'))


@pytest.mark.skipif(not FAKETIME, reason='no faketime (Debian package '
                    'faketime)')
def test_until_steady_with_a_worker_a_month_ahead(tmpdir):
    # Its results made a window per second of the month (341 MB) and the
    # step never steady: they are put on the master's clock.  The
    # tolerance is wide (99%, p99 198%): a busy machine must not make
    # this steady load look unsteady.
    path, _ = support.write_scenario(tmpdir)
    zmq = support.zmq_args()
    work_port, results_port = [int(zmq[zmq.index(flag) + 1]) for flag in (
        '--zmq-work-port', '--zmq-results-port')]
    workers = [support.start_worker(
        worker_id, work_port, results_port,
        os.path.join(str(tmpdir), 'worker%d.log' % worker_id),
        prefix=prefix, env={'FAKETIME_DONT_FAKE_MONOTONIC': '1'})
        for worker_id, prefix in ((1, ['faketime', '-f', '+30d']),
                                  (2, []))]
    folder = os.path.join(str(tmpdir), 'steady')
    try:
        ran = support.master(
            'run-suite', '-f', path, '--noop', '-u', '20', '--rate', '200',
            '-r', '150', '--until-steady', '--steady-seconds', '12',
            '--steady-tolerance', '99', '--expect-workers', '2',
            '--suite-dir', folder, *zmq, timeout=240)
    finally:
        for worker in workers:
            support.stop_process(worker)
    assert ran.status == 0, ran.err[-3000:]
    with io.open(os.path.join(folder, 'suite.json'),
                 encoding='utf-8') as handle:
        (step,) = json.load(handle)['steps']
    assert step['steady']['steady'], step
    assert step['steady']['after'] < 120, step
    from ssbench.results.statsreader import open_stats
    (record,) = [r for batch in open_stats(os.path.join(
        folder, step['stats_file'])).iter_batches() for r in batch
        if r.get('kind') == 'steady_state']
    assert record['windows'] < 60, record
    assert 'worker 1 +2591999.9' in ran.err or 'worker 1 +2592000.0' in \
        ran.err, ran.err[-3000:]


if __name__ == '__main__':  # pragma: no cover
    sys.exit(pytest.main([__file__]))

"""The load model with real processes: --seed, --warmup, --rate and the
client saturation guard (--noop: no Swift needed unless said)."""
from __future__ import absolute_import, division, print_function

import collections
import os

import pytest

from ssbench.results.statsreader import open_stats
from tests.e2e import support

pytestmark = pytest.mark.e2e


def noop_run(tmpdir, name, *extra, **kwargs):
    """A --noop run-scenario with 2 local workers; (Ran, StatsFile)."""
    path, _ = support.write_scenario(tmpdir, **kwargs.pop('changes', {}))
    stats = os.path.join(str(tmpdir), name + '.stat')
    ran = support.master('run-scenario', '-f', path, '--noop', '-s', stats,
                         '--workers', '2', *(support.zmq_args() +
                                             list(extra)),
                         timeout=kwargs.pop('timeout', 120))
    assert ran.status == 0, ran
    return ran, open_stats(stats + '.gz')


def job_multiset(stats):
    return collections.Counter(
        (r['type'], r['size_str'], r.get('size'))
        for r in stats.iter_results() if 'completed_at' in r)


def test_one_seed_gives_the_same_jobs(tmpdir):
    runs = [noop_run(tmpdir, 'seed%d' % i, '-o', '600', '--seed', '42',
                     '-R')[1] for i in range(2)]
    assert [stats.header['seed'] for stats in runs] == [42, 42]
    first, second = [job_multiset(stats) for stats in runs]
    assert sum(first.values()) == 600
    assert first == second
    other = noop_run(tmpdir, 'seed43', '-o', '600', '--seed', '43',
                     '-R')[1]
    assert job_multiset(other) != first


def test_a_run_without_seed_stores_the_one_it_drew(tmpdir):
    _, stats = noop_run(tmpdir, 'drawn', '-o', '50', '-R')
    seed = stats.header['seed']
    assert isinstance(seed, int) and seed >= 0
    assert 'warmup' not in stats.header


def report_count(out):
    """The TOTAL count of a text report."""
    lines = out.splitlines()
    return int(lines[lines.index('TOTAL') + 1].split()[1])


def test_warmup_leaves_the_first_seconds_out(tmpdir):
    ran, stats = noop_run(tmpdir, 'warm', '-r', '3', '--warmup', '1.5',
                          changes={'user_count': 2})
    stored = sum(1 for _ in stats.iter_results())
    header = ran.out.splitlines()[3]
    assert header.startswith('Warm-up: the first 1.5 s of the run left out')
    left_out = int(header.split('(')[1].split()[0])
    assert 0 < left_out < stored
    assert report_count(ran.out) == stored - left_out
    # The stats file says so: a later report leaves out the same results.
    assert stats.header['warmup'] == 1.5
    again = support.master('report-scenario', '-s',
                           os.path.join(str(tmpdir), 'warm.stat.gz'))
    assert again.status == 0, again
    assert again.out == ran.out


def test_rate_run_stamps_intended_starts_and_reports_response_time(tmpdir):
    ran, stats = noop_run(tmpdir, 'rate', '-o', '800', '--rate', '400',
                          '--seed', '5', changes={'user_count': 20})
    assert stats.header['rate'] == 400
    assert stats.header['arrival'] == 'uniform'
    assert ran.out.splitlines()[3].startswith(
        'Open loop at 400 jobs/s (uniform arrivals): latency is response '
        'time')
    records = [r for batch in stats.iter_batches() for r in batch]
    results = [r for r in records if 'completed_at' in r]
    controls = [r for r in records if 'completed_at' not in r]
    assert len(results) == 800
    starts = sorted(r['intended_start'] for r in results)
    assert starts[-1] - starts[0] == pytest.approx(799 / 400.0, abs=1e-5)
    schedule = [c for c in controls if c['kind'] == 'schedule']
    assert len(schedule) == 1
    assert schedule[0]['sent'] == 800
    assert schedule[0]['send_lag']['count'] == 800
    # A worker that starts after the run did is a run event (joined).
    events = [c for c in controls if c['kind'] == 'run_event']
    assert set(c['event'] for c in events) <= set(['worker_joined'])
    assert set(c['kind'] for c in controls) - set(['run_event']) == set(
        ['schedule', 'worker_health', 'clock_offset'])
    # A run by operation count sends all it intends; nothing is unsent.
    assert schedule[0]['intended'] == 800 and 'unsent' not in schedule[0]


def test_poisson_rate_from_the_scenario_file(tmpdir):
    ran, stats = noop_run(tmpdir, 'poisson', '-o', '300', '--arrival',
                          'poisson', changes={'rate': 300,
                                              'user_count': 20})
    assert stats.header['rate'] == 300
    assert stats.header['arrival'] == 'poisson'
    starts = sorted(r['intended_start'] for r in stats.iter_results()
                    if 'completed_at' in r)
    gaps = set(round(b - a, 6) for a, b in zip(starts, starts[1:]))
    assert len(gaps) > 100       # not evenly spaced


def local_workers(master_pid):
    """{worker id: pid} of the local workers a master spawned."""
    found = {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as fp:
                ppid = int(fp.read().rsplit(')', 1)[1].split()[1])
            with open('/proc/%s/cmdline' % name, 'rb') as fp:
                argv = fp.read().split(b'\0')
        except (IOError, OSError, IndexError, ValueError):
            continue
        if ppid == master_pid and b'ssbench.cli.worker' in argv:
            found[int(argv[-2])] = int(name)
    return found


# How long a stall test stops a process.
STALL = 2


def test_a_stopped_worker_trips_the_saturation_guard(tmpdir):
    """Without --expect-workers the master starts on the first worker it
    hears from: on a loaded host the other one may still be starting (its
    loop, and what measures its lag, not yet running) when the first
    results come.  So the run waits for both, and the worker is stopped
    only once results of its own show it is in the benchmark."""
    import json
    import signal
    import subprocess
    import sys
    import time
    path, _ = support.write_scenario(tmpdir, user_count=4)
    stats = os.path.join(str(tmpdir), 'stop.stat')
    json_path = os.path.join(str(tmpdir), 'stop.json')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario', '-f',
         path, '--noop', '--workers', '2', '--expect-workers', '2', '-r',
         '8', '-s', stats, '--json', json_path] + support.zmq_args(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=support.ROOT,
        preexec_fn=support.die_with_parent)
    stopped = None
    try:
        def both_spawned():
            found = local_workers(proc.pid)
            return found if len(found) == 2 else None
        workers = support.wait_for(both_spawned, 30, 'two local workers',
                                   interval=0.1)
        stopped = min(workers)

        def stopped_is_working():
            if support.holds_a_result(stats, stopped):
                return True
            assert proc.poll() is None, 'the master exited'
        support.wait_for(stopped_is_working, 60,
                         'a result of worker %d' % stopped, interval=0.05)
        os.kill(workers[stopped], signal.SIGSTOP)
        time.sleep(STALL)                # the stall to be seen, not a wait
        os.kill(workers[stopped], signal.SIGCONT)
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    err = err.decode('utf-8', 'replace')
    assert proc.returncode == 0, err
    # The warning once (the summary line at the end says it too).
    warning = [line for line in err.splitlines()
               if 'client saturated' in line and 'Summary:' not in line]
    assert len(warning) == 1 and 'worker' in warning[0], err
    with open(json_path) as fp:
        client = json.load(fp)['client']
    assert client['saturated'] is True
    by_id = dict((w['worker_id'], w) for w in client['workers'])
    assert by_id[stopped]['saturated'] is True
    assert by_id[stopped]['loop_lag_max'] >= 1.5
    assert by_id[1 - stopped]['loop_lag_max'] < 1.5
    assert '%d' % stopped in warning[0].split('passed')[0]


def test_a_stalled_swift_shows_in_response_time_only(tmpdir, stalling_relay):
    """Open loop at 40 jobs/s, 4 in flight at most, against the local
    Swift through a relay that forwards nothing for 2 s mid-run.  The 4
    requests in flight then take 2 s, and the ~80 jobs due meanwhile wait
    for the cap: response times (from intended start) show the stall,
    service times (from the actual send) hide all but those 4.  (Not the
    shared Swift's object server stopped: the other interpreter's suite
    may be using it at the same time.)"""
    import json
    import subprocess
    import sys
    import time
    support.require_swift()
    account = support.SwiftView().url.split('/v1/')[1]
    path, data = support.write_scenario(
        tmpdir, user_count=4, crud_profile=[10, 80, 10, 0],
        sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 1000}],
        initial_files={'tiny': 20})
    stats = os.path.join(str(tmpdir), 'stall.stat')
    json_path = os.path.join(str(tmpdir), 'stall.json')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario', '-f',
         path, '--workers', '2', '--rate', '40', '-r', '9', '-s', stats,
         '--json', json_path, '-S', 'http://127.0.0.1:%d/v1/%s' % (
             stalling_relay.port, account)] +
        support.zmq_args() + support.auth_args(),
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=support.ROOT,
        preexec_fn=support.die_with_parent)
    try:
        deadline = time.time() + 60
        # The plain stats file appears when the benchmark phase starts.
        while not os.path.exists(stats) and time.time() < deadline and \
                proc.poll() is None:
            time.sleep(0.05)
        assert os.path.exists(stats), proc.communicate()
        # Mid-run: results are coming back.
        support.wait_for_a_result(stats, proc, 60)
        stalling_relay.stall()
        try:
            time.sleep(STALL)            # the stall to be seen, not a wait
        finally:
            stalling_relay.resume()
        out, err = proc.communicate()
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        support.SwiftView().delete_everything(data['container_base'] + '_')
    assert proc.returncode == 0, err.decode('utf-8', 'replace')
    results = [r for r in open_stats(stats + '.gz').iter_results()
               if 'exception' not in r]
    response = [r['completed_at'] - r['intended_start'] for r in results]
    service = [r['last_byte_latency'] for r in results]
    slow_response = sum(1 for t in response if t > 1.0)
    slow_service = sum(1 for t in service if t > 1.0)
    assert slow_service <= 4
    assert slow_response >= 30, (slow_response, len(results))
    with open(json_path) as fp:
        doc = json.load(fp)
    total = doc['operations'][0]
    assert total['operation'] == 'total'
    response_p95 = total['latency']['last_byte'][0]['p95']
    service_ops = doc['open_loop']['service_time']['operations']
    service_p95 = service_ops[0]['latency']['last_byte'][0]['p95']
    assert response_p95 > 1.0 > 0.5 > service_p95
    assert doc['open_loop']['schedule']['cap_waits'] >= 30

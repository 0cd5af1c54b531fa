#!/usr/bin/env python
"""How well `run-scenario --rate R --noop` holds its schedule.

    python bench/rate_schedule.py [--rates 5000,20000] [--search]
                                  [--runs 3] [--seconds 5] [-u 1000]
                                  [--workers 2]
    python bench/rate_schedule.py --backlog [--rates 2000,20000,100000]
                                  [--seconds 5] [-u 2]

Each rate runs `ssbench-master run-scenario -f scenarios/very_small.scenario
--noop --workers 2 -u U --rate R -o R*SECONDS -R` in a child process (free
ports, a stats file in a temporary directory, removed afterwards) and reads
its stats file: the achieved rate (results over the span from the first
to the last completion) and the send lag the master recorded (how late
each job left the master after its intended start: p50, p99, max), and
the jobs that found user_count in flight (cap waits).  One line per rate:

    rate 20,000/s: achieved 19,998/s (-0.01%); send lag p50 0.1 ms, p99
    1.9 ms, max 7.2 ms; cap waits 0; holds

"holds": within 1% of R with a p99 send lag under 5 ms (the target at
20,000/s with 2 workers).  Each rate runs --runs times, and holds when
most runs do.  --search then doubles the rate from the highest one that
held until it no longer holds, and bisects (to 5%) for the highest rate
that does.  Run it on a quiet machine: the master and both workers want
a core each, and on a busy one the send lag is the scheduler's.

--backlog offers more than the user count lets out: each rate runs
`-r SECONDS -u U` (default 2 in flight), and one line per rate gives the
jobs due (intended), sent and due but never sent from the stats file's
schedule record, and the master's peak RSS (VmHWM, read from /proc while
it runs):

    rate 100,000/s -u 2 -r 5: intended 500,000 = sent 10,123 (2,025/s)
    + unsent 489,877; master peak RSS 58.1 MB

then whether a higher rate never sent fewer jobs and how far apart the
peak RSS figures are: the schedule's cost must not grow with the backlog.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')


def run_rate(rate, seconds, users, workers):
    """(achieved rate, schedule record) of one --rate run."""
    sys.path.insert(0, ROOT)
    from ssbench.results.statsreader import open_stats
    tmp = tempfile.mkdtemp(prefix='ssbench-rate-')
    try:
        stats = os.path.join(tmp, 'run.stat')
        subprocess.check_call(
            [sys.executable, '-m', 'ssbench.cli.master', '-q',
             'run-scenario', '-f', SCENARIO, '--noop', '--workers',
             str(workers), '-u', str(users), '--rate', str(rate), '-o',
             str(int(rate * seconds)), '-R', '-s', stats,
             '--zmq-work-port', '0', '--zmq-results-port', '0'], cwd=ROOT)
        first = last = None
        count = 0
        schedule = None
        records = (record for batch in
                   open_stats(stats + '.gz').iter_batches()
                   for record in batch)
        for record in records:
            done = record.get('completed_at')
            if done is None:
                if record.get('kind') == 'schedule':
                    schedule = record
                continue
            count += 1
            first = done if first is None else min(first, done)
            last = done if last is None else max(last, done)
        return (count - 1) / (last - first), schedule
    finally:
        shutil.rmtree(tmp)


def peak_rss(pid):
    """The VmHWM of process `pid` in bytes, or None once it is gone."""
    try:
        with open('/proc/%d/status' % pid) as status:
            for text in status:
                if text.startswith('VmHWM:'):
                    return int(text.split()[1]) * 1024
    except (IOError, OSError):
        return None
    return None


def run_backlog(rate, seconds, users, workers):
    """(schedule record, master peak RSS in bytes) of one timed --rate
    run capped at `users` in flight."""
    sys.path.insert(0, ROOT)
    from ssbench.results.statsreader import open_stats
    tmp = tempfile.mkdtemp(prefix='ssbench-backlog-')
    try:
        stats = os.path.join(tmp, 'run.stat')
        master = subprocess.Popen(
            [sys.executable, '-m', 'ssbench.cli.master', '-q',
             'run-scenario', '-f', SCENARIO, '--noop', '--workers',
             str(workers), '-u', str(users), '--rate', str(rate), '-r',
             str(seconds), '-R', '-s', stats, '--zmq-work-port', '0',
             '--zmq-results-port', '0'], cwd=ROOT)
        peak = 0
        while master.poll() is None:
            peak = max(peak, peak_rss(master.pid) or 0)
            time.sleep(0.05)
        if master.returncode:
            raise SystemExit('the run at %s/s failed' % (rate,))
        schedule = None
        for batch in open_stats(stats + '.gz').iter_batches():
            for record in batch:
                if record.get('kind') == 'schedule':
                    schedule = record
        return schedule, peak
    finally:
        shutil.rmtree(tmp)


def backlog(rates, seconds, users, workers):
    """One line per rate (see the module docstring), then the verdict."""
    sent = []
    peaks = []
    for rate in rates:
        schedule, peak = run_backlog(rate, seconds, users, workers)
        sent.append(schedule['sent'])
        peaks.append(peak)
        print('rate {:,}/s -u {} -r {:g}: intended {:,} = sent {:,} '
              '({:,.0f}/s) + unsent {:,}; master peak RSS {:.1f} MB'.format(
                  rate, users, seconds, schedule['intended'],
                  schedule['sent'], schedule['achieved_rate'],
                  schedule['unsent'], peak / 1e6))
        sys.stdout.flush()
    fewer = [(a, b) for a, b in zip(rates, rates[1:])
             if sent[rates.index(b)] < sent[rates.index(a)]]
    print('a higher rate sent fewer jobs: {}'.format(
        ', '.join('{:,}/s after {:,}/s'.format(b, a) for a, b in fewer)
        if fewer else 'never'))
    print('master peak RSS: {:.1f} to {:.1f} MB ({:+.1f}%)'.format(
        min(peaks) / 1e6, max(peaks) / 1e6,
        100.0 * (max(peaks) - min(peaks)) / min(peaks)))


def line(rate, achieved, schedule):
    lag = schedule['send_lag']
    holds = abs(achieved - rate) <= 0.01 * rate and lag['p99'] < 0.005
    print('rate {:,}/s: achieved {:,.0f}/s ({:+.2f}%); send lag p50 '
          '{:.1f} ms, p99 {:.1f} ms, max {:.1f} ms; cap waits {}; {}'.format(
              rate, achieved, 100.0 * (achieved - rate) / rate,
              lag['p50'] * 1e3, lag['p99'] * 1e3, lag['max'] * 1e3,
              schedule['cap_waits'], 'holds' if holds else 'does not hold'))
    sys.stdout.flush()
    return holds


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--rates', default=None,
                        help='default: 5000,20000; 2000,20000,100000 '
                        'with --backlog')
    parser.add_argument('--search', action='store_true')
    parser.add_argument('--seconds', type=float, default=5.0)
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('-u', '--users', type=int, default=None,
                        help='default: 1000; 2 with --backlog')
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('--backlog', action='store_true')
    args = parser.parse_args()
    if args.backlog:
        backlog([int(r) for r in (args.rates or
                                  '2000,20000,100000').split(',')],
                args.seconds, args.users or 2, args.workers)
        return
    args.rates = args.rates or '5000,20000'
    args.users = args.users or 1000

    def attempt(rate):
        held = 0
        for _ in range(args.runs):
            achieved, schedule = run_rate(rate, args.seconds, args.users,
                                          args.workers)
            held += line(rate, achieved, schedule)
        print('rate {:,}/s held in {} of {} runs'.format(rate, held,
                                                         args.runs))
        return held * 2 > args.runs

    held = None
    for rate in [int(r) for r in args.rates.split(',')]:
        if attempt(rate):
            held = rate
    if not args.search or held is None:
        return
    low, high = held, held * 2
    while attempt(high):
        low, high = high, high * 2
    while high - low > 0.05 * low:
        middle = (low + high) // 2
        if attempt(middle):
            low = middle
        else:
            high = middle
    print('highest rate that holds: {:,}/s'.format(low))


if __name__ == '__main__':
    main()

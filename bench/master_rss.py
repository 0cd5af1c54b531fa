#!/usr/bin/env python
"""The master's resident memory over a long `run-scenario --noop` run.

    python bench/master_rss.py [-r 60] [--runs 1] [--cases u24w2b1]

Runs `python -m ssbench.cli.master -q run-scenario -f
scenarios/very_small.scenario -u U -r SECONDS --workers W --batch-size B
--noop -R` on free ports with a stats file in a temporary directory
(removed afterwards), samples the master's VmRSS from /proc every
--interval seconds (its local workers are other processes and are not
counted), and prints one line per run:

    rss u24 w2 b1 r60: 31.2 MB at 5 s, 33.0 MB at the end (max 33.4 MB,
    +1.8 MB/min over the last 3/4), 1,512,000 results

The benchmark phase starts a few seconds in, so growth is judged over
the last three quarters of the samples.  The results themselves stream
to the stats file; what may grow is the bookkeeping of live objects
(each successful CREATE adds one to the ring of its size class).
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
CASE = re.compile(r'^u(\d+)w(\d+)b(\d+)$')


def rss_mb(pid):
    """VmRSS of a process in MB, or None once it is gone."""
    try:
        with open('/proc/%d/status' % pid) as status:
            for line in status:
                if line.startswith('VmRSS:'):
                    return int(line.split()[1]) / 1024.0
    except (IOError, OSError):
        return None
    return None


def count_results(path, python, root):
    """Results in a stats file, read with the project's own reader."""
    code = ('import sys\n'
            'from ssbench.results.statsreader import open_stats\n'
            'stats = open_stats(sys.argv[1])\n'
            'print(sum(len(b) for b in stats.iter_batches(raw=True)))\n')
    try:
        out = subprocess.check_output([python, '-c', code, path], cwd=root)
        return int(out.decode('ascii').strip())
    except (subprocess.CalledProcessError, ValueError):
        return None


def run_once(args, users, workers, batch):
    tmp = tempfile.mkdtemp(prefix='ssbench-rss-bench-')
    try:
        stats = os.path.join(tmp, 'noop.stat')
        argv = [args.python, '-m', 'ssbench.cli.master', '-q',
                'run-scenario', '-f', args.scenario, '-u', str(users),
                '-r', str(args.run_seconds), '--workers', str(workers),
                '--batch-size', str(batch), '--noop', '-R',
                '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', '0',
                '--zmq-results-port', '0', '-s', stats]
        err_path = os.path.join(tmp, 'stderr')
        with open(err_path, 'wb') as err:
            began = time.time()
            child = subprocess.Popen(argv, cwd=args.root, stdout=err,
                                     stderr=err)
            samples = []
            deadline = began + args.run_seconds + args.timeout
            try:
                while child.poll() is None and time.time() < deadline:
                    value = rss_mb(child.pid)
                    if value is not None:
                        samples.append((time.time() - began, value))
                    time.sleep(args.interval)
            finally:
                if child.poll() is None:
                    child.kill()
                child.wait()
        if child.returncode != 0:
            with open(err_path, 'rb') as err:
                raise RuntimeError('exit status %d: %s' % (
                    child.returncode, err.read()[-2000:].decode(
                        'utf-8', 'replace')))
        count = count_results(stats + '.gz', args.python, args.root)
        return samples, count
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def describe(samples):
    at5 = [v for t, v in samples if t >= 5] or [samples[0][1]]
    tail = samples[len(samples) // 4:]
    slope = 0.0
    if len(tail) >= 2 and tail[-1][0] > tail[0][0]:
        # least squares over the tail, MB per minute
        n = len(tail)
        mean_t = sum(t for t, _ in tail) / n
        mean_v = sum(v for _, v in tail) / n
        num = sum((t - mean_t) * (v - mean_v) for t, v in tail)
        den = sum((t - mean_t) ** 2 for t, _ in tail)
        slope = num / den * 60 if den else 0.0
    return at5[0], samples[-1][1], max(v for _, v in samples), slope


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('-r', '--run-seconds', type=int, default=60)
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--cases', default='u24w2b1',
                        help='comma-separated uUSERSwWORKERSbBATCH cases')
    parser.add_argument('--interval', type=float, default=0.5,
                        help='seconds between RSS samples')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--scenario', default=SCENARIO)
    parser.add_argument('--root', default=ROOT,
                        help='source tree to run (its ssbench package wins '
                             'over the installed one)')
    parser.add_argument('--timeout', type=float, default=120.0,
                        help='seconds a run may take beyond run_seconds')
    parser.add_argument('--trace', action='store_true',
                        help='also print every sample')
    args = parser.parse_args(argv)
    args.root = os.path.abspath(args.root)
    status = 0
    for text in args.cases.split(','):
        match = CASE.match(text.strip())
        if match is None:
            parser.error('%r is not like u24w2b1' % (text,))
        users, workers, batch = [int(g) for g in match.groups()]
        label = 'rss u%d w%d b%d r%d' % (users, workers, batch,
                                         args.run_seconds)
        for _ in range(args.runs):
            try:
                samples, count = run_once(args, users, workers, batch)
            except RuntimeError as exc:
                print('%s: FAILED: %s' % (label, exc))
                status = 1
                continue
            if not samples:
                print('%s: no samples' % label)
                status = 1
                continue
            if args.trace:
                for when, value in samples:
                    print('  %6.1f s %7.1f MB' % (when, value))
            first, last, peak, slope = describe(samples)
            print('%s: %.1f MB at 5 s, %.1f MB at the end (max %.1f MB, '
                  '%+.1f MB/min over the last 3/4), %s results' % (
                      label, first, last, peak, slope,
                      '{:,}'.format(count) if count is not None else '?'))
            sys.stdout.flush()
    return status


if __name__ == '__main__':
    sys.exit(main())

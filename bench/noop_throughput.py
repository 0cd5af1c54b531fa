#!/usr/bin/env python
"""Throughput of `run-scenario --noop` through the real CLI.

    python bench/noop_throughput.py [--runs 5] [--cases u24w2b1,u24w2b8]
                                    [-o 30000] [-q] [--root TREE]...

Each case runs what `ssbench-master run-scenario -f
scenarios/very_small.scenario -u U -o OPS --workers W --batch-size B
--noop` runs, in a child process (the CLI's main() behind a small wrapper
that also reads the CPU time of the master and of the local workers it
reaped), on free ports (port 0) and with a stats file in a temporary
directory (removed afterwards).  Progress characters go to a file, as a
user would see them, unless -q.  It parses the TOTAL "Average requests per
second" of the report and prints one line per case:

    noop u24 w2 b1: median 27,100 req/s (min ..., max ..., 5 runs) wall
    1.9 s; CPU/req master 24.3 us, workers 31.5 us

`wall` is the median wall time of the whole command, start to report
printed (spawning workers, the run, gzip and the report included); the
CPU figures are medians too and include start-up (imports), so they fall
with larger -o.  Targets: u24 w2 b1 >= 25,000 req/s, u24 w2 b8 >= 45,000
req/s.  The machine is shared: compare medians, read the range as the
noise, and compare trees by naming each with --root: they take turns run
by run, and each line after the first tree's gives its rate's ratio to
the first's.
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

from benchlib import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
DEFAULT_CASES = 'u24w2b1,u24w2b8,u4w1b1'
RATE = re.compile(r'Average requests per second:\s*([0-9.]+|inf)')
CASE = re.compile(r'^u(\d+)w(\d+)b(\d+)$')


def parse_case(text):
    match = CASE.match(text.strip())
    if match is None:
        raise argparse.ArgumentTypeError('%r is not like u24w2b1' % (text,))
    return tuple(int(g) for g in match.groups())


# Runs the CLI's main() in this child so that its own CPU time (the master)
# and its reaped children's (the local workers) can be told apart; the
# report is rendered by a second main() call, as run-scenario would.
WRAPPER = """
import resource, sys
from ssbench.cli.master import main
argv, stats = sys.argv[1:], sys.argv[-1]
status = main(argv + ['-R'])
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
if status == 0:
    status = main(['-q', 'report-scenario', '-s', stats + '.gz'])
sys.stderr.write('CPU %f %f\\n' % (me.ru_utime + me.ru_stime,
                                   kids.ru_utime + kids.ru_stime))
sys.exit(status)
"""


class Run(object):
    def __init__(self, rate, wall, master_cpu, workers_cpu, ops):
        self.rate = rate
        self.wall = wall
        # microseconds of CPU per request
        self.master_us = master_cpu / ops * 1e6
        self.workers_us = workers_cpu / ops * 1e6


def run_once(python, users, workers, batch, ops, scenario, timeout,
             root=ROOT, quiet=False, extra=()):
    """One run; returns a Run."""
    tmp = tempfile.mkdtemp(prefix='ssbench-noop-bench-')
    try:
        stats = os.path.join(tmp, 'noop.stat')
        argv = [python, '-c', WRAPPER] + (['-q'] if quiet else []) + [
                'run-scenario',
                '-f', scenario, '-u', str(users), '-o', str(ops),
                '--workers', str(workers), '--batch-size', str(batch),
                '--noop', '--zmq-bind-ip', '127.0.0.1',
                '--zmq-work-port', '0', '--zmq-results-port', '0'] + \
            list(extra) + ['-s', stats]
        # Files, not pipes: progress characters would fill a pipe.
        out_path = os.path.join(tmp, 'stdout')
        err_path = os.path.join(tmp, 'stderr')
        with open(out_path, 'wb') as out_file:
            with open(err_path, 'wb') as err_file:
                began = time.time()
                child = subprocess.Popen(argv, cwd=root, stdout=out_file,
                                         stderr=err_file)
                deadline = began + timeout
                while child.poll() is None and time.time() < deadline:
                    time.sleep(0.01)
                wall = time.time() - began
                if child.poll() is None:
                    child.kill()
                    child.wait()
                    raise RuntimeError('run did not finish in %.0f s'
                                       % timeout)
        with open(out_path, 'rb') as out_file:
            out = out_file.read().decode('utf-8', 'replace')
        with open(err_path, 'rb') as err_file:
            err = err_file.read().decode('utf-8', 'replace')
        if child.returncode != 0:
            raise RuntimeError('exit status %d: %s' % (
                child.returncode, err[-2000:]))
        match = RATE.search(out)   # the first one is TOTAL's
        if match is None:
            raise RuntimeError('no rate in the report:\n%s' % out[:2000])
        cpu = re.search(r'CPU ([0-9.]+) ([0-9.]+)', err)
        return Run(float(match.group(1)), wall, float(cpu.group(1)),
                   float(cpu.group(2)), ops)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=5,
                        help='runs per case (the median is reported)')
    parser.add_argument('--cases', default=DEFAULT_CASES,
                        help='comma-separated uUSERSwWORKERSbBATCH cases')
    parser.add_argument('-o', '--ops', type=int, default=30000,
                        help='operations per run')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--scenario', default=SCENARIO)
    parser.add_argument('--timeout', type=float, default=120.0,
                        help='seconds one run may take')
    parser.add_argument('--root', action='append', default=[],
                        help='source tree to run (its ssbench package wins '
                             'over the installed one), e.g. an old '
                             'checkout; repeat to take turns')
    parser.add_argument('-q', '--quiet', action='store_true',
                        help='pass -q (no progress characters; by default '
                             'they go to a file, as a user would see them)')
    parser.add_argument('--verbose', action='store_true',
                        help='print every run')
    args = parser.parse_args(argv)
    cases = [parse_case(c) for c in args.cases.split(',') if c.strip()]
    roots = [os.path.abspath(root) for root in args.root] or [ROOT]
    status = 0
    for users, workers, batch in cases:
        label = 'noop u%d w%d b%d' % (users, workers, batch)
        labels = dict((root, label + (' ' + root if len(roots) > 1 else ''))
                      for root in roots)
        runs = dict((root, []) for root in roots)
        failed = set()
        for _ in range(args.runs):
            for root in roots:
                if root in failed:
                    continue
                try:
                    run = run_once(args.python, users, workers, batch,
                                   args.ops, args.scenario, args.timeout,
                                   root, args.quiet)
                except RuntimeError as exc:
                    print('%s: FAILED: %s' % (labels[root], exc))
                    failed.add(root)
                    status = 1
                    continue
                runs[root].append(run)
                if args.verbose:
                    print('  %s: %.0f req/s, wall %.2f s, CPU/req master '
                          '%.1f us workers %.1f us' % (
                              labels[root], run.rate, run.wall,
                              run.master_us, run.workers_us))
                    sys.stdout.flush()
        first = median([r.rate for r in runs[roots[0]]]) \
            if runs[roots[0]] else None
        for root in roots:
            _summary(labels[root], runs[root],
                     first if root != roots[0] else None)
    return status


def _summary(label, runs, first_rate):
    """The medians of a tree's runs; with `first_rate`, the ratio of its
    rate to the first tree's."""
    if not runs:
        return
    rates = [r.rate for r in runs]
    ratio = ''
    if first_rate:
        ratio = ' (%.2f of the first tree)' % (median(rates) / first_rate)
    print('%s: median %s req/s%s (min %s, max %s, %d runs) wall %.1f s'
          '; CPU/req master %.1f us, workers %.1f us' % (
              label, '{:,.0f}'.format(median(rates)), ratio,
              '{:,.0f}'.format(min(rates)),
              '{:,.0f}'.format(max(rates)), len(runs),
              median([r.wall for r in runs]),
              median([r.master_us for r in runs]),
              median([r.workers_us for r in runs])))
    sys.stdout.flush()


if __name__ == '__main__':
    sys.exit(main())

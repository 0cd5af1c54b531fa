#!/usr/bin/env python
"""Time and peak RSS of report-scenario on big generated stats files.

    python bench/report_perf.py [--sizes 1000000,10000000] [--cli]
        [--repeat N] [--root TREE]...

For each size, generates (once, cached in --dir) a stats file with
bench/genstat.py, then runs the report in a child process: by default the
library calls report-scenario makes (statsfile -> classicstats.compute ->
classic.render_text), or with --cli `python -m ssbench.cli.master
report-scenario -s FILE -f /dev/null`.  Prints one line per case: wall
time, CPU time and the child's peak RSS (from wait4, so only that child
is measured).  Acceptance: 1M results < 6 s and < 60 MB; 10M < 60 s and
< 150 MB.

Every --root (default: this tree) reports the same file in its turn,
--repeat times, so that a busy machine weighs on all alike; with more
than one, a line per tree gives the medians and their ratio to the first
tree's (a tree before a change against the tree after it):

    report 1000000: /work/after: cpu 3.10 s (0.97 of the first), ...
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import subprocess
import sys
import time

from benchlib import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

LIBRARY_RUN = '''
import sys
from ssbench.report.compute import classicstats
from ssbench.report.render import classic
run_stats = classicstats.compute(sys.argv[1], int(sys.argv[2]))
with open('/dev/null', 'w') as out:
    classic.render_text(run_stats, out)
'''


def ensure_stats_file(directory, count, python):
    path = os.path.join(directory, 'genstat-%d.stat' % count)
    if not os.path.exists(path + '.gz'):
        subprocess.check_call([python, os.path.join(HERE, 'genstat.py'),
                               '-n', str(count), '-o', path])
    return path + '.gz'


def measure(argv, root=ROOT):
    """Run argv in `root` (its ssbench first on the path); return (exit
    status, wall s, cpu s, peak RSS MB)."""
    env = dict(os.environ, PYTHONPATH=root)
    began = time.time()
    child = subprocess.Popen(argv, cwd=root, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = status  # keep Popen from waiting again
    wall = time.time() - began
    # ru_maxrss is in kilobytes on Linux.
    return (status, wall, usage.ru_utime + usage.ru_stime,
            usage.ru_maxrss / 1024)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--sizes', default='1000000,10000000')
    parser.add_argument('--dir', default='/tmp/ssbench-bench')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--pctile', type=int, default=95)
    parser.add_argument('--cli', action='store_true',
                        help='run ssbench-master report-scenario instead')
    parser.add_argument('--repeat', type=int, default=1)
    parser.add_argument('--root', action='append', default=[],
                        help='a tree to run (repeat; default: this one)')
    args = parser.parse_args(argv)
    roots = [os.path.abspath(root) for root in args.root] or [ROOT]
    if not os.path.isdir(args.dir):
        os.makedirs(args.dir)
    limits = {1000000: (6, 60), 10000000: (60, 150)}
    failed = False
    for count in [int(n) for n in args.sizes.split(',')]:
        path = ensure_stats_file(args.dir, count, args.python)
        if args.cli:
            command = [args.python, '-m', 'ssbench.cli.master',
                       'report-scenario', '-s', path, '-f', os.devnull,
                       '--pctile', str(args.pctile)]
        else:
            command = [args.python, '-c', LIBRARY_RUN, path,
                       str(args.pctile)]
        runs = dict((root, []) for root in roots)
        limit = limits.get(count)
        size_mb = os.path.getsize(path) / 1e6
        for _ in range(args.repeat):
            for root in roots:
                status, wall, cpu, rss = measure(command, root)
                failed = failed or status != 0
                runs[root].append((wall, cpu, rss))
                verdict = ''
                if limit:
                    verdict = ' (limits %d s, %d MB: %s)' % (
                        limit[0], limit[1],
                        'ok' if wall < limit[0] and rss < limit[1]
                        else 'OVER')
                print('report %s: %d results (%.0f MB gz)%s: wall %.2f s, '
                      'cpu %.2f s, peak RSS %.1f MB, exit %d%s' % (
                          'cli' if args.cli else 'lib', count, size_mb,
                          ' ' + root if len(roots) > 1 else '', wall, cpu,
                          rss, status, verdict))
                sys.stdout.flush()
        if len(roots) > 1:
            _compare(count, roots, runs)
    return 1 if failed else 0


def _compare(count, roots, runs):
    """A line per tree: its medians, and their ratio to the first tree's."""
    first = [median([run[i] for run in runs[roots[0]]]) for i in range(3)]
    for root in roots:
        wall, cpu, rss = [median([run[i] for run in runs[root]])
                          for i in range(3)]
        print('report %d: %s: cpu %.2f s (%.2f of the first), wall %.2f s '
              '(%.2f), peak RSS %.1f MB (%.2f), medians of %d' % (
                  count, root, cpu, cpu / first[1], wall, wall / first[0],
                  rss, rss / first[2], len(runs[root])))
    sys.stdout.flush()


if __name__ == '__main__':
    sys.exit(main())

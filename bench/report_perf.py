#!/usr/bin/env python
"""Time and peak RSS of report-scenario on big generated stats files.

    python bench/report_perf.py [--sizes 1000000,10000000] [--cli]

For each size, generates (once, cached in --dir) a stats file with
bench/genstat.py, then runs the report in a child process: by default the
library calls report-scenario makes (statsfile -> classicstats.compute ->
classic.render_text), or with --cli `python -m ssbench.cli.master
report-scenario -s FILE -f /dev/null`.  Prints one line per case: wall
time, CPU time and the child's peak RSS (from wait4, so only that child
is measured).  Acceptance: 1M results < 6 s and < 60 MB; 10M < 60 s and
< 150 MB.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import subprocess
import sys
import time

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


def measure(argv):
    """Run argv; return (exit status, wall s, cpu s, peak RSS MB)."""
    began = time.time()
    child = subprocess.Popen(argv, cwd=ROOT)
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
    args = parser.parse_args(argv)
    if not os.path.isdir(args.dir):
        os.makedirs(args.dir)
    limits = {1000000: (6, 60), 10000000: (60, 150)}
    for count in [int(n) for n in args.sizes.split(',')]:
        path = ensure_stats_file(args.dir, count, args.python)
        if args.cli:
            command = [args.python, '-m', 'ssbench.cli.master',
                       'report-scenario', '-s', path, '-f', os.devnull,
                       '--pctile', str(args.pctile)]
        else:
            command = [args.python, '-c', LIBRARY_RUN, path,
                       str(args.pctile)]
        for _ in range(args.repeat):
            status, wall, cpu, rss = measure(command)
            limit = limits.get(count)
            verdict = ''
            if limit:
                verdict = ' (limits %d s, %d MB: %s)' % (
                    limit[0], limit[1],
                    'ok' if wall < limit[0] and rss < limit[1] else 'OVER')
            print('report %s: %d results (%.0f MB gz): wall %.2f s, cpu %.2f '
                  's, peak RSS %.1f MB, exit %d%s' % (
                      'cli' if args.cli else 'lib', count,
                      os.path.getsize(path) / 1e6, wall, cpu, rss, status,
                      verdict))
            sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())

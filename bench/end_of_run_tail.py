#!/usr/bin/env python
"""How long the master waits for the last results at the end of a run.

    python bench/end_of_run_tail.py [--runs 5] [--cases u24w2b8,u24w2b1]
                                    [-o 2003] [--compare-root TREE]

Each run is `ssbench-master run-scenario -f scenarios/very_small.scenario
-u U -o OPS --workers W --batch-size B --noop -q -R` in a child process
whose master notes the wall-clock time at which each message of results
reached it.  The tail is that time for the last message less the latest
`completed_at` in the stats file (when a worker answered the last job):
how long finished results sat in a worker before the master had them
all.  Master and workers share this host's clock.  An operation count
that is not a multiple of the batch size leaves a partial batch at the
end.  With --compare-root the runs alternate between this tree and
TREE (say, an export of the tree before a change) and both are printed:

    noop u24 w2 b8 (this tree): tail median 2 ms (min 1, max 4, 5 runs),
    wall 1.9 s
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

from benchlib import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
DEFAULT_CASES = 'u24w2b8,u24w2b1'

# The master's scenario run stores each message of results through its
# Store sink (ssbench.master.pipeline): wrap it to note when each one came.
WRAPPER = """
import sys, time
from ssbench.master import pipeline
from ssbench.cli.master import main
from ssbench.results.statsreader import open_stats
last = [None]
store = pipeline.Store.results
def noted(self, message):
    last[0] = time.time()
    store(self, message)
pipeline.Store.results = noted
argv, stats = sys.argv[1:], sys.argv[-1]
status = main(argv)
if status == 0:
    ended = max(r['completed_at'] for r in
                open_stats(stats + '.gz').iter_results())
    sys.stderr.write('TAIL %r\\n' % (last[0] - ended))
sys.exit(status)
"""


def parse_case(text):
    try:
        users, rest = text.strip()[1:].split('w')
        workers, batch = rest.split('b')
        return int(users), int(workers), int(batch)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not like u24w2b8' % (text,))


def run_once(python, root, users, workers, batch, ops, timeout):
    """One run in `root`: (tail seconds, wall seconds)."""
    tmp = tempfile.mkdtemp(prefix='ssbench-tail-bench-')
    try:
        stats = os.path.join(tmp, 'noop.stat')
        argv = [python, '-c', WRAPPER, '-q', 'run-scenario',
                '-f', SCENARIO, '-u', str(users), '-o', str(ops),
                '--workers', str(workers), '--batch-size', str(batch),
                '--noop', '-R', '--zmq-bind-ip', '127.0.0.1',
                '--zmq-work-port', '0', '--zmq-results-port', '0',
                '-s', stats]
        env = dict(os.environ, PYTHONPATH=root)
        err_path = os.path.join(tmp, 'stderr')
        with open(err_path, 'wb') as err_file:
            began = time.time()
            child = subprocess.Popen(argv, cwd=root, env=env,
                                     stdout=err_file, stderr=err_file)
            while child.poll() is None and time.time() < began + timeout:
                time.sleep(0.01)
            wall = time.time() - began
            if child.poll() is None:
                child.kill()
                child.wait()
                raise RuntimeError('run did not finish in %.0f s' % timeout)
        with open(err_path, 'rb') as err_file:
            err = err_file.read().decode('utf-8', 'replace')
        tails = [line.split()[1] for line in err.splitlines()
                 if line.startswith('TAIL ')]
        if child.returncode != 0 or not tails:
            raise RuntimeError('exit status %d: %s' % (child.returncode,
                                                       err[-2000:]))
        return float(tails[0]), wall
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=5,
                        help='runs per case and tree (medians printed)')
    parser.add_argument('--cases', default=DEFAULT_CASES,
                        help='comma-separated uUSERSwWORKERSbBATCH cases')
    parser.add_argument('-o', '--ops', type=int, default=2003,
                        help='operations per run')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--timeout', type=float, default=120.0,
                        help='seconds one run may take')
    parser.add_argument('--compare-root', metavar='TREE',
                        help='a second source tree, run in alternation')
    args = parser.parse_args(argv)
    trees = [('this tree', ROOT)]
    if args.compare_root:
        trees.append((args.compare_root, os.path.abspath(args.compare_root)))
    for text in args.cases.split(','):
        users, workers, batch = parse_case(text)
        runs = dict((name, []) for name, _ in trees)
        for _ in range(args.runs):
            for name, root in trees:
                runs[name].append(run_once(args.python, root, users,
                                           workers, batch, args.ops,
                                           args.timeout))
        for name, _ in trees:
            tails = [tail * 1000 for tail, _ in runs[name]]
            print('noop u%d w%d b%d (%s): tail median %.0f ms (min %.0f, '
                  'max %.0f, %d runs), wall %.1f s' % (
                      users, workers, batch, name, median(tails),
                      min(tails), max(tails), len(tails),
                      median([wall for _, wall in runs[name]])))
            sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())

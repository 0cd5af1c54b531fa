#!/usr/bin/env python
"""What skewed object popularity costs the master, per job and per pick.

    python bench/popularity_pick.py [--objects 100000] [--jobs 200000]
                                    [--baseline TREE] [--repeat 3]

For each case, a child process (PYTHONPATH = the tree) builds a scenario
of one size class with --objects initial objects and crud_profile
[10, 70, 10, 10], and times, in CPU seconds (os.times), the master's
side of a run without the wire:

- job: bench_jobs() drawing --jobs jobs from an ObjectRing, each job's
  result handed back to the ring 64 at a time (as the master does);
- pick: ObjectRing.take() of a READ alone, answered 64 at a time.

Cases: uniform (no popularity key: 0.3.9's rotation), zipf (exponent
1.2) and hotspot (10% of the objects take 90% of the picks) of this
tree, and uniform of --baseline (e.g. a worktree of main) in the same
run.  Prints microseconds per job and per pick, the best of --repeat.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = r'''
import os, random, sys
from ssbench import READ_OBJECT
from ssbench.load import jobgen
from ssbench.load.objectring import ObjectRing
from ssbench.load.scenario import Scenario

kind, objects, jobs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
data = {'name': 'pick', 'user_count': 64, 'operation_count': jobs,
        'sizes': [{'name': 'tiny', 'size_min': 1, 'size_max': 1}],
        'initial_files': {'tiny': objects}, 'crud_profile': [10, 70, 10, 10]}
if kind == 'zipf':
    data['popularity'] = {'kind': 'zipf', 'exponent': 1.2}
elif kind == 'hotspot':
    data['popularity'] = {'kind': 'hotspot', 'objects': 0.1, 'share': 0.9}
scenario = Scenario(data)


def ring():
    made = ObjectRing()
    if kind != 'uniform':
        from ssbench.load import popularity
        made.rank_by(popularity.pickers(scenario, random.Random(1)))
    made.load(jobgen.initial_objects(scenario))
    return made


def cpu():
    times = os.times()
    return times[0] + times[1]


objects_ring = ring()
window = []
start = cpu()
for job in jobgen.bench_jobs(scenario, random.Random(2), objects_ring):
    if job is not jobgen.WAIT:
        window.append(job)
    if len(window) >= 64 or job is jobgen.WAIT:
        objects_ring.on_results(window)
        window = []
per_job = (cpu() - start) / jobs

objects_ring = ring()
take = objects_ring.take
start = cpu()
for _ in range(jobs // 64):
    window = []
    for _ in range(64):
        container, name = take('tiny', READ_OBJECT)
        window.append({'type': READ_OBJECT, 'name': name})
    objects_ring.on_results(window)
per_pick = (cpu() - start) / (jobs // 64 * 64)
print('%.3f %.3f' % (per_job * 1e6, per_pick * 1e6))
'''


def run_case(root, kind, args):
    env = dict(os.environ, PYTHONPATH=root)
    best = None
    for _ in range(args.repeat):
        out = subprocess.check_output(
            [args.python, '-c', CHILD, kind, str(args.objects),
             str(args.jobs)], env=env, cwd=root)
        figures = tuple(float(v) for v in out.split())
        best = figures if best is None else tuple(
            min(a, b) for a, b in zip(best, figures))
    return best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--objects', type=int, default=100000)
    parser.add_argument('--jobs', type=int, default=200000)
    parser.add_argument('--baseline', help='another tree (e.g. a worktree '
                        'of main): its uniform figures too')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args(argv)
    cases = []
    if args.baseline:
        cases.append(('baseline', os.path.abspath(args.baseline),
                      'uniform'))
    cases += [('this', ROOT, kind) for kind in ('uniform', 'zipf',
                                                'hotspot')]
    print('%d objects, %d jobs, best of %d, CPU microseconds' % (
        args.objects, args.jobs, args.repeat))
    print('%-9s %-8s %10s %10s' % ('tree', 'kind', 'us/job', 'us/pick'))
    for label, root, kind in cases:
        per_job, per_pick = run_case(root, kind, args)
        print('%-9s %-8s %10.2f %10.2f' % (label, kind, per_job, per_pick))
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())

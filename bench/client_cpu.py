#!/usr/bin/env python
"""Client CPU per request against a real Swift: ssbench vs a swiftclient loop.

    python bench/client_cpu.py [--ops 600,6000] [-u 24] [--workers 2]
                               [-b 1] [--runs 3] [-A URL -U USER -K KEY]

Both clients run the same job mix (scenarios/very_small.scenario, under a
container base of its own, `ssbcpu`, and 10 containers) with the same
concurrency against the Swift at -A (default: tools/saio's on
127.0.0.1:8080):

- ssbench: `python -m ssbench.cli.master -q run-scenario --workers W -k -R`
  in a child process; its CPU (user + sys, from wait4, which includes the
  local workers it reaped) is the whole client tree's.
- swiftclient: a child process running U threads, each with its own
  `swiftclient.client.Connection`, doing the jobs
  ssbench.load.jobgen.bench_jobs yields (PUT of 'A' * size, GET read in 64 KiB
  chunks, PUT of 'B', DELETE).

Each client runs at two operation counts; the CPU per request is the
difference in CPU over the difference in requests, so start-up, auth,
container checks and the initial population (which only HEADs once it
exists) cancel out.  The clients take turns run by run.  Prints, per client,
the median over --runs, then the ratio of the medians and of each run:

    ssbench u24 w2 b1: 412 us CPU/request (min ..., max ...; 3 runs)
    swiftclient u24: 1,530 us CPU/request (...)
    ssbench / swiftclient: 0.27 (run by run: 0.26, 0.27, 0.30)

and at the end deletes the `ssbcpu_*` containers it used.
"""
from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from benchlib import measure, median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
BASE = 'ssbcpu'

# The swiftclient loop, run as `python -c LOOP scenario ops users url user
# key`; prints "done N errors E".
LOOP = r'''
import sys, threading, random
from swiftclient import client as sc
from ssbench import CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT
from ssbench.load import jobgen
from ssbench.load.objectring import ObjectRing
from ssbench.load.scenario import load_scenario

path, ops, users, url, user, key = sys.argv[1:7]
ops, users = int(ops), int(users)
scenario = load_scenario(path, {'operation_count': ops, 'user_count': users})
ring = ObjectRing()
ring.load(jobgen.initial_objects(scenario))
lock = threading.Lock()
jobs = jobgen.bench_jobs(scenario, random.Random(), ring)
counts = {'done': 0, 'errors': 0}


def drain(resp):
    for _ in resp:
        pass


def work():
    conn = sc.Connection(authurl=url, user=user, key=key)
    while True:
        with lock:
            job = next(jobs, None)
        if job is None:
            break
        kind = job['type']
        result = dict(job)
        try:
            if kind == CREATE_OBJECT or kind == UPDATE_OBJECT:
                fill = b'A' if kind == CREATE_OBJECT else b'B'
                conn.put_object(job['container'], job['name'],
                                contents=fill * job['size'])
            elif kind == READ_OBJECT:
                headers, body = conn.get_object(
                    job['container'], job['name'], resp_chunk_size=65536)
                drain(body)
            elif kind == DELETE_OBJECT:
                conn.delete_object(job['container'], job['name'])
        except Exception as exc:
            result['exception'] = str(exc)
        with lock:
            ring.on_results([result])
            counts['errors' if 'exception' in result else 'done'] += 1
    conn.close()


threads = [threading.Thread(target=work) for _ in range(users)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print('done %d errors %d' % (counts['done'], counts['errors']))
'''


def scenario_file(directory, source):
    with open(source) as handle:
        data = json.load(handle)
    data['container_base'] = BASE
    data['container_count'] = 10
    path = os.path.join(directory, 'client_cpu.scenario')
    with open(path, 'w') as handle:
        json.dump(data, handle)
    return path


def ssbench_cpu(args, scenario, ops, tmp):
    argv = [args.python, '-m', 'ssbench.cli.master', '-q', 'run-scenario',
            '-f', scenario, '-u', str(args.users), '-o', str(ops),
            '--workers', str(args.workers), '--batch-size',
            str(args.batch_size), '-k', '-R',
            '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', '0',
            '--zmq-results-port', '0', '-s', os.path.join(tmp, 'run.stat')]
    cpu, _ = measure(argv, args.root, args.env, args.timeout)
    os.remove(os.path.join(tmp, 'run.stat.gz'))
    return cpu


def swiftclient_cpu(args, scenario, ops):
    argv = [args.python, '-c', LOOP, scenario, str(ops), str(args.users),
            args.auth_url, args.user, args.key]
    cpu, text = measure(argv, args.root, args.env, args.timeout)
    if 'errors 0' not in text:
        sys.stderr.write('swiftclient loop: %s' % text[-500:])
    return cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--ops', default='600,6000',
                        help='the two operation counts (small,large)')
    parser.add_argument('-u', '--users', type=int, default=24)
    parser.add_argument('--workers', type=int, default=2)
    parser.add_argument('-b', '--batch-size', type=int, default=1,
                        help="ssbench's --batch-size (the swiftclient loop "
                             "has no such thing)")
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('-A', '--auth-url',
                        default='http://127.0.0.1:8080/auth/v1.0')
    parser.add_argument('-U', '--user', default='test:tester')
    parser.add_argument('-K', '--key', default='testing')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--scenario', default=SCENARIO)
    parser.add_argument('--root', default=ROOT,
                        help='source tree to run (its ssbench package wins)')
    parser.add_argument('--timeout', type=float, default=600.0)
    parser.add_argument('--skip', default='',
                        help='"ssbench" or "swiftclient" to run one only')
    args = parser.parse_args(argv)
    args.root = os.path.abspath(args.root)
    small, large = [int(n) for n in args.ops.split(',')]
    env = dict(os.environ)
    env.update({'ST_AUTH': args.auth_url, 'ST_USER': args.user,
                'ST_KEY': args.key})
    env.pop('ST_AUTH_VERSION', None)
    args.env = env
    tmp = tempfile.mkdtemp(prefix='ssbench-client-cpu-')
    results = {}
    try:
        scenario = scenario_file(tmp, args.scenario)
        clients = []
        if args.skip != 'ssbench':
            clients.append(('ssbench u%d w%d b%d' % (args.users, args.workers,
                                                     args.batch_size),
                            lambda ops: ssbench_cpu(args, scenario, ops,
                                                    tmp)))
        if args.skip != 'swiftclient':
            clients.append(('swiftclient u%d' % args.users,
                            lambda ops: swiftclient_cpu(args, scenario,
                                                        ops)))
        # Create the containers and the population once, untimed.
        ssbench_cpu(args, scenario, 1, tmp)
        # The clients take turns, run by run, so that whatever else the
        # machine (and the Swift) does meanwhile weighs on both alike.
        for label, _ in clients:
            results[label] = []
        for _ in range(args.runs):
            for label, run in clients:
                # Restore the population the previous run's DELETEs took,
                # so both measured runs only HEAD it.
                ssbench_cpu(args, scenario, 1, tmp)
                low = run(small)
                ssbench_cpu(args, scenario, 1, tmp)
                high = run(large)
                results[label].append((high - low) / (large - small) * 1e6)
        for label, _ in clients:
            per_request = results[label]
            print('%s: %s us CPU/request (min %s, max %s; %d runs)' % (
                label, '{:,.0f}'.format(median(per_request)),
                '{:,.0f}'.format(min(per_request)),
                '{:,.0f}'.format(max(per_request)), len(per_request)))
        if len(results) == 2:
            ours, theirs = [results[label] for label, _ in clients]
            paired = [a / b for a, b in zip(ours, theirs)]
            print('ssbench / swiftclient: %.2f (run by run: %s)' % (
                median(ours) / median(theirs),
                ', '.join('%.2f' % ratio for ratio in paired)))
    finally:
        try:
            subprocess.call(
                [args.python, '-m', 'ssbench.cli.master', '-q',
                 'cleanup-containers', '-b', BASE],
                cwd=args.root, env=env)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())

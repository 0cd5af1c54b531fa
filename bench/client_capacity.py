#!/usr/bin/env python
"""Client capacity against a canned Swift: ssbench, 0.3.9 and wrk.

    python bench/client_capacity.py [--runs 5] [--original PATH]
        [--cases swift,noop,large] [-o 20000] [--root TREE]

Starts bench/cannedswift.py (nginx, one worker process, on a free loopback
port) for the run and stops it at the end.  Cases, each printed as one
line per client with the median over --runs (the clients take turns, run
by run, so that whatever else the machine does weighs on all alike):

- swift: `run-scenario -f scenarios/very_small.scenario -u 64 --workers 2
  -o 20000 -k` (default --batch-size 1) by this tree (--root); by 0.3.9
  when --original names its ssbench-master (else the figures recorded in
  issue 12 are printed); and `wrk -t2 -c64` GETs of a 4 KiB object when
  wrk is installed.  req/s is the report's TOTAL "Average requests per
  second" (wrk's own figure for wrk); CPU/req is the user + sys CPU of the
  whole client process tree (from wait4: the master and the local
  workers it reaped) over the benchmark's requests, start-up included.
  Ratios are to wrk's median.
- noop: `--noop -u 24 --workers 2 -o 30000` at --batch-size 1 and 8, this
  tree and (if given) 0.3.9.
- large: a standalone worker (-c 4) and a master (-u 4) doing four 1 GiB
  PUTs, then four 1 GiB GETs; prints the worker's peak RSS growth over its
  RSS after a warm-up of four 1-byte PUTs (the target: under 20 MB).

    swift ssbench u64 w2 b1: 7,380 req/s (min .., max ..; 5 runs),
        372 us CPU/req; 0.25 of wrk
"""
from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import benchlib
import cannedswift
from benchlib import (Failed, free_ports, measure, median,
                      which)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
RATE = re.compile(r'Average requests per second:\s*([0-9.]+)')
# Issue 12's figures for 0.3.9 (same machine, same case), shown when no
# installed 0.3.9 is given.
RECORDED_ORIGINAL = ('swift 0.3.9 u64 w2 b1 (recorded in issue 12): '
                     '1,900 - 2,600 req/s, 925 - 944 us CPU/req')
LARGE_USERS = 4
GIB = 1 << 30


class Client(object):
    """One ssbench (ours or 0.3.9) as a command line."""

    def __init__(self, label, command, cwd, results_flag):
        self.label = label
        self.command = command        # argv prefix up to 'run-scenario'
        self.cwd = cwd
        self.results_flag = results_flag

    def run(self, args, tmp, extra, ops):
        work, results = free_ports(2)
        stats = os.path.join(tmp, 'run.stat')
        argv = self.command + [
            'run-scenario', '-f', args.scenario, '-o', str(ops),
            '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', str(work),
            self.results_flag, str(results), '-s', stats] + extra
        cpu, out = measure(argv, self.cwd, timeout=args.timeout)
        for name in os.listdir(tmp):
            if name.startswith('run.stat'):
                os.remove(os.path.join(tmp, name))
        match = RATE.search(out)      # the first one is TOTAL's
        if match is None:
            raise Failed('no rate in the report:\n%s' % out[-2000:])
        return float(match.group(1)), cpu / ops * 1e6


def clients(args):
    ours = Client('ssbench', [args.python, '-m', 'ssbench.cli.master', '-q'],
                  args.root, '--zmq-results-port')
    found = [ours]
    if args.original:
        found.append(Client('0.3.9', [args.original_python, args.original],
                            None, '--zmq-results_port'))
    return found


def wrk_run(args, port):
    url = 'http://127.0.0.1:%d/v1/%s/c/o' % (port, cannedswift.ACCOUNT)
    return benchlib.wrk_run(args.wrk, args.wrk_seconds, url,
                            cannedswift.TOKEN, args.timeout)


def line(label, runs, ratio_to=None):
    rates = [r for r, _ in runs]
    cpus = [c for _, c in runs]
    text = '%s: %s req/s (min %s, max %s; %d runs), %s us CPU/req' % (
        label, '{:,.0f}'.format(median(rates)),
        '{:,.0f}'.format(min(rates)), '{:,.0f}'.format(max(rates)),
        len(runs), '{:,.0f}'.format(median(cpus)))
    if ratio_to:
        text += '; %.2f of wrk' % (median(rates) / ratio_to)
    print(text)
    sys.stdout.flush()
    return median(rates)


def swift_case(args, port, tmp):
    auth = ['-A', cannedswift.auth_url(port), '-U', cannedswift.USER,
            '-K', cannedswift.KEY]
    extra = ['-u', '64', '--workers', '2', '-k'] + auth + args.extra
    turns = [(c.label, lambda c=c: c.run(args, tmp, extra, args.ops))
             for c in clients(args)]
    if args.wrk:
        turns.append(('wrk -t2 -c64 (GET 4 KiB)',
                      lambda: wrk_run(args, port)))
    # Containers and the initial objects: HEADs on a canned server.
    clients(args)[0].run(args, tmp, extra, 1)
    results = dict((label, []) for label, _ in turns)
    # Start-up: the tree's CPU for a 1-operation run (processes, imports,
    # auth, the population's HEADs, gzip), to tell it from the per-request
    # part.
    startup = dict((c.label, []) for c in clients(args))
    for _ in range(args.runs):
        for label, run in turns:
            results[label].append(run())
            if args.verbose:
                print('  %s: %.0f req/s %.0f us' % ((label,) +
                                                    results[label][-1]))
        for client in clients(args):
            startup[client.label].append(
                client.run(args, tmp, extra, 1)[1] / 1e6)
    wrk = median([r for r, _ in results[turns[-1][0]]]) if args.wrk \
        else None
    for label, _ in turns:
        if label.startswith('wrk'):
            line('swift ' + label, results[label])
        else:
            line('swift %s u64 w2 b1' % label, results[label], wrk)
            fixed = median(startup[label])
            print('  start-up %.2f s CPU (median of -o 1 runs); net of it '
                  '%s us CPU/req' % (fixed, '{:,.0f}'.format(median(
                      [c - fixed / args.ops * 1e6
                       for _, c in results[label]]))))
    if not args.original:
        print(RECORDED_ORIGINAL)


def noop_case(args, tmp):
    for batch in (1, 8):
        extra = ['-u', '24', '--workers', '2', '--noop', '--batch-size',
                 str(batch)] + args.extra
        found = clients(args)
        results = dict((c.label, []) for c in found)
        for _ in range(args.runs):
            for client in found:
                results[client.label].append(
                    client.run(args, tmp, extra, args.noop_ops))
        rates = {}
        for client in found:
            rates[client.label] = line('noop %s u24 w2 b%d' % (
                client.label, batch), results[client.label])
        if len(rates) == 2:
            print('noop b%d ssbench / 0.3.9: %.1fx' % (
                batch, rates['ssbench'] / rates['0.3.9']))


def rss_kib(pid, field):
    with open('/proc/%d/status' % pid) as handle:
        for text in handle:
            if text.startswith(field + ':'):
                return int(text.split()[1])
    raise Failed('no %s for pid %d' % (field, pid))


def large_case(args, port, tmp):
    """A standalone worker's peak RSS growth over four 1 GiB PUTs, then
    four 1 GiB GETs."""
    scenario = os.path.join(tmp, 'large.scenario')
    work, results = free_ports(2)
    auth = ['-A', cannedswift.auth_url(port), '-U', cannedswift.USER,
            '-K', cannedswift.KEY]
    log_path = os.path.join(tmp, 'worker.log')
    with open(log_path, 'wb') as log_file:
        worker = subprocess.Popen(
            [args.python, '-m', 'ssbench.cli.worker', '--zmq-host',
             '127.0.0.1', '--zmq-work-port', str(work),
             '--zmq-results-port', str(results), '-c', str(LARGE_USERS)] +
            auth + ['0'], cwd=args.root, stdout=log_file,
            stderr=subprocess.STDOUT)
    try:
        walls = []
        # A warm-up of 1-byte PUTs first: the worker's first job also
        # authenticates (imports and all), which is not streaming.
        for kind, crud, size in (('warm-up', [1, 0, 0, 0], 1),
                                 ('PUT', [1, 0, 0, 0], GIB),
                                 ('GET', [0, 1, 0, 0], GIB)):
            if kind == 'PUT':
                # Peak RSS from here on (Linux: 5 resets VmHWM to VmRSS).
                with open('/proc/%d/clear_refs' % worker.pid, 'w') as out:
                    out.write('5')
                before = rss_kib(worker.pid, 'VmRSS')
            with open(scenario, 'w') as handle:
                json.dump({
                    'name': 'large', 'container_count': 1,
                    'container_base': 'sslarge', 'user_count': LARGE_USERS,
                    'operation_count': LARGE_USERS, 'crud_profile': crud,
                    'initial_files': {'large': LARGE_USERS},
                    'sizes': [{'name': 'large', 'size_min': size,
                               'size_max': size}]}, handle)
            began = time.time()
            measure([args.python, '-m', 'ssbench.cli.master', '-q',
                     'run-scenario', '-f', scenario, '-k', '-R',
                     '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port',
                     str(work), '--zmq-results-port', str(results),
                     '-s', os.path.join(tmp, 'large-%s.stat' % kind)] +
                    auth, args.root, timeout=args.timeout)
            if kind != 'warm-up':
                walls.append('%s %.1f s' % (kind, time.time() - began))
        peak = rss_kib(worker.pid, 'VmHWM')
    finally:
        worker.terminate()
        try:
            worker.wait()
        except KeyboardInterrupt:
            worker.kill()
            raise
    growth = (peak - before) / 1024.0
    print('large: %d x 1 GiB PUT then GET by one worker (-c %d): peak RSS '
          '%.1f MB over %.1f MB before (%s): %s' % (
              LARGE_USERS, LARGE_USERS, growth, before / 1024.0,
              ', '.join(walls), 'OK' if growth < 20 else 'OVER 20 MB'))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=5)
    parser.add_argument('--cases', default='swift,noop,large')
    parser.add_argument('-o', '--ops', type=int, default=20000)
    parser.add_argument('--noop-ops', type=int, default=30000)
    parser.add_argument('--original', metavar='PATH',
                        help="0.3.9's ssbench-master script")
    parser.add_argument('--original-python', default=None,
                        help='its interpreter (default: the #! line)')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--root', default=ROOT,
                        help='source tree to run (its ssbench package wins)')
    parser.add_argument('--scenario', default=SCENARIO)
    parser.add_argument('--wrk-seconds', type=int, default=5)
    parser.add_argument('--timeout', type=float, default=300.0)
    parser.add_argument('--canned-dir', default=None,
                        help='directory of the canned Swift (default: a '
                             'temporary one)')
    parser.add_argument('--extra', default='',
                        help='more run-scenario flags for ssbench cases')
    parser.add_argument('--verbose', action='store_true')
    args = parser.parse_args(argv)
    args.root = os.path.abspath(args.root)
    args.extra = args.extra.split()
    args.wrk = which('wrk')
    if args.original and not args.original_python:
        with open(args.original) as handle:
            args.original_python = handle.readline()[2:].strip()
    cases = [c.strip() for c in args.cases.split(',') if c.strip()]
    tmp = tempfile.mkdtemp(prefix='ssbench-capacity-')
    canned_dir = args.canned_dir or os.path.join(tmp, 'canned')
    status = 0
    try:
        port = cannedswift.start(canned_dir)
        for case in cases:
            try:
                if case == 'swift':
                    swift_case(args, port, tmp)
                elif case == 'noop':
                    noop_case(args, tmp)
                elif case == 'large':
                    large_case(args, port, tmp)
                else:
                    parser.error('unknown case %r' % case)
            except Failed as exc:
                print('%s: FAILED: %s' % (case, exc))
                status = 1
    finally:
        try:
            cannedswift.stop(canned_dir)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return status


if __name__ == '__main__':
    sys.exit(main())

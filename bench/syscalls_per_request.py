#!/usr/bin/env python
"""System calls per request, of the master and of the workers, counted.

    python bench/syscalls_per_request.py [--ops 2000,12000] [-u 64]
        [--batch-size 1] [--noop] [--top 8] [--root TREE]

Starts bench/cannedswift.py (nginx on a free loopback port) unless
--noop, two standalone `ssbench-worker` processes (-c u/2 each) and a
`run-scenario -f scenarios/very_small.scenario -u U -o OPS -R` master,
each under its own `strace -f -c` (Debian's strace), once at each of the
two operation counts.  A count per request is

    (calls in the larger run - calls in the smaller) / (larger - smaller)

so start-up, auth, container checks and the population cancel out.
Prints, for the master and for the workers together, the total and the
--top system calls per request:

    workers u64 b1: 9.1 syscalls/request: sendto 2.0, recvfrom 2.9, ...
    master u64 b1: 4.2 syscalls/request: ...

strace slows the processes it traces several-fold: read counts here, never
speeds.  Against the canned Swift every request is a real keep-alive HTTP
request over loopback; with --noop only the ZeroMQ messages remain.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import cannedswift
from benchlib import Failed, free_ports, measure

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
WORKERS = 2


def parse_counts(path):
    """{syscall: calls} of an `strace -c` summary file."""
    counts = {}
    with open(path) as summary:
        for line in summary:
            fields = line.split()
            # % time, seconds, usecs/call, calls, [errors,] syscall
            if len(fields) in (5, 6) and fields[3].isdigit() and \
                    fields[-1] != 'total':
                counts[fields[-1]] = int(fields[3])
    return counts


def traced(out, argv):
    return ['strace', '-f', '-c', '-o', out, '--'] + argv


def one_run(args, tmp, ops, auth):
    """({syscall: calls} of the master, of the workers) of one run."""
    work_port, results_port = free_ports(2)
    python = [args.python]
    env = dict(os.environ, PYTHONPATH=args.root)
    concurrency = max(1, args.users // WORKERS)
    workers = []
    worker_files = []
    try:
        for worker_id in range(WORKERS):
            summary = os.path.join(tmp, 'worker%d.strace' % worker_id)
            worker_files.append(summary)
            log = open(os.path.join(tmp, 'worker%d.log' % worker_id), 'ab')
            try:
                workers.append(subprocess.Popen(
                    traced(summary, python + [
                        '-m', 'ssbench.cli.worker', '--zmq-host',
                        '127.0.0.1', '--zmq-work-port', str(work_port),
                        '--zmq-results-port', str(results_port), '-c',
                        str(concurrency), '--batch-size',
                        str(args.batch_size), str(worker_id)]),
                    env=env, cwd=args.root, stdout=log,
                    stderr=subprocess.STDOUT, preexec_fn=os.setsid))
            finally:
                log.close()
        master_file = os.path.join(tmp, 'master.strace')
        argv = python + [
            '-m', 'ssbench.cli.master', '-q', 'run-scenario', '-f',
            SCENARIO, '-u', str(args.users), '-o', str(ops), '-R',
            '--batch-size', str(args.batch_size), '--zmq-bind-ip',
            '127.0.0.1', '--zmq-work-port', str(work_port),
            '--zmq-results-port', str(results_port), '--expect-workers',
            str(WORKERS), '-s', os.path.join(tmp, 'run.stat'), '--force']
        if auth is None:
            argv.append('--noop')
        else:
            argv += ['-A', auth, '-U', 'bench:bench', '-K', 'bench', '-k']
        # Raises Failed on a non-zero exit or after the timeout.
        measure(traced(master_file, argv), cwd=args.root, env=env,
                timeout=args.timeout)
    finally:
        # kill-workers, not a signal: a signal would reach strace, which
        # then detaches without its summary.
        with open(os.devnull, 'w') as quiet:
            subprocess.call(python + [
                '-m', 'ssbench.cli.master', 'kill-workers', '--zmq-bind-ip',
                '127.0.0.1', '--zmq-work-port', str(work_port),
                '--zmq-results-port', str(results_port)], env=env,
                cwd=args.root, stdout=quiet, stderr=subprocess.STDOUT)
        _stop(workers)
    totals = {}
    for summary in worker_files:
        for name, calls in parse_counts(summary).items():
            totals[name] = totals.get(name, 0) + calls
    return parse_counts(master_file), totals


def _stop(procs):
    """Stop each strace and the worker it traces: a signal to strace
    alone would leave the worker running, so each pair has a process
    group of its own."""
    for proc in procs:
        if proc.poll() is None:
            _signal_group(proc, signal.SIGTERM)
    deadline = time.time() + 20
    for proc in procs:
        while proc.poll() is None and time.time() < deadline:
            time.sleep(0.05)
        _signal_group(proc, signal.SIGKILL)
        proc.wait()


def _signal_group(proc, signum):
    try:
        os.killpg(proc.pid, signum)
    except OSError:         # the group is gone already
        pass


def per_request(small, large, ops):
    """{syscall: calls per request} between two runs' counts."""
    return dict((name, (large.get(name, 0) - small.get(name, 0)) / ops)
                for name in set(small) | set(large))


def describe(label, rates, top):
    total = sum(rates.values())
    shown = sorted(rates.items(), key=lambda item: -item[1])[:top]
    return '%s: %.1f syscalls/request: %s' % (
        label, total, ', '.join('%s %.2f' % (name, rate)
                                for name, rate in shown if rate >= 0.01))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--ops', default='2000,12000',
                        help='the two operation counts (default 2000,12000)')
    parser.add_argument('-u', '--users', type=int, default=64)
    parser.add_argument('--batch-size', type=int, default=1)
    parser.add_argument('--noop', action='store_true',
                        help='--noop runs: no Swift, the messages alone')
    parser.add_argument('--top', type=int, default=8)
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--root', default=ROOT,
                        help='the tree whose ssbench runs (default: this)')
    parser.add_argument('--timeout', type=float, default=600.0)
    args = parser.parse_args(argv)
    small, large = sorted(int(n) for n in args.ops.split(','))
    if not any(os.access(os.path.join(d, 'strace'), os.X_OK)
               for d in os.environ.get('PATH', '').split(os.pathsep)):
        print('syscalls_per_request: needs strace (apt-get install strace)',
              file=sys.stderr)
        return 2
    tmp = tempfile.mkdtemp(prefix='ssbench-syscalls-')
    canned = os.path.join(tmp, 'canned')
    auth = None
    try:
        if not args.noop:
            auth = cannedswift.auth_url(cannedswift.start(canned))
        first = one_run(args, tmp, small, auth)
        second = one_run(args, tmp, large, auth)
    except (Failed, cannedswift.CannedError) as exc:
        print('syscalls_per_request: %s' % (exc,), file=sys.stderr)
        return 1
    finally:
        if auth is not None:
            cannedswift.stop(canned)
        shutil.rmtree(tmp, ignore_errors=True)
    ops = large - small
    case = 'u%d b%d%s' % (args.users, args.batch_size,
                          ' noop' if args.noop else '')
    print(describe('workers ' + case, per_request(first[1], second[1], ops),
                   args.top))
    print(describe('master ' + case, per_request(first[0], second[0], ops),
                   args.top))
    return 0


if __name__ == '__main__':
    sys.exit(main())

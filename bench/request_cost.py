#!/usr/bin/env python
"""Marginal client CPU per request, of trees side by side (and of wrk).

    python bench/request_cost.py [--runs 3] [--ops 10000,30000]
        [--cases swift,noop1,noop8] [--root TREE]... [--extra FLAGS]
        [--no-wrk]

Each case runs `run-scenario -f scenarios/very_small.scenario` at the two
operation counts, and a figure is the difference between them:

    CPU/req = (CPU of the larger run - CPU of the smaller) / (extra ops)

so that start-up (imports, spawning workers, auth, the population, gzip)
cancels; req/s is the TOTAL "Average requests per second" of the larger
run's report (rendered apart, its CPU not counted).  CPU is the user +
sys CPU of the whole client process tree (master and local workers, from
wait4).  Cases:

- swift: `-u 64 --workers 2 -k` against bench/cannedswift.py (nginx),
  started for the run and stopped at the end; wrk -t2 -c64 GETs of a
  4 KiB object take their turn too (wrk's CPU over its requests);
- s3: the swift case's run over S3 (`--s3`, path-style, unsigned
  payloads) against the same canned server's S3 answers: what signing
  (SigV4) adds to a request; the line "s3 / swift" gives the ratio of
  their CPU per request, tree by tree;
- noop1, noop8: `--noop -u 24 --workers 2` at --batch-size 1 and 8.

Every --root (default: this tree) takes its turn in each round, and so
does 0.3.9 when --original names its ssbench-master (run by the Python of
its first line, its bin directory first on PATH so that it finds its
ssbench-worker; not in the s3 case), so that a busy machine weighs on all
alike; a line per client and case gives the medians over --runs, and the
ratio of CPU/req to the first tree's and, in the swift case, to wrk's:

    swift  /work/main: 16,100 req/s, 125.3 us CPU/req (3 runs)
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import re
import shutil
import sys
import tempfile

import benchlib
import cannedswift
from benchlib import (Failed, free_ports, measure, median,
                      which)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
RATE = re.compile(r'Average requests per second:\s*([0-9.]+)')


def case_flags(case, port):
    if case == 'swift':
        return ['-u', '64', '--workers', '2', '-k', '-A',
                cannedswift.auth_url(port), '-U', cannedswift.USER,
                '-K', cannedswift.KEY]
    if case == 's3':
        # The swift case's run, over the canned server's S3 answers.
        return ['--s3', '-u', '64', '--workers', '2', '-k',
                '--endpoint-url', cannedswift.s3_endpoint(port)]
    if case in ('noop1', 'noop8'):
        return ['-u', '24', '--workers', '2', '--noop', '--batch-size',
                case[4:]]
    raise Failed('unknown case %r' % (case,))


class Client(object):
    """A client to run: a tree of this project, or 0.3.9."""

    def __init__(self, label, command, results_flag, cwd, env):
        self.label = label
        self.command = command        # argv up to 'run-scenario'
        self.results_flag = results_flag
        self.cwd = cwd
        self.env = env

    @classmethod
    def tree(cls, args, root):
        return cls(root, [args.python, '-m', 'ssbench.cli.master', '-q'],
                   '--zmq-results-port', root,
                   dict(os.environ, PYTHONPATH=root,
                        AWS_ACCESS_KEY_ID=cannedswift.S3_ACCESS,
                        AWS_SECRET_ACCESS_KEY=cannedswift.S3_SECRET,
                        AWS_REGION='us-east-1'))

    @classmethod
    def original(cls, path):
        with open(path) as handle:
            python = handle.readline()[2:].strip()
        bin_dir = os.path.dirname(os.path.abspath(path))
        env = dict(os.environ, PATH=bin_dir + os.pathsep +
                   os.environ.get('PATH', ''))
        env.pop('PYTHONPATH', None)
        return cls('0.3.9', [python, path, '-q'], '--zmq-results_port',
                   bin_dir, env)


def one_run(args, client, flags, ops, tmp, rate=False):
    """CPU seconds of one run-scenario of `ops` ops, and with `rate` its
    TOTAL requests per second (from a report this tree renders
    afterwards, whose CPU is not counted)."""
    work, results = free_ports(2)
    stats = os.path.join(tmp, 'run.stat')
    argv = client.command + [
        'run-scenario', '-f', SCENARIO, '-o', str(ops), '-R',
        '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', str(work),
        client.results_flag, str(results), '-s', stats] + flags
    try:
        cpu, _ = measure(argv, cwd=client.cwd, env=client.env,
                         timeout=args.timeout)
        if not rate:
            return cpu, None
        _, out = measure([args.python, '-m', 'ssbench.cli.master', '-q',
                          'report-scenario', '-s', stats + '.gz'], cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=ROOT),
                         timeout=args.timeout)
        match = RATE.search(out)      # the first one is TOTAL's
        if match is None:
            raise Failed('no rate in the report:\n%s' % out[-2000:])
        return cpu, float(match.group(1))
    finally:
        for name in os.listdir(tmp):
            if name.startswith('run.stat'):
                os.remove(os.path.join(tmp, name))


def marginal(args, client, flags, tmp):
    """(req/s of the larger run, us of CPU per request between the two
    operation counts)."""
    small, large = args.ops
    cpu_s, _ = one_run(args, client, flags, small, tmp)
    cpu_l, rate = one_run(args, client, flags, large, tmp, rate=True)
    return rate, (cpu_l - cpu_s) / (large - small) * 1e6


def wrk_run(args, port):
    url = 'http://127.0.0.1:%d/v1/%s/c/o' % (port, cannedswift.ACCOUNT)
    return benchlib.wrk_run(args.wrk, args.wrk_seconds, url,
                            cannedswift.TOKEN, args.timeout)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--ops', default='10000,30000',
                        help='the two operation counts')
    parser.add_argument('--cases', default='swift,noop1,noop8',
                        help='of swift, s3, noop1, noop8')
    parser.add_argument('--root', action='append', default=[],
                        help='a tree to run (repeat; default: this one)')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--original', metavar='PATH',
                        help="0.3.9's ssbench-master script")
    parser.add_argument('--extra', default='',
                        help='more run-scenario flags for every case')
    parser.add_argument('--no-wrk', action='store_true')
    parser.add_argument('--wrk-seconds', type=int, default=5)
    parser.add_argument('--timeout', type=float, default=300.0)
    args = parser.parse_args(argv)
    try:
        args.ops = sorted(int(n) for n in args.ops.split(','))
        if len(args.ops) != 2 or args.ops[0] >= args.ops[1]:
            raise ValueError
    except ValueError:
        parser.error('--ops takes two different counts, like 10000,30000')
    roots = [os.path.abspath(r) for r in args.root] or [ROOT]
    clients = [Client.tree(args, root) for root in roots]
    if args.original:
        try:
            clients.append(Client.original(args.original))
        except (IOError, OSError) as exc:
            parser.error('--original: %s' % (exc,))
    cases = [c.strip() for c in args.cases.split(',') if c.strip()]
    args.wrk = None if args.no_wrk else which('wrk')
    tmp = tempfile.mkdtemp(prefix='ssbench-reqcost-')
    canned = os.path.join(tmp, 'canned')
    figures = {}
    try:
        port = cannedswift.start(canned) \
            if set(cases) & set(['swift', 's3']) else None
        for _ in range(args.runs):
            for case in cases:
                flags = case_flags(case, port) + args.extra.split()
                for client in clients:
                    if case == 's3' and client.label == '0.3.9':
                        continue          # 0.3.9 speaks no S3
                    more = []
                    if client.label == '0.3.9' and case != 'swift':
                        # It asks for credentials even with --noop.
                        more = ['-A', 'http://127.0.0.1:9/auth/v1.0', '-U',
                                'noop:noop', '-K', 'noop']
                    figures.setdefault((case, client.label), []).append(
                        marginal(args, client, flags + more, tmp))
                if case == 'swift' and args.wrk:
                    figures.setdefault((case, 'wrk -t2 -c64'), []).append(
                        wrk_run(args, port))
    except (Failed, cannedswift.CannedError) as exc:
        print('request_cost: %s' % (exc,), file=sys.stderr)
        return 1
    finally:
        if port is not None:
            cannedswift.stop(canned)
        shutil.rmtree(tmp, ignore_errors=True)
    for case in cases:
        first = None
        for (kind, who), runs in sorted(figures.items()):
            if kind != case:
                continue
            rate = median([r for r, _ in runs])
            cpu = median([c for _, c in runs])
            text = '%-6s %s: %s req/s, %.1f us CPU/req (%d runs: %s)' % (
                case, who, '{:,.0f}'.format(rate), cpu, len(runs),
                ' '.join('%.1f' % c for _, c in runs))
            if who == roots[0]:
                first = cpu
            print(text)
        others = [c.label for c in clients[1:]
                  if (case, c.label) in figures]
        for who in others:
            runs = figures[(case, who)]
            print('%-6s %s / %s: CPU/req %.2f, req/s %.2f' % (
                case, who, roots[0], median([c for _, c in runs]) / first,
                median([r for r, _ in runs]) / median(
                    [r for r, _ in figures[(case, roots[0])]])))
        wrk = figures.get((case, 'wrk -t2 -c64'))
        if wrk:
            wrk_cpu = median([c for _, c in wrk])
            for client in clients:
                runs = figures.get((case, client.label))
                if runs:
                    print('%-6s %s / wrk: CPU/req %.1fx' % (
                        case, client.label,
                        median([c for _, c in runs]) / wrk_cpu))
    if 'swift' in cases and 's3' in cases:
        for root in roots:
            s3_cpu = median([c for _, c in figures[('s3', root)]])
            swift_cpu = median([c for _, c in figures[('swift', root)]])
            print('s3 / swift %s: CPU/req %.2f' % (root, s3_cpu / swift_cpu))
    return 0


if __name__ == '__main__':
    sys.exit(main())

#!/usr/bin/env python
"""CPU per request of SwiftClient as a worker runs it: under gevent, many
greenlets, against the canned Swift; trees side by side.

    python bench/green_client.py [--runs 3] [--requests 20000] [-c 32]
        [--root TREE]... [--calls]

Starts bench/cannedswift.py and stops it at the end.  For each --root
(default: this tree), in turns run by run, a child process patched by
gevent runs `-c` greenlets over one SwiftClient, each doing PUT, GET, GET,
DELETE of 4 KiB objects in turn, and prints the user + sys CPU of that
process per request (after a warm-up of 200 requests per greenlet, so
connections and imports are done).  This is the request path of a worker
(ssbench.swift.client, httpconn and greenio, gevent's hub and sockets)
without the job's way in and the result's way out.  --calls also counts
the Python calls per request (cProfile, 2,000 requests), a figure the
load on the machine does not move.

    /work/main: 98.0 us CPU/req (3 runs: 98.0 98.3 97.8), 88.2 calls/req
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import cannedswift
from benchlib import median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

CHILD = '''
import resource, sys
from gevent import monkey
monkey.patch_all()
import gevent
from ssbench.swift.auth import AuthOptions
from ssbench.swift.client import SwiftClient
url, user, key, requests, concurrency, calls = sys.argv[1:]
requests, concurrency = int(requests), int(concurrency)
client = SwiftClient(AuthOptions(auth_url=url, user=user, key=key),
                     concurrency=concurrency)
client.authenticate()


def work(count):
    for i in range(count):
        name = 'o%d' % (i // 4)
        step = i % 4
        if step == 0:
            client.put_object('c', name, 4096, b'A')
        elif step == 3:
            client.delete_object('c', name)
        else:
            client.get_object('c', name)


def run(count):
    gevent.joinall([gevent.spawn(work, count // concurrency)
                    for _ in range(concurrency)])


def cpu():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


run(200 * concurrency)
began = cpu()
run(requests)
print('CPU %f' % ((cpu() - began) / requests * 1e6))
if calls == '1':
    import cProfile
    import pstats
    profile = cProfile.Profile()
    profile.enable()
    run(2000)
    profile.disable()
    total = sum(row[1] for row in pstats.Stats(profile).stats.values())
    print('CALLS %f' % (total / 2000.0))
'''


def one(args, root, port):
    """(us of CPU per request, Python calls per request or None)."""
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.check_output(
        [args.python, '-c', CHILD, cannedswift.auth_url(port),
         cannedswift.USER, cannedswift.KEY, str(args.requests),
         str(args.concurrency), '1' if args.calls else '0'],
        cwd=root, env=env).decode('utf-8')
    cpu = float(re.search(r'CPU ([0-9.]+)', out).group(1))
    calls = re.search(r'CALLS ([0-9.]+)', out)
    return cpu, float(calls.group(1)) if calls else None


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--requests', type=int, default=20000)
    parser.add_argument('-c', '--concurrency', type=int, default=32)
    parser.add_argument('--root', action='append', default=[])
    parser.add_argument('--calls', action='store_true',
                        help='also count Python calls per request')
    parser.add_argument('--python', default=sys.executable)
    args = parser.parse_args(argv)
    roots = [os.path.abspath(r) for r in args.root] or [ROOT]
    tmp = tempfile.mkdtemp(prefix='ssbench-greenclient-')
    canned = os.path.join(tmp, 'canned')
    figures = dict((root, []) for root in roots)
    try:
        port = cannedswift.start(canned)
        for _ in range(args.runs):
            for root in roots:
                figures[root].append(one(args, root, port))
    except (subprocess.CalledProcessError, cannedswift.CannedError) as exc:
        print('green_client: %s' % (exc,), file=sys.stderr)
        return 1
    finally:
        cannedswift.stop(canned)
        shutil.rmtree(tmp, ignore_errors=True)
    for root in roots:
        cpus = [cpu for cpu, _ in figures[root]]
        text = '%s: %.1f us CPU/req (%d runs: %s)' % (
            root, median(cpus), len(cpus),
            ' '.join('%.1f' % cpu for cpu in cpus))
        if args.calls:
            text += ', %.1f calls/req' % median(
                [calls for _, calls in figures[root]])
        print(text)
    return 0


if __name__ == '__main__':
    sys.exit(main())

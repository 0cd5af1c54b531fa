#!/usr/bin/env python
"""Streaming a 1 GiB object: one ssbench worker process against curl.

    python bench/large_streaming.py [--runs 3] [--root TREE]

Starts bench/cannedswift.py (nginx, one worker process, on a free loopback
port) and a standalone ssbench-worker (-c 1), then, run by run, in turns so
that whatever else the machine does weighs on both alike:

- `curl -T FILE` PUTs a 1 GiB file (sparse: reading it costs no disk) and
  `curl -o /dev/null` GETs a 1 GiB object;
- a master (-u 1) has the worker PUT one 1 GiB object, then GET one.

Each figure is bytes / seconds: curl's `time_total`, ssbench's
last_byte_latency from its stats file (both from before the connection
to the last byte).  It prints the medians, the ratios ssbench / curl (the
target: at least 0.8) and the worker's peak RSS growth over its RSS after a
warm-up of 1-byte PUTs (the target: under 20 MB).  curl comes from Debian
(`apt-get install curl`, as root) when it is not on the PATH.

    PUT: ssbench 1,234 MB/s, curl 1,300 MB/s (median of 3): 0.95 of curl
"""
from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import cannedswift
from benchlib import Failed, free_ports, measure, median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GIB = 1 << 30
MB = 1e6


def ensure_curl():
    """The path of curl, installed from Debian when missing."""
    path = shutil.which('curl') if hasattr(shutil, 'which') else None
    if path is None:
        subprocess.check_call(['apt-get', 'install', '-y', '-q', 'curl'],
                              stdout=subprocess.DEVNULL)
        path = shutil.which('curl')
    return path


def rss_kib(pid, field):
    with open('/proc/%d/status' % pid) as handle:
        for text in handle:
            if text.startswith(field + ':'):
                return int(text.split()[1])
    raise Failed('no %s for pid %d' % (field, pid))


def curl_rate(curl, argv):
    """Bytes per second of one curl transfer of 1 GiB."""
    out = subprocess.check_output(
        [curl, '-s', '-S', '-f', '-o', '/dev/null', '-w',
         '%{time_total} %{size_upload} %{size_download}',
         '-H', 'X-Auth-Token: ' + cannedswift.TOKEN] + argv)
    total, up, down = out.decode('ascii').split()
    moved = max(float(up), float(down))
    if moved != GIB:
        raise Failed('curl moved %d bytes, not 1 GiB' % moved)
    return moved / float(total)


class Worker(object):
    """A standalone ssbench-worker and the master runs that drive it."""

    def __init__(self, args, port, tmp):
        self.args, self.tmp = args, tmp
        self.work, self.results = free_ports(2)
        self.auth = ['-A', cannedswift.auth_url(port),
                     '-U', cannedswift.USER, '-K', cannedswift.KEY]
        self.log = open(os.path.join(tmp, 'worker.log'), 'wb')
        self.proc = subprocess.Popen(
            [args.python, '-m', 'ssbench.cli.worker', '--zmq-host',
             '127.0.0.1', '--zmq-work-port', str(self.work),
             '--zmq-results-port', str(self.results), '-c', '1'] +
            self.auth + ['0'], cwd=args.root, stdout=self.log,
            stderr=subprocess.STDOUT)
        self.runs = 0

    def rate(self, crud, size):
        """Bytes per second of one job (crud: its profile) of `size`."""
        self.runs += 1
        scenario = os.path.join(self.tmp, 'large.scenario')
        with open(scenario, 'w') as handle:
            json.dump({'name': 'large', 'container_count': 1,
                       'container_base': 'sslarge', 'user_count': 1,
                       'operation_count': 1, 'crud_profile': crud,
                       'initial_files': {'large': 1},
                       'sizes': [{'name': 'large', 'size_min': size,
                                  'size_max': size}]}, handle)
        stats = os.path.join(self.tmp, 'run-%d.stat' % self.runs)
        measure([self.args.python, '-m', 'ssbench.cli.master', '-q',
                 'run-scenario', '-f', scenario, '-k', '-R',
                 '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port',
                 str(self.work), '--zmq-results-port', str(self.results),
                 '-s', stats] + self.auth, self.args.root,
                timeout=self.args.timeout)
        sys.path.insert(0, self.args.root)
        from ssbench.results.statsreader import open_stats
        records = list(open_stats(stats + '.gz').iter_results())
        os.unlink(stats + '.gz')
        done = [r for r in records if 'exception' not in r]
        if len(done) != 1:
            raise Failed('expected one result, got %r' % records)
        record = done[0]
        moved = record.get('size') or size
        if moved != size:
            raise Failed('ssbench moved %d bytes, not %d' % (moved, size))
        return moved / record['last_byte_latency']

    def close(self):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--root', default=ROOT,
                        help='source tree to run (its ssbench package wins)')
    parser.add_argument('--timeout', type=float, default=300.0)
    args = parser.parse_args(argv)
    args.root = os.path.abspath(args.root)
    curl = ensure_curl()
    tmp = tempfile.mkdtemp(prefix='ssbench-streaming-')
    canned_dir = os.path.join(tmp, 'canned')
    body = os.path.join(tmp, 'body')
    with open(body, 'wb') as handle:
        handle.truncate(GIB)        # sparse: no disk read
    worker = None
    try:
        port = cannedswift.start(canned_dir)
        base = 'http://127.0.0.1:%d/v1/%s/sslarge_000000_default_policy/' % (
            port, cannedswift.ACCOUNT)
        worker = Worker(args, port, tmp)
        # The worker's first job authenticates and imports: not streaming.
        for _ in range(2):
            worker.rate([1, 0, 0, 0], 1)
        with open('/proc/%d/clear_refs' % worker.proc.pid, 'w') as out:
            out.write('5')          # peak RSS from here on (VmHWM)
        before = rss_kib(worker.proc.pid, 'VmRSS')
        figures = {'PUT': ([], []), 'GET': ([], [])}
        for _ in range(args.runs):
            figures['PUT'][0].append(curl_rate(curl, ['-T', body,
                                                      base + 'curl_put']))
            figures['PUT'][1].append(worker.rate([1, 0, 0, 0], GIB))
            figures['GET'][0].append(curl_rate(curl, [base + 'large_curl']))
            figures['GET'][1].append(worker.rate([0, 1, 0, 0], GIB))
        growth = (rss_kib(worker.proc.pid, 'VmHWM') - before) / 1024.0
    finally:
        try:
            if worker is not None:
                worker.close()
            cannedswift.stop(canned_dir)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    status = 0
    for kind in ('PUT', 'GET'):
        by_curl, by_ssbench = (median(values) for values in figures[kind])
        ratio = by_ssbench / by_curl
        print('%s: ssbench %s MB/s, curl %s MB/s (median of %d; 1 GiB, one '
              'worker process): %.2f of curl%s' % (
                  kind, '{:,.0f}'.format(by_ssbench / MB),
                  '{:,.0f}'.format(by_curl / MB), args.runs, ratio,
                  '' if ratio >= 0.8 else ' BELOW 0.8'))
        status = status or int(ratio < 0.8)
    print('worker peak RSS growth over %d GiB PUTs and GETs: %.1f MB over '
          '%.1f MB before: %s' % (2 * args.runs, growth, before / 1024.0,
                                  'OK' if growth < 20 else 'OVER 20 MB'))
    return status or int(growth >= 20)


if __name__ == '__main__':
    sys.exit(main())

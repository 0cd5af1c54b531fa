#!/usr/bin/env python
"""The master's resident memory over a long `run-scenario --noop` run.

    python bench/master_rss.py [-r 60 | --ops N] [--at N1,N2,...]
                               [--balanced] [--runs 1] [--cases u24w2b1]

Runs `python -m ssbench.cli.master -q run-scenario -f
scenarios/very_small.scenario -u U -r SECONDS (or -o N) --workers W
--batch-size B --noop -R` on free ports with a stats file in a temporary
directory (removed afterwards), samples the master's VmRSS from /proc every
--interval seconds (its local workers are other processes and are not
counted), and prints one line per run:

    rss u24 w2 b1 r60: 31.2 MB at 5 s, 33.0 MB at the end (max 33.4 MB,
    +1.8 MB/min over the last 3/4), 1,512,000 results (+371,000 objects)

The benchmark phase starts a few seconds in, so growth is judged over
the last three quarters of the samples.  The results themselves stream
to the stats file; what may grow is the bookkeeping of live objects
(each successful CREATE adds one to the ring of its size class, 8 bytes,
and each DELETE takes one away): "+N objects" is the run's successful
CREATEs less its successful DELETEs, from the stats file.

With --at, each sample also counts the results the master has stored so
far, by following its plain stats file as it grows (the master flushes it
every 0.1 s), and a second line gives the RSS when the count first
reached each figure, and the slope between them:

    at 1,000,000 results: 41.0 MB (24 s); at 10,000,000: 58.9 MB (231 s);
    +1.99 MB per million results

--balanced runs a copy of the scenario whose every CRUD profile has as
many CREATEs as DELETEs (C and D both C+D, R and U doubled), so that the
set of live objects stays the size of the initial population.
"""
from __future__ import absolute_import, division, print_function

import argparse
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import msgpack

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
CASE = re.compile(r'^u(\d+)w(\d+)b(\d+)$')
FOLLOW_CHUNK = 1 << 20


class ResultFollower(object):
    """Counts the results in a plain stats file that a master is still
    writing: the header, then arrays of result maps.  Each poll() reads
    what was appended since the last one; the maps are skipped, not
    decoded, so following costs little CPU beside the master's."""

    def __init__(self, path):
        self.path = path
        self.count = 0
        self._fp = None
        self._unpacker = msgpack.Unpacker()
        self._header = False
        self._left = 0          # maps of the current array still unread

    def poll(self):
        """Read what is new; the count so far."""
        if self._fp is None:
            try:
                # Held open: the master removes the plain file once it
                # has gzipped it.
                self._fp = io.open(self.path, 'rb')
            except (IOError, OSError):
                return self.count
        while True:
            data = self._fp.read(FOLLOW_CHUNK)
            if not data:
                return self.count
            self._unpacker.feed(data)
            self._consume()

    def _consume(self):
        unpacker = self._unpacker
        try:
            if not self._header:
                unpacker.skip()
                self._header = True
            while True:
                while self._left:
                    unpacker.skip()
                    self._left -= 1
                    self.count += 1
                self._left = unpacker.read_array_header()
        except msgpack.OutOfData:
            pass

    def close(self):
        if self._fp is not None:
            self._fp.close()


def count_results(path, python, root):
    """(results, successful CREATEs less successful DELETEs) of a stats
    file, read with the project's own reader; (None, None) if it cannot
    be read."""
    code = ('import sys\n'
            'from ssbench import CREATE_OBJECT, DELETE_OBJECT\n'
            'from ssbench.results.statsreader import open_stats\n'
            'count = net = 0\n'
            'for result in open_stats(sys.argv[1]).iter_results():\n'
            '    count += 1\n'
            '    if "exception" not in result:\n'
            '        kind = result["type"]\n'
            '        net += ((kind == CREATE_OBJECT) -\n'
            '                (kind == DELETE_OBJECT))\n'
            'sys.stdout.write("%d %d\\n" % (count, net))\n')
    try:
        out = subprocess.check_output([python, '-c', code, path], cwd=root)
        count, net = out.decode('ascii').split()
        return int(count), int(net)
    except (subprocess.CalledProcessError, ValueError):
        return None, None


def balanced(source, target):
    """Write a copy of scenario `source` to `target` with as many CREATEs
    as DELETEs in every CRUD profile."""
    with open(source) as fp:
        scenario = json.load(fp)

    def even(profile):
        create, read, update, delete = profile
        return [create + delete, 2 * read, 2 * update, create + delete]

    scenario['crud_profile'] = even(scenario['crud_profile'])
    for size in scenario['sizes']:
        if 'crud_profile' in size:
            size['crud_profile'] = even(size['crud_profile'])
    scenario['name'] = scenario['name'] + ' (creates = deletes)'
    with open(target, 'w') as fp:
        json.dump(scenario, fp, indent=2)


def run_once(args, users, workers, batch):
    """[(seconds, MB, results stored)] samples, and count_results()."""
    tmp = tempfile.mkdtemp(prefix='ssbench-rss-bench-')
    try:
        scenario = args.scenario
        if args.balanced:
            scenario = os.path.join(tmp, 'balanced.scenario')
            balanced(args.scenario, scenario)
        stats = os.path.join(tmp, 'noop.stat')
        length = (['-o', str(args.ops)] if args.ops else
                  ['-r', str(args.run_seconds)])
        argv = [args.python, '-m', 'ssbench.cli.master', '-q',
                'run-scenario', '-f', scenario, '-u', str(users)] + length + [
                '--workers', str(workers),
                '--batch-size', str(batch), '--noop', '-R',
                '--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', '0',
                '--zmq-results-port', '0', '-s', stats]
        err_path = os.path.join(tmp, 'stderr')
        follower = ResultFollower(stats) if args.at else None
        with open(err_path, 'wb') as err:
            began = time.time()
            child = subprocess.Popen(argv, cwd=args.root, stdout=err,
                                     stderr=err)
            samples = []
            deadline = began + (args.run_seconds or 0) + args.timeout
            try:
                while child.poll() is None and time.time() < deadline:
                    value = benchlib.rss_mb(child.pid)
                    stored = follower.poll() if follower else None
                    if value is not None:
                        samples.append((time.time() - began, value, stored))
                    time.sleep(args.interval)
            finally:
                if child.poll() is None:
                    child.kill()
                child.wait()
                if follower is not None:
                    follower.close()
        if child.returncode != 0:
            with open(err_path, 'rb') as err:
                raise RuntimeError('exit status %d: %s' % (
                    child.returncode, err.read()[-2000:].decode(
                        'utf-8', 'replace')))
        return samples, count_results(stats + '.gz', args.python, args.root)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def describe(samples):
    at5 = [v for t, v, _ in samples if t >= 5] or [samples[0][1]]
    tail = samples[len(samples) // 4:]
    slope = 0.0
    if len(tail) >= 2 and tail[-1][0] > tail[0][0]:
        # least squares over the tail, MB per minute
        n = len(tail)
        mean_t = sum(t for t, _, _ in tail) / n
        mean_v = sum(v for _, v, _ in tail) / n
        num = sum((t - mean_t) * (v - mean_v) for t, v, _ in tail)
        den = sum((t - mean_t) ** 2 for t, _, _ in tail)
        slope = num / den * 60 if den else 0.0
    return at5[0], samples[-1][1], max(v for _, v, _ in samples), slope


def at_counts(samples, counts):
    """[(count, seconds, MB) of the first sample whose results stored
    reached each count, or None when the run never got there]."""
    found = []
    for count in counts:
        hit = [(t, v) for t, v, stored in samples if stored >= count]
        found.append((count,) + hit[0] if hit else None)
    return found


def describe_at(points):
    """The --at line: RSS at each count, and MB per million results
    between the first and the last count reached."""
    parts = []
    for index, point in enumerate(points):
        label = 'at %s' % ('{:,}'.format(point[0]) if point else '?')
        if index == 0 and point:
            label += ' results'
        parts.append('%s: %s' % (label, '%.1f MB (%d s)' % (
            point[2], point[1]) if point else 'not reached'))
    reached = [p for p in points if p]
    if len(reached) >= 2 and reached[-1][0] > reached[0][0]:
        slope = ((reached[-1][2] - reached[0][2]) /
                 ((reached[-1][0] - reached[0][0]) / 1e6))
        parts.append('%+.2f MB per million results' % slope)
    return '; '.join(parts)


def counts_arg(text):
    try:
        counts = [int(part.replace('_', '')) for part in text.split(',')]
    except ValueError:
        raise argparse.ArgumentTypeError(
            '%r is not a list of result counts like 1000000,10000000' % (
                text,))
    if any(count <= 0 for count in counts):
        raise argparse.ArgumentTypeError('result counts must be above 0')
    return sorted(counts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    length = parser.add_mutually_exclusive_group()
    length.add_argument('-r', '--run-seconds', type=int)
    length.add_argument('--ops', type=int,
                        help='run this many operations instead (-o)')
    parser.add_argument('--at', type=counts_arg, default=[],
                        help='comma-separated result counts: the RSS when '
                             'the master had stored each, and the slope')
    parser.add_argument('--balanced', action='store_true',
                        help='as many CREATEs as DELETEs (see above)')
    parser.add_argument('--runs', type=int, default=1)
    parser.add_argument('--cases', default='u24w2b1',
                        help='comma-separated uUSERSwWORKERSbBATCH cases')
    parser.add_argument('--interval', type=float, default=0.5,
                        help='seconds between RSS samples')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--scenario', default=SCENARIO)
    parser.add_argument('--root', default=ROOT,
                        help='source tree to run (its ssbench package wins '
                             'over the installed one)')
    parser.add_argument('--timeout', type=float,
                        help='seconds a run may take beyond run_seconds '
                             '(default 120), or in all with --ops '
                             '(default 3600)')
    parser.add_argument('--trace', action='store_true',
                        help='also print every sample')
    args = parser.parse_args(argv)
    if args.ops is None and args.run_seconds is None:
        args.run_seconds = 60
    if args.timeout is None:
        args.timeout = 3600.0 if args.ops else 120.0
    args.root = os.path.abspath(args.root)
    status = 0
    for text in args.cases.split(','):
        match = CASE.match(text.strip())
        if match is None:
            parser.error('%r is not like u24w2b1' % (text,))
        users, workers, batch = [int(g) for g in match.groups()]
        label = 'rss u%d w%d b%d %s%s' % (
            users, workers, batch,
            'o%d' % args.ops if args.ops else 'r%d' % args.run_seconds,
            ' balanced' if args.balanced else '')
        for _ in range(args.runs):
            try:
                samples, (count, net) = run_once(args, users, workers, batch)
            except RuntimeError as exc:
                print('%s: FAILED: %s' % (label, exc))
                status = 1
                continue
            if not samples:
                print('%s: no samples' % label)
                status = 1
                continue
            if args.trace:
                for when, value, stored in samples:
                    print('  %6.1f s %7.1f MB%s' % (
                        when, value, '' if stored is None else
                        ' %12s results' % '{:,}'.format(stored)))
            first, last, peak, slope = describe(samples)
            print('%s: %.1f MB at 5 s, %.1f MB at the end (max %.1f MB, '
                  '%+.1f MB/min over the last 3/4), %s results (%s '
                  'objects)' % (
                      label, first, last, peak, slope,
                      '{:,}'.format(count) if count is not None else '?',
                      '{:+,}'.format(net) if net is not None else '?'))
            if args.at:
                print('  ' + describe_at(at_counts(samples, args.at)))
            sys.stdout.flush()
    return status


if __name__ == '__main__':
    sys.exit(main())

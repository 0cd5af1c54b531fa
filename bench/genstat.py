#!/usr/bin/env python
"""Generate a realistic N-result ssbench stats file, fast.

    python bench/genstat.py -n 1000000 -o /tmp/ssbench-bench/1M.stat

Writes the header and result batches with
ssbench.results.statswriter.StatsWriter (as the master does) and gzips the file
with finalize(), unless --plain. Results look like a real Swift run: five size
classes with their own CRUD mixes, log-normal latencies with a tail, GET
first-byte latencies, a few retries and failures, trans ids, several workers,
completion times advancing at --rate results per second.  Deterministic for a
given --seed. Prints one line: results, path, size and time taken.
"""
from __future__ import absolute_import, division, print_function

import argparse
import math
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..'))

from ssbench import (CREATE_OBJECT, DELETE_OBJECT, READ_OBJECT,  # noqa: E402
                     UPDATE_OBJECT, version)
from ssbench.results.statswriter import StatsWriter  # noqa: E402
from ssbench.wire import protocol  # noqa: E402

CRUD = (CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT)

# name, size_min, size_max, initial files, crud profile, median latency (s)
SIZES = (
    ('zero', 0, 0, 400, [60, 15, 20, 5], 0.012),
    ('tiny', 4096, 65536, 1000, [10, 80, 9, 1], 0.018),
    ('small', 100000, 200000, 300, [10, 75, 15, 0], 0.035),
    ('medium', 1000000, 5000000, 60, [20, 60, 15, 5], 0.150),
    ('large', 50000000, 100000000, 6, [25, 50, 15, 10], 1.800),
)
TYPE_FACTOR = {CREATE_OBJECT: 1.8, READ_OBJECT: 1.0, UPDATE_OBJECT: 1.9,
               DELETE_OBJECT: 0.9}
CHUNK = 4096  # batches packed per protocol.pack() call
TRACEBACK = (
    'Traceback (most recent call last):\n'
    '  File "ssbench/worker/mainloop.py", line 312, in handle_job\n'
    '    result = handler(job)\n'
    '  File "ssbench/swift/client.py", line 188, in timed_request\n'
    '    raise SwiftError(status, reason, trans_id)\n'
    'ssbench.swift.client.SwiftError: Object %s failed: '
    '503 Service Unavailable\n')


def scenario(user_count, run_seconds):
    sizes = []
    for name, smin, smax, _, profile, _ in SIZES:
        sizes.append({'name': name, 'size_min': smin, 'size_max': smax,
                      'crud_profile': profile})
    return {
        'name': 'Generated benchmark scenario',
        'sizes': sizes,
        'initial_files': dict((s[0], s[3]) for s in SIZES),
        'operation_count': None,
        'run_seconds': run_seconds,
        'crud_profile': [10, 75, 15, 0],
        'user_count': user_count,
        'container_base': 'ssbench',
        'container_count': 100,
        'container_concurrency': 10,
    }


def header(user_count, run_seconds):
    """The header of a run that lasted `run_seconds`: as long as its
    results span, or the reports warn that it ended early."""
    data = scenario(user_count, run_seconds)
    return {
        '_scenario_data': data, 'name': data['name'], 'version': version,
        'user_count': user_count, 'operation_count': None,
        'run_seconds': data['run_seconds'], 'container_base': 'ssbench',
        'container_count': 100, 'container_concurrency': 10,
        'delete_after': None,
    }


def job_table(rng, length=4096):
    """A shuffled table of (type, size index) drawn with the run's mix."""
    total_files = sum(s[3] for s in SIZES)
    table = []
    for index, size in enumerate(SIZES):
        profile = size[4]
        for crud, weight in zip(CRUD, profile):
            share = size[3] / total_files * weight / sum(profile)
            table.extend([(crud, index)] * int(round(share * length)))
    rng.shuffle(table)
    return table


def latency_table(rng, length=1 << 16):
    """Log-normal multipliers (median 1) with a slow 0.5% tail."""
    table = []
    for _ in range(length):
        value = math.exp(rng.gauss(0.0, 0.55))
        if rng.random() < 0.005:
            value *= rng.uniform(5.0, 40.0)
        table.append(value)
    return table


def generate(count, batch_size, workers, error_rate, rate, seed):
    """Yield packed chunks, each holding up to CHUNK batches."""
    rng = random.Random(seed)
    rand = rng.random
    bits = rng.getrandbits
    jobs = job_table(rng)
    njobs = len(jobs)
    lat = latency_table(rng)
    containers = ['ssbench_%06d_default_policy' % i for i in range(100)]
    names = [s[0] for s in SIZES]
    medians = [[s[5] * TYPE_FACTOR[crud] for crud in CRUD] for s in SIZES]
    crud_index = dict((crud, i) for i, crud in enumerate(CRUD))
    job_no = max(s[3] for s in SIZES)
    t0 = 1795317877.0
    step = 1.0 / rate
    batches = []
    batch = []
    for i in range(count):
        job_no += 1
        crud, size = jobs[(i * 7919 + bits(8)) % njobs]
        size_name = names[size]
        completed_at = t0 + i * step + rand() * 0.02
        worker = (i + bits(2)) % workers
        record = {
            'type': crud, 'size_str': size_name,
            'container': containers[bits(16) % 100],
            'name': '%s_%06d' % (size_name, job_no),
            'worker_id': worker, 'completed_at': completed_at,
        }
        if crud == CREATE_OBJECT or crud == UPDATE_OBJECT:
            smin, smax = SIZES[size][1], SIZES[size][2]
            record['size'] = smin + int(rand() * (smax - smin + 1))
            record['delete_after'] = None
        if rand() < error_rate:
            record['exception'] = ('SwiftError: Object %s failed: 503 '
                                   'Service Unavailable' % crud.split('_')[0])
            record['traceback'] = TRACEBACK % crud.split('_')[0]
            record['retries'] = 10
            record['trans_id'] = None
        else:
            last = medians[size][crud_index[crud]] * lat[bits(16)] * (
                1.0 + rand() * 1e-3)
            record['last_byte_latency'] = last
            record['first_byte_latency'] = (
                last * (0.35 + 0.6 * rand()) if crud == READ_OBJECT
                else None)
            record['retries'] = 1 if rand() < 0.01 else 0
            record['trans_id'] = 'tx%021x-%010x' % (
                bits(84), int(completed_at))
        batch.append(record)
        if len(batch) >= batch_size:
            batches.append(batch)
            batch = []
            if len(batches) >= CHUNK:
                yield pack_batches(batches)
                batches = []
    if batch:
        batches.append(batch)
    if batches:
        yield pack_batches(batches)


def pack_batches(batches):
    """Pack many batches at once: the outer array's header is dropped,
    leaving the batches back to back exactly as the master stores them."""
    data = protocol.pack(batches)
    lead = data[0:1]
    if lead == b'\xdc':
        return data[3:]
    if lead == b'\xdd':
        return data[5:]
    return data[1:]  # fixarray


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('-n', '--count', type=int, default=1000000)
    parser.add_argument('-o', '--output', required=True,
                        help='plain path; the result is OUTPUT.gz')
    parser.add_argument('--batch-size', type=int, default=1)
    parser.add_argument('--workers', type=int, default=4)
    parser.add_argument('--user-count', type=int, default=64)
    parser.add_argument('--error-rate', type=float, default=0.001)
    parser.add_argument('--rate', type=float, default=2000.0,
                        help='results completed per second')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--level', type=int, default=None,
                        help='gzip level (default: StatsWriter default)')
    parser.add_argument('--plain', action='store_true',
                        help='leave the stats file uncompressed')
    args = parser.parse_args(argv)

    began = time.time()
    run_seconds = max(1, int(math.ceil(args.count / args.rate)))
    writer = StatsWriter(args.output, header(args.user_count, run_seconds))
    for chunk in generate(args.count, args.batch_size, args.workers,
                          args.error_rate, args.rate, args.seed):
        writer.write_raw(chunk)
    generated = time.time()
    if args.plain:
        writer.close()
        path = args.output
    elif args.level is None:
        path = writer.finalize()
    else:
        path = writer.finalize(args.level)
    done = time.time()
    print('genstat: %d results -> %s (%.1f MB) in %.1f s (generate %.1f s, '
          'gzip %.1f s)' % (args.count, path, os.path.getsize(path) / 1e6,
                            done - began, generated - began, done - generated))
    return 0


if __name__ == '__main__':
    sys.exit(main())

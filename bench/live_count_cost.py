#!/usr/bin/env python
"""What the live view's count costs the master per result, in CPU alone.

    python bench/live_count_cost.py [--messages 2500] [--per-message 12]
                                    [--runs 7]

Builds messages of --noop successes as a worker writes them, of the
jobs a --noop run of the very_small scenario makes (12 a message, as at
-u 24 with two workers), checks each on
its bytes as the master does (ssbench.wire.resultbytes), and hands it to
a LiveView as the pipeline would, redrawing its figures every 3,000
results (a status line's 0.5 s at 6,000 results a second, the least
often a --noop run draws).  It prints the best of --runs in CPU time
of this process (which another process's load on the machine moves far
less than wall time) for the check alone and for the check and the count, and
their difference, what the live view adds per result:

    check 1.26 us/result, with the live view 2.12 us/result: the live
    view 0.86 us/result (30,000 results, best of 7)

No process, socket or Swift: the figure bench/live_view_cost.py's
whole runs measure with their noise, without it.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import random
import sys
import timeit

from benchlib import cpu_seconds

# This tree's ssbench, not the one installed (another checkout's).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from ssbench.live.liveview import LiveView  # noqa: E402
from ssbench.load import jobgen  # noqa: E402
from ssbench.load.objectring import ObjectRing  # noqa: E402
from ssbench.load.scenario import load_scenario  # noqa: E402
from ssbench.master.pipeline import Message  # noqa: E402
from ssbench.wire import protocol  # noqa: E402
from ssbench.wire.resultbytes import KEYS_IN_WIRE_ORDER  # noqa: E402
from ssbench.wire.resultbytes import ResultShapes  # noqa: E402

SCENARIO = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'scenarios', 'very_small.scenario')
DRAW_EVERY = 3000


class _Master(object):
    class tracker(object):
        workers = {}
    schedule = None


def messages(count, per_message, rng):
    """`count` messages of `per_message` results of a --noop worker."""
    scenario = load_scenario(SCENARIO, {
        'operation_count': count * per_message, 'user_count': 24})
    ring = ObjectRing()
    ring.load(jobgen.initial_objects(scenario))
    records = []
    for job_id, job in enumerate(jobgen.bench_jobs(scenario, rng, ring,
                                                   noop=True)):
        job['job_id'] = job_id + 1
        records.append(protocol.result_ok(job, 0, 0.0, 0.0, None, 0))
    return [protocol.pack(records[start:start + per_message])
            for start in range(0, len(records), per_message)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--messages', type=int, default=2500)
    parser.add_argument('--per-message', type=int, default=12)
    parser.add_argument('--runs', type=int, default=7)
    args = parser.parse_args(argv)
    if not KEYS_IN_WIRE_ORDER:
        print('needs Python 3.7 or later: before, the master checks no '
              'result on its bytes')
        return 1
    data = messages(args.messages, args.per_message, random.Random(49))
    results = args.messages * args.per_message
    view = LiveView()
    shapes, counted = ResultShapes(), ResultShapes()
    for known in (shapes, counted):
        for message in data:
            known.learn(protocol.unpack(message))
    counted.capture(view.fields)
    draw = max(1, DRAW_EVERY // args.per_message)

    def check():
        for message in data:
            shapes.scan(message)

    def check_and_count():
        view.begin(_Master(), 'benchmark')
        for number, message in enumerate(data):
            job_ids, _, captured = counted.scan(message)
            view.results(Message(message, entries=job_ids,
                                 captured=captured))
            if number % draw == 0:
                view.stats.window()
        view.end()

    best = {}
    for step in (check, check_and_count):
        best[step] = min(timeit.repeat(step, number=1, repeat=args.runs,
                                       timer=cpu_seconds)) \
            / results * 1e6
    print('check %.2f us/result, with the live view %.2f us/result: the '
          'live view %.2f us/result (%s results, best of %d)' % (
              best[check], best[check_and_count],
              best[check_and_count] - best[check],
              '{:,}'.format(results), args.runs))
    return 0


if __name__ == '__main__':
    sys.exit(main())

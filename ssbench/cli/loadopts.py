"""Command-line options of the load model: --seed, --warmup (and the
report's --skip), --rate and --arrival, with their parsers."""
from __future__ import absolute_import, division, print_function

import argparse

from ssbench.load import schedule, seeds
from ssbench.load.scenario import MAX_RATE, MAX_RUN_SECONDS, MIN_RATE


def _from_to(convert, low, high):
    """An argparse type: `convert` (int or float) of a value from `low`
    to `high`, a whole float as an int."""
    noun = 'an integer' if convert is int else 'a number'

    def parse(text):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError('%r is not %s' % (text, noun))
        if not low <= value <= high:
            raise argparse.ArgumentTypeError('%r must be from %s to %d' % (
                text, low, high))
        return int(value) if value == int(value) else value
    return parse


# --seed: an integer from 0 to seeds.MAX_SEED.
seed = _from_to(int, 0, seeds.MAX_SEED)
# --warmup and the report's --skip: seconds from 0 to the longest run.
seconds = _from_to(float, 0, MAX_RUN_SECONDS)
# --rate: jobs per second, from MIN_RATE to MAX_RATE.
rate = _from_to(float, MIN_RATE, MAX_RATE)


def add_run_options(parser, sweep):
    """The load-model options of run-scenario (and run-suite, whose
    `sweep` makes --rate take a sweep: see ssbench.cli.masterparser)."""
    parser.add_argument(
        '--seed', metavar='N', type=seed, default=None,
        help='Seed of the job stream (sizes, CRUD types, containers): the '
        'same scenario, operation count and seed give the same jobs. '
        'Stored in the stats file; default: a random seed')
    parser.add_argument(
        '--warmup', metavar='SECONDS', type=seconds, default=0,
        help='Leave the first SECONDS of the benchmark (from its first '
        'request start) out of the report\'s statistics; the stats file '
        'keeps every result, and stores SECONDS for report-scenario')
    parser.add_argument(
        '--rate', metavar='JOBS_PER_S',
        type=sweep(rate), default=None,
        help='Open loop: start jobs at this rate in total, whatever the '
        'latencies (the user count caps the jobs in flight; a job that '
        'finds the cap full waits, and its wait counts). Latencies are '
        'then response times, from each job\'s intended start. Overrides '
        'the scenario\'s "rate"; default: closed loop')
    parser.add_argument(
        '--arrival', choices=schedule.ARRIVALS, default=schedule.UNIFORM,
        help='With --rate: evenly spaced jobs, or a Poisson process')


def run_options(args):
    """RunOptions keyword arguments of the load-model options."""
    return {'seed': args.seed, 'rate': args.rate, 'arrival': args.arrival,
            'warmup': args.warmup}

"""Command-line options of the load model: --seed, --warmup (and the
report's --skip), with their parsers."""
from __future__ import absolute_import, division, print_function

import argparse

from ssbench import seeds


def seed(text):
    """A --seed value: an integer from 0 to seeds.MAX_SEED."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not an integer' % (text,))
    if not 0 <= value <= seeds.MAX_SEED:
        raise argparse.ArgumentTypeError('%r must be from 0 to %d' % (
            text, seeds.MAX_SEED))
    return value


# Longest warm-up: about 16 weeks, the longest run_seconds.
MAX_SKIP_SECONDS = 10 ** 7


def seconds(text):
    """A --warmup/--skip value: seconds from 0 to MAX_SKIP_SECONDS."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError('%r is not a number' % (text,))
    if not 0 <= value <= MAX_SKIP_SECONDS:
        raise argparse.ArgumentTypeError('%r must be from 0 to %d' % (
            text, MAX_SKIP_SECONDS))
    return int(value) if value == int(value) else value


def add_run_options(parser):
    """The load-model options of run-scenario."""
    parser.add_argument(
        '--seed', metavar='N', type=seed, default=None,
        help='Seed of the job stream (sizes, CRUD types, containers): the '
        'same scenario, operation count and seed give the same jobs. '
        'Stored in the stats file; default: a random seed')
    parser.add_argument(
        '--warmup', metavar='SECONDS', type=seconds, default=0,
        help='Leave the first SECONDS of the benchmark (from its first '
        'request start) out of the report\'s statistics; the stats file '
        'keeps every result (report-scenario --skip SECONDS)')


def run_options(args):
    """RunOptions keyword arguments of the load-model options."""
    return {'seed': args.seed}

"""run-suite's argument parser: run-scenario's flags, the load settings
among them taking sweeps (ssbench.load.sweep), and the suite's own."""
from __future__ import absolute_import, division, print_function

import argparse

from ssbench.cli import common
from ssbench.load import sweep
from ssbench.suite import capacitysearch

EPILOG = '''\
-u, -o, -r, -c, -p, --rate and --batch-size take a sweep: one value, a
list (-u 8,16,32), LOW:HIGH:xFACTOR (--rate 500:8000:x2) or
LOW:HIGH:+STEP (-u 8:64:+8); several sweeps make their product, and
several -f files each get every step.  A --suite file lists steps of its
own (see docs/suites.rst).'''


def sweepable(convert):
    """Makes a flag's type take a sweep: the list of its values."""
    def one(token):
        try:
            return convert(token)
        except argparse.ArgumentTypeError as exc:
            raise ValueError('%s' % (exc,))

    def parse_sweep(text):
        try:
            return sweep.expand(text, one)
        except ValueError as exc:
            raise argparse.ArgumentTypeError('%s' % (exc,))
    parse_sweep.__name__ = getattr(convert, '__name__', 'value')
    return parse_sweep


def add_suite_parser(subparsers, add_run_arguments):
    """The run-suite sub-command; `add_run_arguments` adds run-scenario's
    flags (ssbench.cli.masterparser)."""
    suite = subparsers.add_parser(
        'run-suite',
        help='Run several steps (scenarios, sweeps of their settings, a '
        'capacity search) with the same workers, a stats file per step and '
        'one table of them all.',
        epilog=EPILOG, formatter_class=common.HelpFormatter)
    suite.add_argument(
        '-f', '--scenario-file', action='append', default=None,
        help='Scenario file (JSON) to run; repeat it for several')
    suite.add_argument(
        '--suite', metavar='FILE', dest='suite_file', default=None,
        help='A suite file (JSON): the steps to run (instead of -f and the '
        'sweeps)')
    add_run_arguments(suite, sweepable)
    # --batch-size takes a sweep too: its default is a list of one.
    suite.set_defaults(batch_size=[1])
    suite.add_argument(
        '--suite-dir', metavar='DIR', default=None,
        help='Folder of the suite\'s stats files (one per step, named by '
        'the suite and the step) and of suite.json, which says which steps '
        'are complete (default: a new folder in /tmp/ssbench-results)')
    suite.add_argument(
        '--resume', action='store_true', default=False,
        help='With --suite-dir of an earlier suite: run only the steps '
        'that have no complete stats file yet')
    suite.add_argument(
        '--per-operation', action='store_true', default=False,
        help='Show a line per operation under each step of the table')
    suite.add_argument(
        '--find-max-rate', action='store_true', default=False,
        help='With --slo and -r: run open-loop steps from --rate upwards '
        '(doubling, then bisecting) and say the highest rate that met the '
        'objectives (its step sending at least 95%% of the jobs due) and '
        'the lowest that missed them')
    suite.add_argument(
        '--resolution', metavar='PERCENT', type=common.percent,
        default=capacitysearch.RESOLUTION,
        help='--find-max-rate stops once the rates that met and missed are '
        'within PERCENT of each other (default: %s)'
        % common.shown_percent(capacitysearch.RESOLUTION))
    suite.add_argument(
        '--max-steps', metavar='COUNT',
        type=common.bounded(common.positive_int, sweep.MAX_STEPS),
        default=capacitysearch.MAX_STEPS,
        help='--find-max-rate runs at most COUNT steps')
    suite.add_argument(
        '--html-inline', action='store_true', default=False,
        help='With --html: put plotly.js in every page (each then travels '
        'alone, about 4 MB more) instead of one plotly.min.js in the '
        'suite\'s folder that the pages read')
    suite.set_defaults(func=_cmd_run_suite)
    return suite


def _cmd_run_suite(args):
    from ssbench.cli import runsuite
    if args.find_max_rate:
        return runsuite.cmd_find_max_rate(args)
    return runsuite.cmd_run_suite(args)

"""run-scenario's options for how a run goes beyond its load: how long
to wait for workers and when one is lost, --retry-backoff, and what the
run shows while it runs (--progress, --metrics)."""
from __future__ import absolute_import, division, print_function

import argparse

from ssbench.cli import common


def retry_backoff(text):
    """--retry-backoff's value: BASE or BASE,CAP seconds (BASE alone
    keeps the default cap, or BASE if larger; nothing: the defaults);
    (base, cap)."""
    from ssbench.store.backoff import (DEFAULT_BACKOFF_BASE,
                                       DEFAULT_BACKOFF_CAP)
    if not text.strip():
        return DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_CAP
    base_text, comma, cap_text = text.partition(',')
    base = common.positive_float(base_text)
    cap = (common.positive_float(cap_text) if comma
           else max(DEFAULT_BACKOFF_CAP, base))
    if cap < base:
        raise argparse.ArgumentTypeError(
            '%r: the cap must be at least the base' % (text,))
    return base, cap


def add_liveness_options(parser):
    """--worker-wait, --expect-workers, --worker-timeout, --drain-seconds."""
    parser.add_argument(
        '--worker-wait', metavar='SECONDS', type=common.positive_float,
        default=60.0,
        help='How long to wait for the first worker to connect (for '
        '--expect-workers: for all of them)')
    parser.add_argument(
        '--expect-workers', metavar='COUNT',
        type=common.bounded(common.positive_int, 100000),
        help='Start the run once COUNT workers are connected and '
        'configured (and no worker of another protocol version is still '
        'connected); fail in one line naming how many came if they are not '
        'within --worker-wait (default: start with the first worker)')
    parser.add_argument(
        '--worker-timeout', metavar='SECONDS', type=common.positive_float,
        default=10.0,
        help='A worker silent (no result, no heartbeat) for this long is '
        'lost: its jobs count as errors and the run goes on without it')
    parser.add_argument(
        '--drain-seconds', metavar='SECONDS', type=common.positive_float,
        default=5.0,
        help='On SIGINT/SIGTERM, how long to collect in-flight results '
        'before writing the stats file and the report')


def add_steady_options(parser):
    """--until-steady, --steady-seconds, --steady-tolerance."""
    from ssbench.suite import steadystate
    windows = steadystate.WINDOWS
    parser.add_argument(
        '--until-steady', action='store_true', default=False,
        help='End the benchmark (each step of a suite) after --warmup once '
        'its throughput and p99 are steady over the last --steady-seconds '
        '(within --steady-tolerance, without drift); -r or -o is the '
        'ceiling')
    parser.add_argument(
        '--steady-seconds', metavar='SECONDS',
        type=common.between(common.positive_float,
                            steadystate.MIN_WINDOW * windows,
                            steadystate.MAX_WINDOW * windows),
        default=steadystate.WINDOW * windows,
        help='--until-steady judges the last SECONDS (%g to %g), in %d '
        'windows' % (steadystate.MIN_WINDOW * windows,
                     steadystate.MAX_WINDOW * windows, windows))
    parser.add_argument(
        '--steady-tolerance', metavar='PERCENT', type=common.percent,
        default=steadystate.TOLERANCE,
        help='--until-steady: how far throughput may vary over them (p99: '
        'twice as far) (default: %s)'
        % common.shown_percent(steadystate.TOLERANCE))


def steady_watch(args):
    """The SteadyWatch of --until-steady, or None."""
    if not args.until_steady:
        return None
    from ssbench.suite.steadystate import over
    return over(args.steady_seconds, args.steady_tolerance, args.warmup)


def _metrics_address(text):
    from ssbench.master.metrics import parse_address
    try:
        return parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError('%s' % exc)


def start_live_view(shown, metrics_address):
    """ssbench.master.liveview.live_view(shown, metrics_address), with a
    --metrics address it cannot listen on (a port in use, an address not
    this host's) exiting with status 1, a runtime failure as a ZeroMQ port
    in use is (docs/reliability.rst): the flag's value was good, it
    parsed."""
    from ssbench.errors import SsbenchError, UsageError
    from ssbench.master.liveview import live_view
    try:
        return live_view(shown, metrics_address)
    except UsageError as exc:
        raise SsbenchError('%s' % (exc,))


def add_live_options(parser):
    """--progress and --metrics."""
    parser.add_argument(
        '--progress', choices=('none', 'chars', 'line'), default=None,
        help='What the run shows while it runs: nothing, the 0.3.9 '
        'progress characters, or a status line redrawn in place (rate, '
        'time left, p50/p99, errors, workers); default: the line on a '
        'terminal, the characters otherwise, nothing with -v or -q')
    parser.add_argument(
        '--metrics', metavar='ADDR:PORT', type=_metrics_address,
        default=None,
        help='Serve the run\'s figures to Prometheus at '
        'http://ADDR:PORT/metrics while it runs (ADDR defaults to '
        '127.0.0.1; needs ssbench[metrics])')

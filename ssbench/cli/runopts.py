"""run-scenario's options for how a run goes beyond its load: how long
to wait for workers and when one is lost, --retry-backoff, and what the
run shows while it runs (--progress, --metrics, --push)."""
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
        type=common.bounded(common.positive_float,
                            steadystate.MAX_WINDOW * windows,
                            steadystate.MIN_WINDOW * windows),
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
    from ssbench.live.metrics import parse_address
    return parse_address(text)


def _push_url(text):
    from ssbench.live.push import parse_url
    parse_url(text)
    return text.strip()


def pusher(args, name):
    """The ssbench.live.push.Pusher of --push for the run (or suite)
    named `name`, beginning now; None without --push."""
    if args.push is None:
        if args.push_interval is not None:
            from ssbench.errors import UsageError
            raise UsageError('--push-interval needs --push URL')
        return None
    import time
    from ssbench.live.push import Pusher, run_id
    return Pusher(args.push, run_id(name, time.time()), job=args.push_job,
                  interval=args.push_interval)


def start_live_view(shown, metrics_address, push=None):
    """ssbench.live.liveview.live_view(shown, metrics_address, push),
    with a --metrics address it cannot listen on (a port in use, an
    address not this host's) exiting with status 1, a runtime failure as
    a ZeroMQ port in use is (docs/reliability.rst): the flag's value was
    good, it parsed."""
    from ssbench.errors import SsbenchError, UsageError
    from ssbench.live.liveview import live_view
    try:
        return live_view(shown, metrics_address, push)
    except UsageError as exc:
        raise SsbenchError('%s' % (exc,))


def live_sinks(shown, live):
    """The sinks (ssbench.master.pipeline) of what a run shows while it
    runs: the clean-up's progress lines, the progress characters when
    `shown` says so, and `live` (from start_live_view) when there is
    one."""
    import sys
    from ssbench.live.progress import PhaseLog, ProgressPrinter
    sinks = [PhaseLog()]
    if shown == 'chars':
        sinks.append(ProgressPrinter(sys.stderr))
    return sinks + ([live] if live is not None else [])


def add_live_options(parser):
    """--progress, --metrics and --push."""
    parser.add_argument(
        '--progress', choices=('none', 'chars', 'line', 'ops'),
        default=None,
        help='What the run shows while it runs: nothing, the 0.3.9 '
        'progress characters, a status line redrawn in place (rate, '
        'time left, p50/p99, errors, workers), or that line with a row '
        'per operation under it (rate, p99, errors); default: the line on '
        'a terminal, the characters otherwise, nothing with -v or -q')
    parser.add_argument(
        '--metrics', metavar='ADDR:PORT',
        type=common.checked(_metrics_address), default=None,
        help='Serve the run\'s figures to Prometheus at '
        'http://ADDR:PORT/metrics while it runs (ADDR defaults to '
        '127.0.0.1; needs ssbench[metrics])')
    parser.add_argument(
        '--push', metavar='URL', type=common.checked(_push_url),
        default=None,
        help='PUT the run\'s final figures (those --metrics serves, no '
        'phase left running) to the Prometheus Pushgateway at URL '
        '(http://HOST:PORT), grouped as job/JOB/run/NAME-START; a gateway '
        'that fails is one warning, not a failed run')
    parser.add_argument(
        '--push-interval', metavar='SECONDS', type=common.positive_float,
        default=None,
        help='With --push, push the figures every SECONDS while the run '
        'runs too (default: at the end only)')
    parser.add_argument(
        '--push-job', metavar='NAME', default='ssbench',
        help='The job label of --push\'s group (default: ssbench)')

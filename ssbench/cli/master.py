"""`ssbench-master`: run, report, kill-workers, cleanup-containers."""
from __future__ import absolute_import, division, print_function

import argparse
import logging
import sys

import ssbench
from ssbench.load import scenario as limits
from ssbench.cli import common, loadopts
from ssbench.cli import report as report_cli
from ssbench.cli.common import ArgumentParser, bounded
from ssbench.errors import UsageError

log = logging.getLogger('ssbench')

DEFAULT_WORK_PORT = 13579
DEFAULT_RESULTS_PORT = 13580
# Local worker processes one run may spawn (--workers).
MAX_LOCAL_WORKERS = 256
# cleanup-containers -c: containers at once, and objects per container.
MAX_CLEANUP_CONCURRENCY = 100


def _add_zmq_options(parser):
    parser.add_argument(
        '--zmq-bind-ip', metavar='BIND_IP', default='0.0.0.0',
        help='IP (or hostname) to which the ZMQ sockets bind')
    parser.add_argument(
        '--zmq-work-port', metavar='PORT', type=common.port,
        default=DEFAULT_WORK_PORT, help='TCP port for the work PUSH socket')
    parser.add_argument(
        '--zmq-results_port', '--zmq-results-port', metavar='PORT',
        dest='zmq_results_port', type=common.port,
        default=DEFAULT_RESULTS_PORT,
        help='TCP port for the results PULL socket')
    parser.add_argument(
        '--zmq-curve-dir', metavar='DIR', default=None,
        help='Encrypt and authenticate worker traffic with ZeroMQ CURVE, '
        'using the master key pair in DIR and accepting only workers whose '
        'public key is a *.key file of DIR (make DIR with: python -m '
        'ssbench.cli.curve keys DIR)')


def retry_backoff(text):
    """--retry-backoff's value: BASE or BASE,CAP seconds (BASE alone
    keeps the default cap, or BASE if larger; nothing: the defaults);
    (base, cap)."""
    from ssbench.swift.client import (DEFAULT_BACKOFF_BASE,
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


def _add_liveness_options(parser):
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


def _metrics_address(text):
    import argparse
    from ssbench.master.metrics import parse_address
    try:
        return parse_address(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError('%s' % exc)


def _add_live_options(parser):
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


def build_parser():
    """The whole ssbench-master argument tree."""
    from ssbench.cli.authopts import add_auth_options

    parser = ArgumentParser(
        prog='ssbench-master',
        description='SwiftStack Benchmark (ssbench) version %s'
        % ssbench.version,
        formatter_class=common.HelpFormatter)
    parser.add_argument('-v', '--verbose', action='store_true',
                        default=False, help='Enable more verbose output.')
    parser.add_argument('-q', '--quiet', action='store_true', default=False,
                        help='Suppress most output (including progress '
                        'characters during run).')
    parser.add_argument('--version', action='version',
                        version='%(prog)s ' + ssbench.version)
    subparsers = parser.add_subparsers(
        dest='command', metavar='{report-scenario,kill-workers,'
        'run-scenario,cleanup-containers}')
    subparsers.required = True

    kill = subparsers.add_parser(
        'kill-workers', help='Tell all workers to exit.',
        formatter_class=common.HelpFormatter)
    _add_zmq_options(kill)
    kill.add_argument(
        '--timeout', metavar='SECONDS', type=common.positive_float,
        default=5.0,
        help='Stop once no worker has answered a ping for this long')
    kill.set_defaults(func=cmd_kill_workers)

    run = subparsers.add_parser(
        'run-scenario',
        help='Run CRUD scenario, saving statistics. You must supply a valid '
        'set of v1.0, v2.0 or v3 auth credentials (unless --noop). See '
        'usage message for run-scenario for more details.',
        formatter_class=common.HelpFormatter)
    run.add_argument('-f', '--scenario-file', required=True,
                     help='Scenario file (JSON) to run')
    _add_zmq_options(run)
    add_auth_options(run)
    run.add_argument(
        '-c', '--container-count', metavar='COUNT',
        type=bounded(common.positive_int, limits.MAX_CONTAINER_COUNT),
        default=None,
        help='Override the container count specified in the scenario file.')
    run.add_argument(
        '-u', '--user-count', metavar='COUNT',
        type=bounded(common.positive_int, limits.MAX_USER_COUNT),
        default=None,
        help='Override the user count (concurrency) specified in the '
        'scenario file.')
    run.add_argument(
        '-o', '--op-count', metavar='COUNT',
        type=bounded(common.positive_int, limits.MAX_OPERATION_COUNT),
        default=None,
        help='Override the operation count specified in the scenario file.')
    run.add_argument(
        '-r', '--run-seconds', metavar='SECONDS',
        type=bounded(common.positive_float, limits.MAX_RUN_SECONDS),
        default=None,
        help='Override the run_seconds specified in the scenario file (and '
        'any operation count).')
    run.add_argument(
        '-b', '--block-size', metavar='BYTES',
        type=bounded(common.positive_int, limits.MAX_BLOCK_SIZE),
        default=65536,
        help='Block size used by ssbench-worker (for PUT and GET bodies).')
    run.add_argument(
        '--segment-size', metavar='BYTES',
        type=bounded(common.positive_int, limits.MAX_OBJECT_SIZE),
        default=None,
        help='Store the objects of every size class whose size_max is above '
        'BYTES as large objects of BYTES-byte segments (the class\'s '
        '"large_object": a static large object by default); a class\'s '
        'own "segment_size" wins')
    run.add_argument(
        '--workers', metavar='COUNT',
        type=bounded(common.non_negative_int, MAX_LOCAL_WORKERS), default=0,
        help='Spawn COUNT local ssbench-worker processes just for this run '
        '(0: none; workers on other hosts are started by hand).')
    run.add_argument(
        '--batch-size', metavar='COUNT',
        type=bounded(common.positive_int, limits.MAX_USER_COUNT), default=1,
        help='Send bench jobs to workers in batches of this size to '
        'increase benchmarking throughput; for best results, the user count '
        'should be greater than and an even multiple of both the batch size '
        'and worker count.')
    run.add_argument(
        '--profile', action='store_true', default=False,
        help='Profile the main benchmark run (cProfile, written next to the '
        'plain stats file with a .prof suffix).')
    run.add_argument(
        '--noop', action='store_true', default=False,
        help='Exercise benchmark infrastructure without talking to cluster.')
    run.add_argument(
        '-k', '--keep-objects', action='store_true', default=False,
        help='Keep the objects uploaded during the benchmark run.')
    run.add_argument(
        '--connect-timeout', type=common.positive_float, default=10.0,
        help='Timeout for socket connections.')
    run.add_argument(
        '--network-timeout', type=common.positive_float, default=20.0,
        help='Timeout for socket operations after connecting.')
    run.add_argument(
        '--retry-backoff', metavar='BASE[,CAP]', type=retry_backoff,
        nargs='?', const='', default=None,
        help='Make the retries of a failed request wait: the first some '
        '0.5-1 x BASE seconds, each later one twice as long, up to CAP '
        '(default BASE 0.05, CAP 2); without this flag retries follow at '
        'once, as in 0.3.9.')
    run.add_argument(
        '-s', '--stats-file',
        help='File into which benchmarking statistics will be saved: a '
        'path ending in .gz is the gzip file itself, any other path P '
        'gives P.gz (default: a new file in /tmp/ssbench-results)')
    run.add_argument(
        '--force', action='store_true', default=False,
        help='Let --stats-file replace an existing regular file that is not '
        'an ssbench stats file (an earlier stats file needs no --force), '
        'and --json, --html and the --profile file replace existing files')
    run.add_argument(
        '-R', '--no-default-report', action='store_true', default=False,
        help="Suppress the default action of generating a report after "
        "running a scenario.")
    report_cli.add_report_options(run)
    report_cli.add_analysis_outputs(run)
    run.add_argument(
        '--delete-after', metavar='SECONDS',
        type=bounded(common.non_negative_int, limits.MAX_DELETE_AFTER),
        default=None,
        help='Override the delete_after specified in the scenario file '
        '(X-Delete-After seconds for every uploaded object; 0 means off).')
    run.add_argument(
        '-p', '--policy', default=None,
        help='Storage policy for the containers (overrides the scenario).')
    _add_liveness_options(run)
    loadopts.add_run_options(run)
    _add_live_options(run)
    run.set_defaults(func=cmd_run_scenario)

    report_cli.add_report_parser(subparsers, common.HelpFormatter)

    cleanup = subparsers.add_parser(
        'cleanup-containers',
        help='Recursively delete all ssbench containers and their objects.',
        formatter_class=common.HelpFormatter)
    cleanup.add_argument(
        '-b', '--container-base', default='ssbench',
        help='Base name of the containers to delete')
    cleanup.add_argument(
        '-c', '--concurrency',
        type=bounded(common.positive_int, MAX_CLEANUP_CONCURRENCY), default=10,
        help='Containers (and objects per container) deleted at once')
    cleanup.add_argument(
        '-p', '--policy', default='default_policy',
        help='Storage policy part of the container names')
    add_auth_options(cleanup)
    cleanup.set_defaults(func=cmd_cleanup_containers)
    return parser


def _worker_host(bind_ip):
    """Where local workers connect: loopback when bound to every address."""
    return {'0.0.0.0': '127.0.0.1', '::': '::1', '': '127.0.0.1'}.get(
        bind_ip, bind_ip)


def _check_ports(args):
    """The work and results sockets cannot share a port (0 picks two
    free ones)."""
    if args.zmq_work_port and args.zmq_work_port == args.zmq_results_port:
        raise UsageError(
            '--zmq-work-port and --zmq-results-port are both %d: the work '
            'and results sockets need a port each' % args.zmq_work_port)


def cmd_run_scenario(args):
    """Run a scenario (see ssbench.master.scenariorun), then report on it."""
    from ssbench.load import scenario as scenario_mod
    from ssbench.master import progress
    from ssbench.master.scenariorun import RunOptions, ScenarioRun

    _check_ports(args)
    scenario = scenario_mod.load_scenario(args.scenario_file, {
        'user_count': args.user_count, 'operation_count': args.op_count,
        'run_seconds': args.run_seconds,
        'container_count': args.container_count,
        'delete_after': args.delete_after, 'policy': args.policy,
        'block_size': args.block_size, 'segment_size': args.segment_size})
    log.info('SwiftStack Benchmark (ssbench version %s)', ssbench.version)
    batch_size = args.batch_size
    if batch_size > scenario.user_count:
        log.warning('--batch-size %d is larger than the user count %d; '
                    'using %d', batch_size, scenario.user_count,
                    scenario.user_count)
        batch_size = scenario.user_count

    _check_warmup(args, scenario)
    # Every path is checked before anything touches Swift.
    stats_paths, profile_path = _check_run_outputs(args, scenario)
    report_request = report_cli.ReportRequest(
        pctile=args.pctile, csv_output=args.csv, json_path=args.json_file,
        html_path=args.html_file, main_report=not args.no_default_report,
        errors=args.errors, skip=args.warmup, force=args.force,
        bandwidth=args.bandwidth)
    report_request.check(
        inputs=[('scenario file', args.scenario_file)],
        outputs=[('stats file', stats_paths.plain),
                 ('stats file', stats_paths.final),
                 ('profile', profile_path)])
    _check_open_files(args, scenario)
    if args.metrics is not None:
        from ssbench.master.metrics import require_client
        require_client()
    curve = _curve_keys(args, local_workers=bool(args.workers))
    swift = worker_config = None
    if not args.noop:
        from ssbench.cli.authopts import auth_from_args, require_keystone
        from ssbench.swift.client import SwiftClient
        from ssbench.swift.auth import Credentials
        from ssbench.master.workerconfig import WorkerConfig
        auth = require_keystone(auth_from_args(args).check())
        # The master authenticates; workers get the token
        # (ssbench.swift.tokens).
        credentials = Credentials(auth, timeout=args.network_timeout)
        swift = SwiftClient(auth, concurrency=scenario.container_concurrency,
                            connect_timeout=args.connect_timeout,
                            network_timeout=args.network_timeout,
                            tokens=credentials,
                            retry_backoff=args.retry_backoff)
        swift.authenticate()
        from ssbench.master.clusterlimits import check_cluster
        check_cluster(swift, scenario)
        worker_config = WorkerConfig(credentials, args.connect_timeout,
                                     args.network_timeout, args.block_size,
                                     retry_backoff=args.retry_backoff)

    shown = progress.mode(args.progress, sys.stderr, args.verbose,
                          args.quiet)
    options = RunOptions(
        batch_size=batch_size, noop=args.noop,
        keep_objects=args.keep_objects,
        connect_timeout=args.connect_timeout,
        network_timeout=args.network_timeout,
        worker_wait=args.worker_wait, worker_timeout=args.worker_timeout,
        expect_workers=args.expect_workers,
        drain_seconds=args.drain_seconds,
        profile_path=profile_path,
        progress_stream=sys.stderr if shown == 'chars' else None,
        **loadopts.run_options(args))

    from ssbench.wire.transport import MasterSockets
    # Plain (not green) sockets: the run loop is the master's only task,
    # and a blocking poll costs far less per message than gevent's.
    sockets = MasterSockets(args.zmq_bind_ip, args.zmq_work_port,
                            args.zmq_results_port, green=False, curve=curve)
    try:
        from ssbench.master.liveview import live_view
        options.live = live_view(shown, args.metrics)
        run = ScenarioRun(scenario, sockets, stats_paths, options,
                          swift=swift, worker_config=worker_config)
        # From here on a first Ctrl-C (or SIGTERM) stops the run at the
        # next step of whatever phase it is in, keeping every result.
        with _stop_on_signals(run):
            local = _local_workers(args, scenario, sockets, curve,
                                   batch_size)
            try:
                if local is not None:
                    run.master.workers_gone = _gone(local, run.master)
                    local.start()
                outcome = run.run()
            finally:
                if local is not None:
                    local.stop()
    finally:
        if options.live is not None:
            # A run stopped at once (a second Ctrl-C, an error) does not
            # wait for Prometheus to take its last figures.
            options.live.close(linger='outcome' in locals())
        sockets.close()
        if swift is not None:
            swift.close()

    # Where the results are comes first: a report that fails (a full
    # disk, a second Ctrl-C) must not hide it.
    log.info('Scenario run results saved to %s', outcome.stats_path)
    log.info('You may generate a report with:\n  %s report-scenario -s %s',
             'ssbench-master', outcome.stats_path)
    status = 0
    if outcome.finalized and (report_request.main_report or
                              report_request.needs_analysis()):
        log.info('Calculating statistics...')
        status = report_cli.write_reports(outcome.stats_path, report_request)
    if outcome.error is not None:
        log.error('%s', outcome.error)
        return outcome.error.exit_status
    return 130 if outcome.interrupted else status


def _check_open_files(args, scenario):
    """Raise the open-file limit, and refuse a run whose connections (the
    master's own, each local worker's) cannot fit under it."""
    import math
    from ssbench.cli import openfiles
    limit = openfiles.raise_soft_limit()
    already_open = openfiles.open_now()
    swift = 0 if args.noop else scenario.container_concurrency
    # Two ZeroMQ connections and a log file per local worker.
    openfiles.check('the master (%d Swift connections, %d local workers)'
                    % (swift, args.workers), swift + 3 * args.workers, limit,
                    already_open)
    if args.workers:
        # Local workers inherit the limit just raised.
        openfiles.check(
            '-u %d over %d local worker(s)' % (scenario.user_count,
                                               args.workers),
            int(math.ceil(scenario.user_count / args.workers)), limit,
            already_open)


def _check_warmup(args, scenario):
    """A run no longer than its --warmup would leave every result out."""
    run_seconds = scenario.run_seconds
    if args.warmup and run_seconds and run_seconds <= args.warmup:
        raise UsageError(
            'the run lasts %g s and --warmup leaves out its first %g s: '
            'nothing would be left to report; run longer (-r) or warm up '
            'less' % (run_seconds, args.warmup))


def _check_run_outputs(args, scenario):
    """(StatsPaths, profile path or None), checked: neither replaces the
    scenario file, and an existing profile is replaced only with
    --force."""
    from ssbench.results import safefiles
    from ssbench.results.statswriter import default_stats_path
    if args.stats_file == '-':
        raise UsageError('--stats-file -: the stats file is binary and '
                         'read back for the report; name a file')
    stats_paths = safefiles.StatsPaths(args.stats_file or default_stats_path(
        scenario.name, scenario.user_count, scenario.operation_count,
        scenario.run_seconds))
    profile_path = stats_paths.plain + '.prof' if args.profile else None
    safefiles.refuse_overwriting_inputs(
        [('stats file', stats_paths.plain), ('stats file', stats_paths.final),
         ('profile', profile_path)],
        [('scenario file', args.scenario_file)])
    stats_paths.check(force=args.force)
    if profile_path:
        safefiles.check_output(profile_path, 'profile', args.force)
    return stats_paths, profile_path


def _local_workers(args, scenario, sockets, curve, batch_size):
    """The LocalWorkers of --workers N (not started), or None."""
    if not args.workers:
        return None
    import math
    from ssbench.master.localworkers import LocalWorkers
    concurrency = int(math.ceil(scenario.user_count / args.workers))
    extra = ['--profile-count', '1000'] if args.profile else []
    if curve is not None:
        extra += ['--zmq-curve-dir', curve.directory]
    return LocalWorkers(args.workers, _worker_host(args.zmq_bind_ip),
                        sockets.work_port, sockets.results_port,
                        concurrency, batch_size, extra)


def _gone(local, master):
    """Master.workers_gone for local workers: why no worker can answer
    any more once all of them exited, unless another worker was heard."""
    def gone():
        if set(master.workers) - set(local.ids):
            return None
        return local.exited()
    return gone


class _stop_on_signals(object):
    """SIGINT/SIGTERM ask `run` to stop gracefully; a second one raises
    KeyboardInterrupt to stop at once.  Handlers are restored on exit."""

    SIGNALS = ('SIGINT', 'SIGTERM')

    def __init__(self, run):
        self.run = run
        self.saved = {}

    def _handle(self, signum, frame):
        if self.run.request_stop():
            raise KeyboardInterrupt()
        log.warning('Received signal %d: stopping (again to stop at once)',
                    signum)

    def __enter__(self):
        import signal
        for name in self.SIGNALS:
            signum = getattr(signal, name)
            self.saved[signum] = signal.signal(signum, self._handle)
            # Restart interrupted system calls: Python 2 would otherwise
            # fail a write to stderr (progress, logging) with EINTR.
            signal.siginterrupt(signum, False)
        return self

    def __exit__(self, *exc_info):
        import signal
        for signum, handler in self.saved.items():
            signal.signal(signum, handler)
        return False


def _curve_keys(args, local_workers=False):
    """CurveKeys for --zmq-curve-dir (None without it), checked now so a
    key problem is one clear error before anything starts."""
    if not args.zmq_curve_dir:
        return None
    import os
    from ssbench.wire.curve.keys import CurveKeys
    curve = CurveKeys(os.path.abspath(args.zmq_curve_dir))
    curve.check(master=True, worker=local_workers)
    return curve


def cmd_kill_workers(args):
    """Ping workers and tell each one that answers to exit."""
    from ssbench.master.dispatch import kill_workers
    from ssbench.wire.transport import MasterSockets
    _check_ports(args)
    sockets = MasterSockets(args.zmq_bind_ip, args.zmq_work_port,
                            args.zmq_results_port, green=False,
                            curve=_curve_keys(args))
    try:
        killed = kill_workers(sockets, timeout=args.timeout)
    finally:
        sockets.close()
    log.info('%d worker(s) told to exit', len(killed))
    return 0


def cmd_cleanup_containers(args):
    """Delete every matching container and its objects."""
    from ssbench.swift.cleanup import cleanup_containers
    from ssbench.cli.authopts import auth_from_args, require_keystone
    from ssbench.swift.client import SwiftClient
    from ssbench.cli import openfiles
    openfiles.raise_and_check('cleanup-containers --concurrency %d' %
                              args.concurrency,
                              args.concurrency * args.concurrency)
    client = SwiftClient(require_keystone(auth_from_args(args).check()),
                         concurrency=args.concurrency * args.concurrency)
    try:
        cleanup_containers(client, args.container_base, args.policy,
                           args.concurrency)
    finally:
        client.close()
    return 0


def main(argv=None):
    """Entry point; returns the exit status instead of exiting."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args, status = build_parser().parse(argv)
    if args is None:
        return status
    if args.command in ('run-scenario', 'cleanup-containers'):
        # Swift calls run in greenlets; patch before anything opens sockets.
        from ssbench.worker.geventpatch import patch_all
        patch_all()
        common.quiet_gevent_interrupts()
    common.setup_logging(args.verbose, args.quiet)
    return common.run_command(args.func, args, args.verbose)


if __name__ == '__main__':
    sys.exit(main())

"""`ssbench-master run-scenario`: check everything first, run the
scenario (ssbench.master.scenariorun) with any local workers, stop
gracefully on a signal, then report."""
from __future__ import absolute_import, division, print_function

import logging
import sys

import ssbench
from ssbench.cli import loadopts
from ssbench.cli import report as report_cli
from ssbench.cli.masterzmq import check_ports, curve_keys, worker_host
from ssbench.cli.runchecks import (check_mark_file, check_open_files,
                                   check_run_outputs, check_warmup)

log = logging.getLogger('ssbench')


def cmd_run_scenario(args):
    """Run a scenario (see ssbench.master.scenariorun), then report on it."""
    from ssbench.cli import scenarioopts
    from ssbench.live import progress
    from ssbench.master.scenariorun import RunOptions, ScenarioRun

    scenario = scenarioopts.load(args)
    if args.print_scenario is not None:
        return scenarioopts.print_scenario(args, scenario)
    check_ports(args)
    from ssbench.cli.s3opts import s3_from_args
    s3 = s3_from_args(args)
    log.info('SwiftStack Benchmark (ssbench version %s)', ssbench.version)
    batch_size = args.batch_size
    if batch_size > scenario.user_count:
        log.warning('--batch-size %d is larger than the user count %d; '
                    'using %d', batch_size, scenario.user_count,
                    scenario.user_count)
        batch_size = scenario.user_count

    check_warmup(args, scenario)
    # Every path is checked before anything touches Swift.
    stats_paths, profile_path = check_run_outputs(args, scenario)
    report_request = report_cli.ReportRequest(
        pctile=args.pctile, csv_output=args.csv, json_path=args.json_file,
        html_path=args.html_file, main_report=not args.no_default_report,
        errors=args.errors, skip=args.warmup, force=args.force,
        bandwidth=args.bandwidth, slo=args.slo, hdr_log=args.hdr_log,
        hdr_interval=args.hdr_interval,
        # -q: the summary line would not be logged, so it is not computed.
        headline=log.isEnabledFor(logging.INFO))
    from ssbench.report.slo import check_flags
    check_flags(report_request.objectives,
                getattr(args, 'storage_urls', None))
    report_request.check(
        inputs=[('scenario file', args.scenario_file)],
        outputs=[('stats file', stats_paths.plain),
                 ('stats file', stats_paths.final),
                 ('profile', profile_path)])
    check_open_files(args, scenario)
    check_mark_file(args.mark_file)
    if args.metrics is not None:
        from ssbench.live.metrics import require_client
        require_client()
    curve = curve_keys(args, local_workers=bool(args.workers))
    header = None
    if s3 is not None:
        from ssbench.cli.s3run import connect_s3
        swift, worker_config, header = connect_s3(args, scenario, s3)
    else:
        swift, worker_config = connect_swift(args, [scenario])

    shown = progress.mode(args.progress, sys.stderr, args.verbose,
                          args.quiet)
    from ssbench.cli.runopts import steady_watch
    watch = steady_watch(args)
    if watch is not None:
        # -r or -o is a ceiling: ending before it is no early end.
        header = dict(header or {}, until_steady=True)
    options = RunOptions(
        batch_size=batch_size, profile_path=profile_path,
        header_extra=header, watch=watch,
        **dict(shared_run_options(args), **loadopts.run_options(args)))

    from ssbench.wire.transport import MasterSockets
    # Plain (not green) sockets: the run loop is the master's only task,
    # and a blocking poll costs far less per message than gevent's.
    sockets = MasterSockets(args.zmq_bind_ip, args.zmq_work_port,
                            args.zmq_results_port, green=False, curve=curve)
    live = None
    try:
        from ssbench.cli.runopts import (live_sinks, pusher,
                                         start_live_view)
        live = start_live_view(shown, args.metrics,
                               pusher(args, scenario.name))
        options.sinks = live_sinks(shown, live)
        run = ScenarioRun(scenario, sockets, stats_paths, options,
                          swift=swift, worker_config=worker_config)
        # From here on a first Ctrl-C (or SIGTERM) stops the run at the
        # next step of whatever phase it is in, keeping every result.
        if args.mark_file:
            run.master.events.watch_file(args.mark_file)
        with stop_on_signals(run), marks_on_signal(run.master.events):
            local = local_workers(args, scenario.user_count, sockets,
                                  curve, batch_size,
                                  stats_paths.plain + '.worker-logs')
            try:
                if local is not None:
                    run.master.workers_gone = workers_gone(local, run.master)
                    run.master.admission.local_run = local.token
                    local.start()
                outcome = run.run()
            finally:
                if local is not None:
                    local.stop()
                    local.settle_logs(went_well(locals().get('outcome')))
    finally:
        if live is not None:
            # A run stopped at once (a second Ctrl-C, an error) does not
            # wait for Prometheus to take its last figures.
            live.close(linger='outcome' in locals())
        sockets.close()
        if swift is not None:
            swift.close()

    # Where the results are comes first: a report that fails (a full
    # disk, a second Ctrl-C) must not hide it.
    if watch is not None and not watch.steady:
        log.info('--until-steady: not steady by the end of the run: %s',
                 watch.verdict.why)
    log.info('Scenario run results saved to %s', outcome.stats_path)
    log.info('You may generate a report with:\n  %s report-scenario -s %s',
             'ssbench-master', outcome.stats_path)
    status = 0
    if outcome.finalized and report_request.wanted():
        log.info('Calculating statistics...')
        status = report_cli.write_reports(outcome.stats_path, report_request)
    if outcome.error is not None:
        log.error('%s', outcome.error)
        return outcome.error.exit_status
    return 130 if outcome.interrupted else status


def shared_run_options(args):
    """The RunOptions keyword arguments of the flags every run shares (a
    run-scenario's, each step of a run-suite)."""
    return {'noop': args.noop, 'keep_objects': args.keep_objects,
            'connect_timeout': args.connect_timeout,
            'network_timeout': args.network_timeout,
            'worker_wait': args.worker_wait,
            'worker_timeout': args.worker_timeout,
            'expect_workers': args.expect_workers,
            'drain_seconds': args.drain_seconds}


def connect_swift(args, scenarios):
    """(SwiftClient of the master, WorkerConfig for the workers) after
    authenticating and checking the cluster's limits against each of
    `scenarios`; (None, None) with --noop."""
    if args.noop:
        return None, None
    from ssbench.cli.authopts import auth_from_args, require_keystone
    from ssbench.swift.client import SwiftClient
    from ssbench.swift.auth import Credentials
    from ssbench.master.workerconfig import WorkerConfig
    from ssbench.master.clusterlimits import check_cluster
    auth = require_keystone(auth_from_args(args).check())
    # The master authenticates; workers get the token
    # (ssbench.swift.tokens).
    credentials = Credentials(auth, timeout=args.network_timeout)
    swift = SwiftClient(auth, concurrency=max(
        scenario.container_concurrency for scenario in scenarios),
        connect_timeout=args.connect_timeout,
        network_timeout=args.network_timeout, tokens=credentials,
        retry_backoff=args.retry_backoff)
    swift.authenticate()
    for scenario in scenarios:
        check_cluster(swift, scenario)
    return swift, WorkerConfig(credentials, args.connect_timeout,
                               args.network_timeout, args.block_size,
                               retry_backoff=args.retry_backoff)


def local_workers(args, user_count, sockets, curve, batch_size,
                  kept_logs):
    """The LocalWorkers of --workers N (not started), or None; their logs
    go to `kept_logs` with --keep-worker-logs."""
    if not args.workers:
        return None
    import math
    from ssbench.cli import authopts, s3opts
    from ssbench.master.localworkers import LocalWorkers, fresh_log_dir
    concurrency = int(math.ceil(user_count / args.workers))
    extra = ['--profile-count', '1000'] if args.profile else []
    if curve is not None:
        extra += ['--zmq-curve-dir', curve.directory]
    # Every variable credentials are read from: the master hands its
    # workers what they need.
    return LocalWorkers(args.workers, worker_host(args.zmq_bind_ip),
                        sockets.work_port, sockets.results_port,
                        concurrency, batch_size, extra,
                        log_dir=fresh_log_dir(kept_logs)
                        if args.keep_worker_logs else None,
                        drop_env=authopts.ENV_NAMES + s3opts.ENV_NAMES)


def went_well(outcome):
    """Whether a run (its RunOutcome, None when it ended in an exception)
    ran to its end without an error."""
    return outcome is not None and outcome.error is None and \
        not outcome.interrupted


def workers_gone(local, master):
    """Master.workers_gone for local workers: why no worker can answer
    any more once all of them exited, unless another worker was heard."""
    def gone():
        if set(master.workers) - set(local.ids):
            return None
        return local.exited()
    return gone


class stop_on_signals(object):
    """SIGINT, SIGTERM, SIGHUP and SIGUSR2 (ssbench.cli.stopsignals) ask
    `run` to stop gracefully; a second one raises KeyboardInterrupt to
    stop at once.  Handlers are restored on exit."""

    def __init__(self, run):
        self.run = run
        self.saved = {}

    def _handle(self, signum, frame):
        from ssbench.cli.stopsignals import quiet_dead_terminal
        quiet_dead_terminal(signum)
        if self.run.request_stop():
            raise KeyboardInterrupt()
        log.warning('Received signal %d: stopping (again to stop at once)',
                    signum)

    def __enter__(self):
        import signal
        from ssbench.cli.stopsignals import handled_stop_signals
        for signum in handled_stop_signals():
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


class marks_on_signal(object):
    """SIGUSR1 stores an operator's mark ("mark N") in `events` (a
    ssbench.master.runevents.RunEvents); the handler is restored on
    exit."""

    def __init__(self, events):
        self.events = events
        self.saved = None

    def _handle(self, signum, frame):
        self.events.mark()

    def __enter__(self):
        import signal
        self.saved = signal.signal(signal.SIGUSR1, self._handle)
        signal.siginterrupt(signal.SIGUSR1, False)
        return self

    def __exit__(self, *exc_info):
        import signal
        signal.signal(signal.SIGUSR1, self.saved)
        return False

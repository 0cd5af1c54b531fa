"""`ssbench-master run-suite`: several steps with the same workers, a
stats file per step, one table of them all (see docs/suites.rst).

Everything is checked before anything touches Swift: the steps'
scenarios, the suite's folder and outputs, the objectives.  Then this
module connects what the suite runs with (Swift, the sockets, local
workers, signals, the live view); the steps themselves, suite.json and
the table are ssbench.suite.runner's.
"""
from __future__ import absolute_import, division, print_function

import logging
import os
import sys

import ssbench
from ssbench.cli.common import write_outputs
from ssbench.results import safefiles
from ssbench.cli.masterzmq import check_ports, curve_keys
from ssbench.cli.runchecks import check_open_files, check_warmup
from ssbench.cli.runscenario import (connect_swift, local_workers,
                                     shared_run_options, stop_on_signals,
                                     went_well, workers_gone)
from ssbench.errors import UsageError
from ssbench.suite import folder as suitefolder, plan as suiteplan
from ssbench.suite.runner import NEW, SuiteRunner, load_step

log = logging.getLogger('ssbench')

# run-scenario's flags that have no meaning for a suite.
_NOT_FOR_SUITES = (('stats_file', '-s', 'each step\'s stats file is named '
                    'in --suite-dir'),
                   ('csv', '--csv', 'the suite prints its own table'),
                   ('errors', '--errors', 'each step\'s stats file gives '
                    'them with report-scenario --errors'),
                   ('bandwidth', '--bandwidth', 'the table has MB/s'),
                   ('hdr_log', '--hdr-log', 'each step\'s stats file gives '
                    'it with report-scenario --hdr-log'),
                   ('hdr_interval', '--hdr-interval', 'it goes with '
                    '--hdr-log'),
                   ('profile', '--profile', 'profile one step with '
                    'run-scenario'))


def check_steps(args, steps):
    """Refuse, before anything runs, a step whose --warmup leaves nothing
    or whose stats file must not be written."""
    for step in steps:
        check_warmup(args, step.scenario)
        paths = safefiles.StatsPaths(step.stats_path)
        safefiles.refuse_overwriting_inputs(
            [('stats file', paths.plain), ('stats file', paths.final)],
            [('scenario file', step.plan.scenario)])
        paths.check(force=args.force)


def _check_outputs(args, folder):
    safefiles.check_directory(os.path.join(folder, suitefolder.SUITE_FILE),
                              'suite folder', create=True)
    for what, path in (('JSON file', args.json_file),
                       ('HTML file', args.html_file)):
        if path and path != safefiles.STDOUT:
            safefiles.check_output(path, what, args.force)
    if args.html_file:
        from ssbench.report.render.html import plotly_js
        plotly_js()
    if args.json_file == args.html_file == safefiles.STDOUT:
        raise UsageError('--json - and --html - would share standard '
                         'output: give one of them a file name')


def suite_objectives(args):
    """What every suite checks first (ports, flags that are
    run-scenario's alone); its --slo objectives, or None."""
    from ssbench.report.slo import check_flags, parse_slo
    check_ports(args)
    for attr, flag, why in _NOT_FOR_SUITES:
        if getattr(args, attr):
            raise UsageError('%s is a run-scenario flag: %s' % (flag, why))
    if args.pctile != 95:
        raise UsageError('--pctile is a run-scenario flag: the suite table '
                         'gives p50, p99 and p99.9')
    objectives = parse_slo(args.slo) if args.slo is not None else None
    check_flags(objectives, getattr(args, 'storage_urls', None))
    return objectives


def cmd_run_suite(args):
    """Run every step of the suite, then print its table."""
    objectives = suite_objectives(args)
    suite = suiteplan.plan_from_args(args)
    folder = suiteplan.suite_dir(args, suite)
    earlier = suiteplan.earlier_steps(folder, suite, args.resume)
    steps = [load_step(args, plan, folder, suite) for plan in suite.steps]
    done, suite_id = {}, NEW
    if earlier is not None:
        from ssbench.suite.resume import resumable
        done = resumable(earlier, folder, suite, steps, args)
        suite_id = earlier.get('id')
    runner = SuiteRunner(args, suite, folder, steps, done, objectives,
                         suite_id)
    return run_suite(runner, [step for step in steps
                              if step.plan.number not in done])


def _distinct(scenarios):
    seen, out = set(), []
    for scenario in scenarios:
        if scenario.source not in seen:
            seen.add(scenario.source)
            out.append(scenario)
    return out


def cmd_find_max_rate(args):
    """`run-suite --find-max-rate` (ssbench.suite.maxrate): the exit
    status."""
    from ssbench.suite.maxrate import SearchRunner, search_suite
    objectives = suite_objectives(args)
    suite, path, start = search_suite(args, objectives)
    folder = suiteplan.suite_dir(args, suite)
    suiteplan.earlier_steps(folder, suite, False)
    runner = SearchRunner(args, suite, folder, objectives, path, start)
    return run_suite(runner, [runner.steps[0]])


def run_suite(runner, to_run):
    """Check the steps `to_run` and the outputs, connect to Swift, run
    the suite of `runner` (a ssbench.suite.runner.SuiteRunner): the exit
    status."""
    args = runner.args
    _check_outputs(args, runner.folder)
    check_steps(args, to_run)
    runner.report_done()
    log.info('SwiftStack Benchmark (ssbench version %s): suite "%s", '
             '%s, files in %s', ssbench.version, runner.suite.name,
             runner.size_text(), runner.folder)
    if not to_run:
        # Nothing to measure: no store to reach, no worker to start.
        log.info('Every step is complete already: the table and the '
                 'outputs are made from their figures')
        runner.suite_file.release()
        return runner.finish(None, write_outputs)
    widest = max(runner.steps, key=lambda step: step.scenario.user_count)
    check_open_files(args, widest.scenario)
    if args.metrics is not None:
        from ssbench.live.metrics import require_client
        require_client()
    curve = curve_keys(args, local_workers=bool(args.workers))
    swift, worker_config = connect_swift(
        args, _distinct([step.scenario for step in runner.steps]))
    return _run(runner, swift, worker_config, curve, widest)


def _run(runner, swift, worker_config, curve, widest):
    """Run the suite with the workers (local ones started for it)."""
    from ssbench.suite.sharedworkers import SuiteRun
    from ssbench.wire.transport import MasterSockets
    args = runner.args
    sockets = MasterSockets(args.zmq_bind_ip, args.zmq_work_port,
                            args.zmq_results_port, green=False, curve=curve)
    outcome = None
    live = None
    try:
        from ssbench.live import progress
        from ssbench.cli.runopts import (live_sinks, pusher,
                                         start_live_view)
        shown = progress.mode(args.progress, sys.stderr, args.verbose,
                              args.quiet)
        live = start_live_view(shown, args.metrics,
                               pusher(args, runner.suite.name))
        options = dict(shared_run_options(args),
                       sinks=live_sinks(shown, live))
        suite_run = SuiteRun(sockets, swift, worker_config)
        with stop_on_signals(suite_run):
            local = local_workers(args, widest.scenario.user_count, sockets,
                                  curve, max(step.batch_size
                                             for step in runner.steps),
                                  os.path.join(runner.folder, 'worker-logs'))
            try:
                if local is not None:
                    suite_run.workers_gone = workers_gone(local,
                                                          suite_run)
                    suite_run.local_run = local.token
                    local.start()
                outcome = runner.run_steps(
                    suite_run, live, options,
                    lambda steps: check_steps(args, steps))
                ended_well = went_well(outcome)
            finally:
                if local is not None:
                    local.stop()
                    local.settle_logs('ended_well' in locals() and
                                      ended_well)
    finally:
        if live is not None:
            live.close(linger=outcome is not None)
        sockets.close()
        if swift is not None:
            swift.close()
        runner.suite_file.release()
    return runner.finish(outcome, write_outputs)

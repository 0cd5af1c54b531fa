"""What run-scenario checks before anything touches Swift: that its
--warmup leaves something to report, that its output paths replace
nothing they must not, and that its connections fit under the open-file
limit, and that a --mark-file can be one."""
from __future__ import absolute_import, division, print_function

import os

from ssbench.errors import UsageError


def check_open_files(args, scenario):
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


def check_warmup(args, scenario):
    """A run no longer than its --warmup would leave every result out."""
    run_seconds = scenario.run_seconds
    if args.warmup and run_seconds and run_seconds <= args.warmup:
        raise UsageError(
            'the run lasts %g s and --warmup leaves out its first %g s: '
            'nothing would be left to report; run longer (-r) or warm up '
            'less' % (run_seconds, args.warmup))


def check_run_outputs(args, scenario):
    """(StatsPaths, profile path or None), checked: neither replaces the
    scenario file, and an existing profile is replaced only with
    --force."""
    from ssbench.results import safefiles
    from ssbench.results.statswriter import default_stats_path
    if args.stats_file == safefiles.STDOUT:
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


def check_mark_file(path):
    """A --mark-file must be a file (to be), not a directory."""
    if path and os.path.isdir(path):
        raise UsageError('--mark-file %s is a directory, not a file' %
                         (path,))

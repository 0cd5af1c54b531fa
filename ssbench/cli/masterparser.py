"""The ssbench-master argument tree: its global flags and its five
sub-commands, each with the function that runs it."""
from __future__ import absolute_import, division, print_function

import ssbench
from ssbench.load import scenario as limits
from ssbench.cli import common, loadopts, runopts, scenarioopts
from ssbench.cli import report as report_cli
from ssbench.cli.authopts import add_auth_options
from ssbench.cli.cleanupcontainers import cmd_cleanup_containers
from ssbench.cli.common import ArgumentParser, bounded
from ssbench.cli.killworkers import cmd_kill_workers
from ssbench.cli.masterzmq import add_zmq_options
from ssbench.cli.runscenario import cmd_run_scenario
from ssbench.cli.s3opts import add_s3_options
from ssbench.cli.suiteopts import add_suite_parser

# Local worker processes one run may spawn (--workers).
MAX_LOCAL_WORKERS = 256
# cleanup-containers -c: containers at once, and objects per container.
MAX_CLEANUP_CONCURRENCY = 100


def build_parser():
    """The whole ssbench-master argument tree."""
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
        'run-scenario,run-suite,cleanup-containers}')
    subparsers.required = True

    kill = subparsers.add_parser(
        'kill-workers', help='Tell all workers to exit.',
        formatter_class=common.HelpFormatter)
    add_zmq_options(kill)
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
    scenarioopts.add_scenario_options(run)
    add_run_arguments(run)
    add_s3_options(run)
    run.add_argument(
        '--mark-file', metavar='PATH',
        help='Each line appended to PATH during the benchmark phase is '
        'stored as an operator\'s mark with that text, shown on the '
        'report\'s timeline (SIGUSR1 to the master stores "mark N"); the '
        'file need not exist yet')
    run.set_defaults(func=cmd_run_scenario)

    add_suite_parser(subparsers, add_run_arguments)

    report_cli.add_report_parser(subparsers, common.HelpFormatter)

    cleanup = subparsers.add_parser(
        'cleanup-containers',
        help='Recursively delete all ssbench containers and their objects.',
        formatter_class=common.HelpFormatter)
    cleanup.add_argument(
        '-b', '--container-base', default='ssbench',
        type=scenarioopts.container_base,
        help='Base name of the containers to delete')
    cleanup.add_argument(
        '-c', '--concurrency',
        type=bounded(common.positive_int, MAX_CLEANUP_CONCURRENCY), default=10,
        help='Containers (and objects per container) deleted at once')
    cleanup.add_argument(
        '-p', '--policy', default='default_policy',
        help='Storage policy part of the container names')
    add_network_timeout(cleanup)
    add_auth_options(cleanup)
    add_s3_options(cleanup)
    cleanup.set_defaults(func=cmd_cleanup_containers)
    return parser


def add_run_arguments(run, sweep=None):
    """The flags run-scenario and run-suite share.  `sweep` (run-suite's
    ssbench.cli.suiteopts.sweepable) makes the load settings a suite
    varies take sweeps; without it each takes one value."""
    sweep = sweep or _one_value
    add_zmq_options(run, run=True)
    add_auth_options(run)
    # The scenario's settings these flags override, each with its type's
    # parser and limit.
    for flags, metavar, parse, limit, text in (
            (('-c', '--container-count'), 'COUNT', common.positive_int,
             limits.MAX_CONTAINER_COUNT, 'the container count'),
            (('-u', '--user-count'), 'COUNT', common.positive_int,
             limits.MAX_USER_COUNT, 'the user count (concurrency)'),
            (('-o', '--op-count'), 'COUNT', common.positive_int,
             limits.MAX_OPERATION_COUNT, 'the operation count'),
            (('-r', '--run-seconds'), 'SECONDS', common.positive_float,
             limits.MAX_RUN_SECONDS, 'the run_seconds')):
        suffix = ' (and any operation count)' if flags[0] == '-r' else ''
        run.add_argument(
            *flags, metavar=metavar, type=sweep(bounded(parse, limit)),
            default=None, help='Override %s specified in the scenario '
            'file%s.' % (text, suffix))
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
        '--keep-worker-logs', action='store_true', default=False,
        help='Keep the local workers\' logs beside the stats file, in '
        'STATS.worker-logs (run-suite: in the suite folder\'s worker-logs); '
        'without it they go to a private folder in the temp dir, removed '
        'after a run that went well')
    run.add_argument(
        '--batch-size', metavar='COUNT',
        type=sweep(bounded(common.positive_int, limits.MAX_USER_COUNT)),
        default=1,
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
    add_network_timeout(run)
    run.add_argument(
        '--retry-backoff', metavar='BASE[,CAP]', type=runopts.retry_backoff,
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
        '-p', '--policy', default=None, type=sweep(str),
        help='Storage policy for the containers (overrides the scenario).')
    scenarioopts.add_container_base(run)
    runopts.add_liveness_options(run)
    runopts.add_steady_options(run)
    loadopts.add_run_options(run, sweep)
    runopts.add_live_options(run)


def _one_value(convert):
    """run-scenario's load settings: one value each, as the flag says."""
    return convert


def add_network_timeout(parser):
    """--network-timeout, alike for run-scenario and cleanup-containers."""
    parser.add_argument(
        '--network-timeout', type=common.positive_float, default=20.0,
        help='Timeout for socket operations after connecting.')

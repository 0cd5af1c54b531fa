"""ssbench-worker: run benchmark jobs handed out by an ssbench-master.

A worker whose own auth options / ST_* / OS_* variables are complete
authenticates with them; otherwise the master, which authenticates, sends
it the storage URL(s) and a token (a CONFIGURE control job), never a key
or password, and a new token when Swift rejects the old one.

`-p N` writes a cProfile of the worker while it handles its first N jobs
to a new private /tmp/ssbench-worker-<id>-XXXXXXXX.prof (the log says
which), or to --profile-file PATH (a new file unless --force, written
through a temporary name and a rename).

SIGTERM, and SIGINT unless it is ignored (as in the local workers of
`run-scenario --workers`), stop the worker: it sends the results it holds,
logs one line and exits with status 0 (130 after SIGINT).

`--processes N|auto` starts N such workers (auto: one per core) with ids
from the one given upward, each logging to its own file; see
ssbench.worker.supervisor.  Without it, `--log-dir DIR` sends this worker's
log to DIR/worker-ID.log (appended to), the name a child of --processes
logs to, with its errors on stderr too.
"""
from __future__ import absolute_import, division, print_function

import argparse
import logging
import os
import signal
import sys

from ssbench.cli import openfiles
from ssbench.cli.common import (MAX_WORKER_ID, ArgumentParser, bounded,
                                non_negative_float, non_negative_int, port,
                                positive_int, quiet_gevent_interrupts,
                                run_command, setup_logging)
from ssbench.errors import UsageError

# The worker's lines log under its main loop's name.
log = logging.getLogger('ssbench.worker.mainloop')
# Most --retries a request gets (each may wait up to --network-timeout).
MAX_RETRIES = 1000


def build_parser():
    from ssbench import version
    from ssbench.cli.authopts import add_auth_options
    from ssbench.worker.supervisor import parse_processes
    from ssbench.load.scenario import MAX_USER_COUNT
    parser = ArgumentParser(
        prog='ssbench-worker',
        description='Run Swift benchmark jobs for an ssbench-master.',
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument('--zmq-host', default='127.0.0.1',
                        help='host name or IP of the ssbench-master')
    parser.add_argument('--zmq-work-port', type=port, default=13579,
                        help='the master\'s work (job) port')
    parser.add_argument('--zmq-results-port', '--zmq-results_port',
                        dest='zmq_results_port', type=port, default=13580,
                        help='the master\'s results port')
    parser.add_argument('--zmq-curve-dir', metavar='DIR',
                        help='encrypt and authenticate traffic with CURVE '
                             'using the keys in DIR (master.key and '
                             'worker.key_secret, made by `python -m '
                             'ssbench.cli.curve keys DIR`); the master runs '
                             'with --zmq-curve-dir too')
    parser.add_argument('-c', '--concurrency',
                        type=bounded(positive_int, MAX_USER_COUNT),
                        default=64,
                        help='how many jobs to run at once (gevent pool)')
    parser.add_argument('--retries',
                        type=bounded(non_negative_int, MAX_RETRIES),
                        default=10,
                        help='retries of a request answered 503 (404 for '
                             'GET/DELETE, 401 with a new token) or failing '
                             'at socket level')
    parser.add_argument('--batch-size',
                        type=bounded(positive_int, MAX_USER_COUNT), default=1,
                        metavar='COUNT',
                        help='send results in batches of COUNT (a partial '
                             'batch goes out after ~1 s without a new '
                             'result)')
    parser.add_argument('-p', '--profile-count', type=non_negative_int,
                        default=0, metavar='COUNT',
                        help='profile the first COUNT jobs with cProfile '
                             'into a new private file in the temporary '
                             'directory, named in the log (0: off)')
    parser.add_argument('--profile-file', metavar='PATH',
                        help='write that profile to PATH instead (a new '
                             'file, unless --force)')
    parser.add_argument('--force', action='store_true',
                        help='let --profile-file replace an existing file')
    parser.add_argument('--master-timeout', type=non_negative_float,
                        default=0.0,
                        metavar='SECONDS',
                        help='exit when for SECONDS no master was connected '
                             'and none sent anything (0: wait forever)')
    parser.add_argument('--processes', type=parse_processes,
                        metavar='N|auto',
                        help='start N worker processes (auto: one per '
                             'core) with ids from WORKER_ID upward, each '
                             'logging to DIR/worker-ID.log; SIGINT and '
                             'SIGTERM stop them all (default: this process '
                             'is the one worker)')
    parser.add_argument('--log-dir', metavar='DIR',
                        help='the directory of the workers\' logs, '
                             'DIR/worker-ID.log, appended to (default: with '
                             '--processes a new private directory in the '
                             'temporary directory, named in the log; '
                             'without, stderr)')
    parser.add_argument('-v', '--verbose', action='store_true',
                        help='debug logging, tracebacks on errors')
    parser.add_argument('--version', action='version',
                        version='%(prog)s ' + version)
    parser.add_argument('worker_id',
                        type=bounded(non_negative_int, MAX_WORKER_ID),
                        help='this worker\'s id (an integer from 0 to '
                             '2**63-1)')
    add_auth_options(parser)
    return parser


class _StopOnSignals(object):
    """SIGTERM and SIGINT (unless ignored) stop the worker gracefully, in
    the gevent loop (so no KeyboardInterrupt lands in the middle of a
    send); a signal that comes before the worker exists stops it as soon
    as it does."""

    def __init__(self, worker_id):
        self.worker_id = worker_id
        self.worker = None
        self.received = None
        self.watchers = []

    def install(self):
        import gevent
        for signum in (signal.SIGTERM, signal.SIGINT):
            if signal.getsignal(signum) == signal.SIG_IGN:
                continue
            self.watchers.append(gevent.signal_handler(signum, self._handle,
                                                       signum))
        return self

    def _handle(self, signum):
        name = 'SIGINT' if signum == signal.SIGINT else 'SIGTERM'
        if self.received is None:
            log.info('worker %d received %s: stopping', self.worker_id,
                     name)
        self.received = signum
        self.attach(self.worker)

    def attach(self, worker):
        self.worker = worker
        if worker is not None and self.received is not None:
            worker.stopping = True

    def exit_status(self):
        return 130 if self.received == signal.SIGINT else 0

    def uninstall(self):
        for watcher in self.watchers:
            watcher.cancel()
        self.watchers = []


def _supervise(args, argv, env):
    """--processes: start the workers, wait for them; the exit status."""
    from ssbench.worker.supervisor import Supervisor, process_count
    from ssbench.results import safefiles
    from ssbench.procstats import cpu_count
    count = process_count(args.processes, cpu_count())
    if args.worker_id + count - 1 > MAX_WORKER_ID:
        raise UsageError('--processes %d from worker id %d: ids past %d' % (
            count, args.worker_id, MAX_WORKER_ID))
    # The open-file limit is per process, and children inherit the one
    # raised here: one check for all of them.
    openfiles.raise_and_check('each of %d worker processes with '
                              '--concurrency %d' % (count, args.concurrency),
                              args.concurrency)
    if args.log_dir:
        safefiles.check_directory(os.path.join(args.log_dir, 'worker.log'),
                                  '--log-dir', create=True)
        log_dir = args.log_dir
    else:
        log_dir = safefiles.private_directory('ssbench-workers-')
    supervisor = Supervisor(argv, args.worker_id, count, log_dir, env=env)
    supervisor.start()
    return supervisor.wait()


def _log_to_dir(args):
    """--log-dir without --processes: the log goes to
    DIR/worker-ID.log (appended to), and its errors to stderr too."""
    from ssbench.worker.supervisor import open_log
    from ssbench.results import safefiles
    path = os.path.join(args.log_dir, 'worker-%d.log' % args.worker_id)
    safefiles.check_directory(path, '--log-dir', create=True)
    stream = open_log(path, text=True)
    log.info('worker %d logging to %s', args.worker_id, path)
    setup_logging(verbose=args.verbose, stream=stream)
    root = logging.getLogger()
    errors = logging.StreamHandler(sys.stderr)
    errors.setLevel(logging.ERROR)
    errors.setFormatter(root.handlers[0].formatter)
    root.addHandler(errors)


def _serve(args, env, handle_signals=True, index=None):
    if index is not None:
        # A child of --processes: its id is its parent's first plus its
        # index.
        args.worker_id += index
    elif args.log_dir:
        _log_to_dir(args)
    # One socket per runner greenlet: refuse before any connection.
    openfiles.raise_and_check('worker %d --concurrency %d' % (
        args.worker_id, args.concurrency), args.concurrency)
    stop = _StopOnSignals(args.worker_id)
    if handle_signals:
        stop.install()
    try:
        return _serve_until_stopped(args, env, stop)
    finally:
        stop.uninstall()


def _serve_until_stopped(args, env, stop):
    from ssbench.cli.authopts import auth_from_args, require_keystone
    from ssbench.wire.curve.keys import CurveKeys
    from ssbench.wire.transport import WorkerSockets
    from ssbench.worker.mainloop import Worker
    save_profile = None
    if args.profile_file and args.profile_count:
        from ssbench.results import safefiles
        if args.profile_file == safefiles.STDOUT:
            raise UsageError('--profile-file -: a profile is binary; name '
                             'a file')
        safefiles.check_output(args.profile_file, '--profile-file',
                               args.force)
        save_profile = safefiles.save_profile
    auth = auth_from_args(args, env)
    if auth.has_credentials():
        require_keystone(auth.check())
        log.info('worker %d uses its own Swift credentials: %r',
                 args.worker_id, auth)
    else:
        auth = None
        log.info('worker %d has no Swift credentials of its own; the '
                 'master will send it a token', args.worker_id)
    local_run = _local_run(env)
    curve = CurveKeys(args.zmq_curve_dir) if args.zmq_curve_dir else None
    sockets = WorkerSockets(args.zmq_host, args.zmq_work_port,
                            args.zmq_results_port, green=True, curve=curve)
    log.info('worker %d connecting to %s and %s (concurrency %d, batch '
             'size %d)', args.worker_id, sockets.work_endpoint,
             sockets.results_endpoint, args.concurrency, args.batch_size)
    worker = Worker(args.worker_id, sockets, concurrency=args.concurrency,
                    batch_size=args.batch_size, retries=args.retries,
                    auth=auth, master_timeout=args.master_timeout,
                    profile_count=args.profile_count,
                    profile_path=args.profile_file,
                    save_profile=save_profile, local_run=local_run)
    stop.attach(worker)
    worker.run()
    log.info('worker %d exiting', args.worker_id)
    return stop.exit_status()


def _local_run(env):
    """The run token of a local worker of `run-scenario --workers` (see
    ssbench.master.localworkers), None for any other worker."""
    import re
    from ssbench.master.localworkers import LOCAL_RUN_ENV
    from ssbench.wire.messagecheck import MAX_LOCAL_RUN
    token = env.get(LOCAL_RUN_ENV)
    if token is None:
        return None
    if not re.match(r'[0-9a-f]{1,%d}\Z' % MAX_LOCAL_RUN, token):
        raise UsageError('%s must be 1 to %d hexadecimal digits' % (
            LOCAL_RUN_ENV, MAX_LOCAL_RUN))
    return token


def main(argv=None, env=None, patch=True):
    """Entry point; returns the exit status (2 on a bad command line).

    `patch=False` skips gevent.monkey.patch_all(), for in-process tests.
    """
    from ssbench.worker.supervisor import (CHILD_INDEX, child_index,
                                           wants_processes)
    if argv is None:
        argv = sys.argv[1:]
    if env is None:
        env = os.environ
    # A --processes parent only supervises: no gevent, no sockets.
    supervising = wants_processes(argv) and env.get(CHILD_INDEX) is None
    if patch and not supervising:
        from ssbench.worker.geventpatch import patch_all
        patch_all()
        quiet_gevent_interrupts()
    args, status = build_parser().parse(argv)
    if args is None:
        return status
    setup_logging(verbose=args.verbose)
    if supervising and args.processes is not None:
        return run_command(lambda a: _supervise(a, argv, env), args,
                           args.verbose)
    return run_command(lambda a: _serve(a, env, handle_signals=patch,
                                        index=child_index(env)),
                       args, args.verbose)


if __name__ == '__main__':
    sys.exit(main())

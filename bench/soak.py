#!/usr/bin/env python
"""A soak: a long open-loop run against a Swift of its own, under faults.

    python bench/soak.py [--duration 3600] [--rate 20] [--workers 2]
        [--fault-every 300] [--plan proxy,object,network,worker,token]
        [--out DIR] [--auth-url URL] [--keep-swift]

Starts a tools/saio instance of its own (SAIO_DIR /var/tmp/ssbench-soak,
ports +100, Swift from the shared virtualenv) unless --auth-url names a
Swift it may disturb, a TCP relay (tests/relay.py) between the workers
and the proxy, `ssbench-worker` processes 1..N and `ssbench-master
run-scenario --rate R -r DURATION --mark-file DIR/marks`, which
authenticates as --user with the key in ST_KEY (default "testing", the
local instance's), handed to it in its environment, never on a command
line (where every user of the host reads it).  Every
--fault-every seconds of the benchmark phase the next fault of the plan
happens, between two marks ("soak fault 3 network begin" / "... end").
It samples the RSS of the master and of every worker, and at the end
reads the stats file, times `report-scenario --json` on it and writes
DIR/summary.json (see docs/reliability.rst, "Soak").  Exit status 0 when
results + lost + unsent == intended, every fault is among the report's
events and the master exited 0; 1 otherwise; 2 for bad options; 130
when interrupted.  Every process it starts is stopped before it exits,
and its own Swift's data image unmounted.
"""
from __future__ import absolute_import, division, print_function

import argparse
import json
import os
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path[:0] = [p for p in (HERE, ROOT) if p not in sys.path]

import benchlib  # noqa: E402
import soakfaults  # noqa: E402
import soakfigures  # noqa: E402
from soakfaults import FaultRunner, SoakError  # noqa: E402
from soakprocs import (Sampler, Workers, start_group,  # noqa: E402
                       stop_group)
from ssbench.master.admission import STALL_SECONDS  # noqa: E402
from tests.relay import Relay  # noqa: E402

try:
    from urllib.request import Request, urlopen
    from urllib.parse import urlsplit, urlunsplit
except ImportError:  # Python 2
    from urllib2 import Request, urlopen
    from urlparse import urlsplit, urlunsplit

SCENARIO = os.path.join(HERE, 'soak.scenario')
SAIO_DIR = '/var/tmp/ssbench-soak'
SAIO_VENV = '/var/tmp/ssbench-saio/venv'
# The key of --user when ST_KEY is unset: tools/saio's test:tester's.
DEFAULT_KEY = 'testing'


class Interrupted(Exception):
    """SIGINT or SIGTERM to the soak."""


def storage_url_through(auth_url, user, key, relay_port):
    """The storage URL tempauth gives, its host and port the relay's."""
    request = Request(auth_url, headers={'X-Auth-User': user,
                                         'X-Auth-Key': key})
    try:
        answer = urlopen(request, timeout=10)
        url = answer.info().get('X-Storage-Url')
    except Exception as exc:
        raise SoakError('cannot authenticate on %s: %s' % (auth_url, exc))
    if not url:
        raise SoakError('%s gave no X-Storage-Url' % auth_url)
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, '127.0.0.1:%d' % relay_port,
                       parts.path, parts.query, parts.fragment))


def port_of(url):
    return urlsplit(url).port or 80


def run_report(python, stats, out_path, timeout):
    """`report-scenario --json -` of `stats` into out_path: (wall
    seconds, peak RSS MB)."""
    argv = [python, '-m', 'ssbench.cli.master', 'report-scenario',
            '-s', stats, '--json', '-']
    began = time.time()
    err_path = out_path + '.err'
    with open(out_path, 'wb') as out, open(err_path, 'wb') as err:
        # Its stderr to a file: a pipe nobody reads could fill and stall it.
        proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=ROOT,
                                preexec_fn=os.setsid)
        deadline = began + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                os.killpg(proc.pid, signal.SIGKILL)
                os.wait4(proc.pid, 0)
                raise SoakError('report-scenario took over %.0f s' % timeout)
            time.sleep(0.05)
    proc.returncode = status
    seconds = time.time() - began
    if status != 0:
        with open(err_path, 'rb') as err:
            said = err.read()[-500:].decode('utf-8', 'replace').strip()
        raise SoakError('report-scenario --json failed: %s' % (said,))
    # ru_maxrss is in KB on Linux.
    return seconds, usage.ru_maxrss / 1024.0


def count_stats(stats):
    """soakfigures.Counts of the stats file's results."""
    from ssbench.report.compute.causes import cause_of
    from ssbench.results.statsreader import open_stats
    counts = soakfigures.Counts(cause_of)
    for record in open_stats(stats).iter_results():
        counts.add(record)
    return counts


def build_parser():
    parser = argparse.ArgumentParser(
        description=__doc__.split('\n')[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument(
        '--duration', type=float, default=3600.0,
        help='seconds of the benchmark phase (run-scenario -r)')
    parser.add_argument(
        '--rate', type=float, default=20.0,
        help='jobs per second intended (run-scenario --rate)')
    parser.add_argument(
        '--users', type=int, default=16,
        help='cap of jobs in flight (run-scenario -u)')
    parser.add_argument(
        '--workers', type=int, default=2, help='worker processes, ids 1..N')
    parser.add_argument(
        '--fault-every', type=float, default=300.0,
        help='seconds between faults (the first that far into the run)')
    parser.add_argument(
        '--plan', default=','.join(soakfaults.PLAN),
        help='the faults, done in turn, one every --fault-every: any of ' +
        ', '.join(soakfaults.PLAN))
    parser.add_argument(
        '--faults', type=int, default=None,
        help='how many faults (default: as many as the run has slots for)')
    parser.add_argument(
        '--down-seconds', type=float, default=5.0,
        help='how long the object server stays killed')
    parser.add_argument(
        '--stall-seconds', type=float, default=5.0,
        help='how long the network to Swift stalls before the reset')
    parser.add_argument(
        '--worker-pause', type=float, default=3.0,
        help='seconds between killing a worker and starting it again '
        '(more than the master\'s %g s to see it stalled, which lets a new '
        'process take its id over)' % STALL_SECONDS)
    parser.add_argument(
        '--sample-every', type=float, default=5.0,
        help='seconds between RSS samples')
    parser.add_argument('--scenario', default=SCENARIO)
    parser.add_argument(
        '--out', default='/var/tmp/ssbench-soak-run',
        help='directory of the stats file, logs, marks, report and '
        'summary.json (their earlier versions are replaced)')
    parser.add_argument(
        '--auth-url',
        help='a v1.0 auth URL of a running tools/saio Swift (of '
        '--saio-dir) that the soak may disturb; default: start its own')
    parser.add_argument('--user', default='test:tester',
                        help='v1.0 user; its key comes from ST_KEY')
    parser.add_argument(
        '--saio-dir', default=SAIO_DIR, help='SAIO_DIR of its Swift')
    parser.add_argument(
        '--port-offset', type=int, default=100,
        help='SAIO_PORT_OFFSET of its Swift')
    parser.add_argument(
        '--saio-venv', default=SAIO_VENV,
        help='SAIO_VENV: the Swift virtualenv to reuse')
    parser.add_argument(
        '--keep-swift', action='store_true',
        help='leave its own Swift running at the end')
    parser.add_argument(
        '--python', default=sys.executable,
        help='interpreter of master, workers and report')
    parser.add_argument(
        '--timeout', type=float, default=None,
        help='stop everything after this many seconds (default: '
        'duration + 900)')
    parser.add_argument(
        '--seed', type=int, default=None, help='run-scenario --seed')
    return parser


def check_args(parser, args):
    """Bad options: one line, exit 2."""
    plan = [name.strip() for name in args.plan.split(',') if name.strip()]
    unknown = [name for name in plan if name not in soakfaults.PLAN]
    if unknown or not plan:
        parser.error('--plan: unknown fault %r (known: %s)' % (
            ','.join(unknown), ', '.join(soakfaults.PLAN)))
    for name in ('duration', 'rate', 'fault_every', 'sample_every'):
        if getattr(args, name) <= 0:
            parser.error('--%s must be above 0' % name.replace('_', '-'))
    if args.workers < 1 or args.users < 1:
        parser.error('--workers and --users must be at least 1')
    if args.worker_pause <= STALL_SECONDS:
        # Sooner, the old process still holds its id and the master
        # refuses the new one.
        parser.error('--worker-pause must be above %g s: the master lets '
                     'a restarted worker take its id over once the killed '
                     'one is stalled' % STALL_SECONDS)
    # The k-th fault has the k-th slot of --fault-every seconds; the last
    # slot ends by the end of the run, so that its end mark is stored.
    slots = int(args.duration // args.fault_every) - 1
    wanted = len(plan) if args.faults is None else args.faults
    if args.faults is not None and args.faults < 1:
        parser.error('--faults must be at least 1')
    if slots < wanted:
        parser.error('--duration %.0f leaves room for %d fault(s) every '
                     '%.0f s; %d need at least %.0f s' % (
                         args.duration, max(slots, 0), args.fault_every,
                         wanted, (wanted + 1) * args.fault_every))
    args.plan = plan
    args.fault_count = slots if args.faults is None else args.faults
    if args.timeout is None:
        args.timeout = args.duration + 900.0
    return args


class Soak(object):
    """One soak run: what it started (to stop it), what it measured."""

    def __init__(self, args):
        self.args = args
        self.key = os.environ.get('ST_KEY') or DEFAULT_KEY
        self.out = os.path.abspath(args.out)
        self.stats = os.path.join(self.out, 'soak.stat')
        self.marks = os.path.join(self.out, 'marks')
        self.saio = soakfaults.Saio(args.saio_dir, args.port_offset,
                                    args.saio_venv)
        self.own_swift = args.auth_url is None
        self.swift_started = False
        self.relay = None
        self.workers = None
        self.master = None
        self.master_status = None
        self.runner = None
        self.stop_event = threading.Event()
        self.sampler = Sampler(args.sample_every)
        self.bench_start = None

    def say(self, text):
        print('soak: %s' % text)
        sys.stdout.flush()

    def prepare(self):
        """The output directory, Swift, the relay: (auth URL, storage URL
        through the relay, proxy port)."""
        args = self.args
        if not os.path.isdir(self.out):
            os.makedirs(self.out)
        for path in (self.stats, self.stats + '.gz', self.marks):
            if os.path.exists(path):
                os.remove(path)
        if self.own_swift:
            if self.saio.up():
                # Another soak's, most likely: stopping it at the end
                # would pull it from under that run.
                raise SoakError(
                    'a Swift already runs in %s; give another --saio-dir '
                    'and --port-offset, or --auth-url to use that one' %
                    args.saio_dir)
            self.say('starting its Swift (SAIO_DIR=%s, ports +%d)' % (
                args.saio_dir, args.port_offset))
            self.swift_started = True
            self.saio.run('start')
            auth_url = self.saio.credentials()[0]
        else:
            auth_url = args.auth_url
        proxy_port = port_of(auth_url)
        self.relay = Relay(('127.0.0.1', proxy_port)).start()
        storage = storage_url_through(auth_url, args.user, self.key,
                                      self.relay.port)
        return auth_url, storage, proxy_port

    def start_run(self, auth_url, storage):
        args = self.args
        ports = benchlib.free_ports(2)
        self.workers = Workers(args.python, ports, self.out, args.workers)
        for worker_id in self.workers.ids():
            self.workers.start(worker_id)
        argv, env = self.master_command(auth_url, storage, ports)
        self.master = start_group(argv, os.path.join(self.out, 'master.log'),
                                  env=env)

    def master_command(self, auth_url, storage, ports):
        """(argv, environment) of the master: its key in the
        environment (ST_KEY), never in argv."""
        args = self.args
        argv = [args.python, '-m', 'ssbench.cli.master', 'run-scenario',
                '-f', args.scenario, '-r', '%g' % args.duration,
                '--rate', '%g' % args.rate, '-u', str(args.users),
                '-s', self.stats, '--mark-file', self.marks,
                '--expect-workers', str(args.workers), '--worker-wait', '120',
                '--zmq-bind-ip', '127.0.0.1',
                '--zmq-work-port', str(ports[0]),
                '--zmq-results-port', str(ports[1]),
                '-A', auth_url, '-U', args.user,
                '-S', storage, '--retry-backoff', '-k', '-R',
                '--progress', 'none']
        if args.seed is not None:
            argv += ['--seed', str(args.seed)]
        return argv, dict(os.environ, ST_KEY=self.key)

    def processes(self):
        procs = [('master', self.master)]
        procs += [('worker %d' % worker_id, proc)
                  for worker_id, proc in self.workers.processes()]
        return procs

    def watch(self, faults):
        """Sample until the master exits; start the faults with the
        benchmark phase (when the master creates the stats file)."""
        deadline = time.time() + self.args.timeout
        while self.master.poll() is None:
            self.sampler.sample(self.processes())
            if self.bench_start is None and os.path.exists(self.stats):
                self.bench_start = time.time()
                self.say('benchmark phase began; %d fault(s) every %.0f s'
                         % (self.args.fault_count, self.args.fault_every))
                self.runner = FaultRunner(
                    faults, self.args.plan, self.args.fault_count,
                    self.args.fault_every, self.marks, self.bench_start,
                    self.stop_event)
                self.runner.start()
            if time.time() > deadline:
                raise SoakError('the run did not end within --timeout %.0f s'
                                % self.args.timeout)
            time.sleep(0.2)
        self.master_status = self.master.wait()
        if self.runner is not None:
            # A fault still under way cuts its waits short.
            self.stop_event.set()
            self.runner.join(60)

    def stop(self):
        """Stop everything it started (safe to call twice), deaf to
        SIGINT and SIGTERM meanwhile: each step is bounded in time."""
        handlers = [(sig, signal.signal(sig, signal.SIG_IGN))
                    for sig in (signal.SIGINT, signal.SIGTERM)]
        try:
            self._stop()
        finally:
            for sig, handler in handlers:
                signal.signal(sig, handler)

    def _stop(self):
        self.stop_event.set()
        if self.master is not None and self.master.poll() is None:
            # SIGINT: the master keeps what it received and gzips the file.
            self.master_status = stop_group(self.master, signal.SIGINT, 30)
        if self.workers is not None:
            self.workers.stop()
        if self.relay is not None:
            self.relay.resume()
            self.relay.stop()
            self.relay = None
        if self.swift_started and not self.args.keep_swift:
            self.swift_started = False
            self.saio.run('stop', check=False)
            try:
                self.saio.unmount()
            except SoakError as exc:
                self.say('%s' % exc)

    def figures(self):
        """The summary (a map) of a finished run."""
        args = self.args
        stats = self.stats + '.gz'
        if not os.path.exists(stats):
            raise SoakError('the master left no %s (status %s; see %s)' % (
                stats, self.master_status,
                os.path.join(self.out, 'master.log')))
        report_path = os.path.join(self.out, 'report.json')
        seconds, peak = run_report(args.python, stats, report_path,
                                   args.timeout)
        with open(report_path) as fp:
            doc = json.load(fp)
        counts = count_stats(stats).as_dict()
        schedule = (doc.get('open_loop') or {}).get('schedule')
        check = soakfigures.accounting(schedule, counts)
        start_time = (doc.get('run') or {}).get('start_time')
        faults = soakfigures.faults_in_events(
            self.runner.done if self.runner else [], doc.get('events'),
            start_time)
        size = os.path.getsize(stats)
        problems = []
        if self.master_status != 0:
            problems.append('run-scenario exited with status %s' % (
                self.master_status,))
        if not check['holds']:
            problems.append('accounting: %s' % check['why'])
        if self.runner is not None and self.runner.failure:
            problems.append('a fault failed: %s' % self.runner.failure)
        if len(faults) < args.fault_count:
            problems.append('%d of %d faults done' % (
                len(faults), args.fault_count))
        problems += ['not among the events: %s' % f['begin_mark'][:-6]
                     for f in faults if not f['in_events']]
        retries = doc.get('retries') or {}
        return {
            'command': [sys.executable] + sys.argv,
            'python': sys.version.split()[0],
            'scenario': args.scenario, 'duration': args.duration,
            'rate': args.rate, 'users': args.users, 'workers': args.workers,
            'fault_every': args.fault_every, 'plan': args.plan,
            'master_status': self.master_status,
            'intended': check['intended'], 'sent': check['sent'],
            'unsent': check['unsent'], 'results': check['results'],
            'errors': check['errors'],
            'errors_by_cause': check['errors_by_cause'],
            'lost': check['lost'],
            'retries': retries.get('total'),
            'auth_retries': retries.get('auth'),
            'accounting': {'holds': check['holds'], 'check': check['why']},
            'rss': {'skip_seconds': soakfigures.skip_seconds(args.duration),
                    'series': self.sampler.summary(
                        self.bench_start,
                        soakfigures.skip_seconds(args.duration))},
            'stats_file': {
                'path': stats, 'bytes': size,
                'bytes_per_million_results': soakfigures.per_million(
                    size, check['results'] + check['lost'])},
            'report': {'path': report_path, 'seconds': round(seconds, 2),
                       'max_rss_mb': round(peak, 1)},
            'faults': faults,
            'ok': not problems, 'problems': problems,
        }


def describe(summary):
    """The summary's lines for a reader."""
    lines = [
        'intended %s, sent %s, unsent %s; results %s (%s errors), lost %s'
        % tuple(summary[k] for k in (
            'intended', 'sent', 'unsent', 'results', 'errors', 'lost')),
        'accounting: %s (%s)' % (
            'holds' if summary['accounting']['holds'] else 'FAILS',
            summary['accounting']['check']),
        'errors by cause: %s' % (', '.join(
            '%s %d' % item for item in
            sorted(summary['errors_by_cause'].items())) or 'none'),
        'retries %s, of them auth (expired token) %s' % (
            summary['retries'], summary['auth_retries'])]
    for series in summary['rss']['series']:
        lines.append('rss %s (pid %s): %s -> %s MB, max %s, slope %s MB/h '
                     '(%d samples)' % (
                         series['process'], series['pid'],
                         series['first_mb'], series['last_mb'],
                         series['max_mb'], series['slope_mb_per_hour'],
                         series['samples_in_slope']))
    stats = summary['stats_file']
    lines.append('stats file %d bytes, %s bytes per million results' % (
        stats['bytes'], stats['bytes_per_million_results']))
    lines.append('report-scenario --json: %.2f s, %.1f MB' % (
        summary['report']['seconds'], summary['report']['max_rss_mb']))
    for fault in summary['faults']:
        lines.append('fault %s at +%s s to +%s s: %s; %s' % (
            fault['name'], fault['began'], fault['ended'], fault['detail'],
            'among the events' if fault['in_events'] else
            'NOT among the events'))
    lines += ['PROBLEM: %s' % problem for problem in summary['problems']]
    return lines


def _interrupt(signum, frame):
    raise Interrupted()


def main(argv=None):
    parser = build_parser()
    args = check_args(parser, parser.parse_args(argv))
    soak = Soak(args)
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, _interrupt)
    try:
        auth_url, storage = soak.prepare()[:2]
        soak.say('workers through the relay: %s' % storage)
        soak.start_run(auth_url, storage)
        faults = soakfaults.Faults(
            soak.saio, port_of(auth_url), soak.relay, soak.workers, args,
            sleep=soak.stop_event.wait)
        soak.watch(faults)
        soak.stop()
        summary = soak.figures()
    except Interrupted:
        soak.stop()
        print('soak: interrupted; everything it started is stopped',
              file=sys.stderr)
        return 130
    except (SoakError, EnvironmentError) as exc:
        soak.stop()
        print('soak: ERROR: %s' % (exc,), file=sys.stderr)
        return 1
    finally:
        soak.stop()
    path = os.path.join(soak.out, 'summary.json')
    with open(path, 'w') as fp:
        json.dump(summary, fp, indent=2, sort_keys=True)
    for line in describe(summary):
        soak.say(line)
    soak.say('summary: %s' % path)
    return 0 if summary['ok'] else 1


if __name__ == '__main__':
    sys.exit(main())

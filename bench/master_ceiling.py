#!/usr/bin/env python
"""The master's marginal CPU per request, the ceiling of a whole run.

    python bench/master_ceiling.py [--runs 3] [--batches 1,8]
        [--small 10000] [--large 60000] [--concurrency 12[,100...]]
        [--compare-rev REV] [--answer-at-once] [--parts]

Two standalone `ssbench-worker` processes (-c 12 each, started by this
script, not `--workers`) serve `run-scenario --noop -u 24 -R` runs of
--small and --large operations; the master's own user + sys CPU comes
from wait4 on the master process (it has no children: the workers are
not its own), and its main thread's from time.thread_time() at its exit
(Python 3.7+).  The marginal cost per request is

    (CPU of the --large run - CPU of the --small run) / (large - small)

so start-up, connection and the end of the run cancel out.  Each batch
size is measured --runs times, small and large alternating, and the
median printed.  With --compare-rev REV the same is measured on that git
revision (checked out with `git worktree` in a temporary directory and
put first on PYTHONPATH) in the same invocation, the revisions taking
turns run by run, and the ratio printed:

    master b1 this tree: 11.2 us CPU/request (3 runs; ...; main thread 8.9)
    master b1 abc1234: 33.0 us CPU/request (3 runs; ...; main thread 30.1)
    master b1 -u 24: this tree / abc1234 = 0.34

The workers' marginal CPU (from wait4 when they are stopped after each
run) is printed beside, with its own ratio of two trees:

    workers b8 -u 24: this tree / abc1234 = 1.01

The main thread is what one core of the master carries; the rest is
ZeroMQ's I/O thread, which runs beside it.  A message carries up to
--concurrency jobs (the master's -u over the two workers), and what the
master pays per message (waking up, ZeroMQ, the loop's turn) is divided
among them: --concurrency 100 shows the cost per record alone.  Given
two or more (--concurrency 2,12,100), each figure is measured at each,
and a least-squares fit of cost = a record + a message / (jobs a message)
splits it into what a message costs (one of jobs out, one of results
back) and what a record costs:

    master b8 this tree: 67.0 us a message, 4.3 us a record; main
        thread 48.0 and 4.0 (fit over -u 4, 24, 200)

The workers are given min(--batch-size, -u), as the master's own
--batch-size is capped: a worker waiting for a batch it can never fill
sends only when its ~1 s partial flush comes.

Each line also gives the marginal requests per second (the 50,000 extra
requests over the extra wall time).  Two ssbench-worker processes answer
more slowly than the master sends, so that rate is theirs; with
--answer-at-once two bench processes take the workers' place (PEER
below: plain ZeroMQ, no gevent, a heartbeat a second, each no-op job
answered at once as a worker answers it), so that the master sets the
pace and the rate is what one master carries.

With --parts, the parts of the cost are then timed in this process (this
tree only) on the results of one more --large run at the last batch size:
checking the result messages (as the master does: on their bytes, then
decoding and checking them whole for comparison), generating the jobs,
the object ring taking in the results, packing the jobs, and gzipping the
stats file, each in microseconds of CPU per request.  What they leave of
the marginal figure is system calls (ZeroMQ, the stats file) and the run
loop's own bookkeeping.  Last, ZeroMQ alone: this process, doing nothing
but what the master's sockets do (a message of --concurrency jobs out to
each of two peers by its routing id, another for each answer), against
two peers that answer at once with a message of results; the floor under
any master loop at that many jobs a message.
"""
from __future__ import absolute_import, division, print_function

import argparse
import gzip
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from benchlib import Failed, cpu_seconds, free_ports, measure, median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
WORKERS = 2
CONCURRENCY = 12
ENTRY = 'import sys; from ssbench.cli.%s import main; sys.exit(main())'
# The master's entry also writes its main thread's CPU seconds, at exit,
# to the file that MAIN_CPU_ENV names (Python 3.7+: time.thread_time).
MAIN_CPU_ENV = 'SSBENCH_BENCH_MAIN_CPU'
MASTER_ENTRY = (
    'import atexit, os, sys, time\n'
    'from ssbench.cli.master import main\n'
    'def note(path=os.environ.get(%r)):\n'
    '    if path and hasattr(time, "thread_time"):\n'
    '        with open(path, "w") as out:\n'
    '            out.write(repr(time.thread_time()))\n'
    'atexit.register(note)\n'
    'sys.exit(main())' % MAIN_CPU_ENV)


class Tree(object):
    """One source tree to measure: its label and its PYTHONPATH."""

    def __init__(self, label, path):
        self.label = label
        self.path = path
        self.env = dict(os.environ, PYTHONPATH=path)
        help_text = subprocess.check_output(
            [sys.executable, '-c', ENTRY % 'master', 'run-scenario',
             '--help'], env=self.env, cwd=path)
        self.has_expect = b'--expect-workers' in help_text

    def command(self, role):
        return [sys.executable, '-c',
                MASTER_ENTRY if role == 'master' else ENTRY % role]


# A worker that answers at once (--answer-at-once): the measured tree's
# wire protocol, with no Swift, no gevent and no batching.
PEER = '''import sys, time, zmq
from ssbench.wire import protocol
work, results, worker_id = sys.argv[1], sys.argv[2], int(sys.argv[3])
context = zmq.Context()
# Wire protocol 2 and later: jobs come on a DEALER, heartbeats go on it.
routed = getattr(protocol, 'PROTOCOL_VERSION', 1) >= 2
pull = context.socket(zmq.DEALER if routed else zmq.PULL)
push = context.socket(zmq.PUSH)
pull.connect('tcp://127.0.0.1:%s' % work)
push.connect('tcp://127.0.0.1:%s' % results)
pull.setsockopt(zmq.RCVTIMEO, 200)
beats = pull if routed else push
beat = protocol.heartbeat(worker_id, [])
if hasattr(protocol, 'identity'):      # trees before issue 21 have none
    beat.update(protocol.identity(int(sys.argv[4])))
next_beat = 0
while True:
    try:
        data = pull.recv()
    except zmq.Again:
        data = None
    now = time.time()
    if now >= next_beat:
        beat['completed_at'] = now
        beats.send(protocol.pack([beat]))
        next_beat = now + 1
    answers = []
    for job in protocol.unpack(data) if data else ():
        if job.get('noop') or job.get('type') == protocol.PING:
            answers.append(protocol.result_ok(job, worker_id, 0.0, 0.0,
                                              None, 0, now))
        elif job.get('type') == protocol.SUICIDE:
            sys.exit(0)
    if answers:
        push.send(protocol.pack(answers))
'''


def start_workers(tree, batch, work_port, results_port, log_dir,
                  concurrency, at_once=False):
    """WORKERS standalone ssbench-worker processes of `tree`, or with
    `at_once` PEER processes."""
    workers = []
    for worker_id in range(1, WORKERS + 1):
        log = open(os.path.join(log_dir, 'worker-%d.log' % worker_id), 'ab')
        if at_once:
            argv = [sys.executable, '-c', PEER, str(work_port),
                    str(results_port), str(worker_id), str(concurrency)]
        else:
            argv = tree.command('worker') + [
                '--zmq-host', '127.0.0.1',
                '--zmq-work-port', str(work_port),
                '--zmq-results-port', str(results_port),
                '-c', str(concurrency), '--batch-size',
                str(min(batch, WORKERS * concurrency)), str(worker_id)]
        try:
            workers.append(subprocess.Popen(
                argv, env=tree.env, cwd=tree.path, stdout=log,
                stderr=subprocess.STDOUT))
        finally:
            log.close()
    return workers


def stop_workers(workers):
    """Stop `workers`; the user + system CPU seconds they used, all told
    (their own, from wait4: none of them has children)."""
    for worker in workers:
        if worker.poll() is None:
            worker.send_signal(signal.SIGTERM)
    deadline = time.time() + 10
    cpu = 0.0
    for worker in workers:
        while worker.returncode is None:
            pid, _, usage = os.wait4(worker.pid, os.WNOHANG)
            if pid:
                worker.returncode = 0
                cpu += usage.ru_utime + usage.ru_stime
            else:
                if time.time() > deadline:
                    worker.kill()
                time.sleep(0.05)
    return cpu


def master_cpu(tree, batch, ops, tmp, timeout, concurrency=CONCURRENCY,
               keep=False, at_once=False):
    """(CPU seconds of one master run with its own standalone workers,
    those of its main thread or None, its wall seconds, those of the
    workers from their start to their stop), `keep`: its
    stats file stays, as run.stat.gz in `tmp`; `at_once`: PEER processes
    in place of the workers."""
    work_port, results_port = free_ports(2)
    workers = start_workers(tree, batch, work_port, results_port, tmp,
                            concurrency, at_once)
    main_cpu = os.path.join(tmp, 'main-thread.cpu')
    try:
        stats = os.path.join(tmp, 'run.stat')
        argv = tree.command('master') + [
            '-q', 'run-scenario', '-f', SCENARIO, '-u',
            str(WORKERS * concurrency), '-o', str(ops), '--noop',
            '--batch-size', str(batch), '-R', '--zmq-bind-ip', '127.0.0.1',
            '--zmq-work-port', str(work_port),
            '--zmq-results-port', str(results_port), '-s', stats, '--force']
        if tree.has_expect:
            argv += ['--expect-workers', str(WORKERS)]
        env = dict(tree.env)
        env[MAIN_CPU_ENV] = main_cpu
        began = time.time()
        cpu, _ = measure(argv, cwd=tree.path, env=env, timeout=timeout)
        wall = time.time() - began
        main = None
        if os.path.exists(main_cpu):
            with open(main_cpu) as noted:
                main = float(noted.read())
            os.unlink(main_cpu)
    finally:
        workers_cpu = stop_workers(workers)
        for name in os.listdir(tmp):
            if name.startswith('run.stat') and not keep:
                os.unlink(os.path.join(tmp, name))
    return cpu, main, wall, workers_cpu


def parts(stats_path, per):
    """({part: us of CPU per request}, us of decoding and checking the
    results whole, for comparison) timed on the results in stats_path,
    in messages of `per` records."""
    sys.path.insert(0, ROOT)
    from ssbench.load import jobgen, scenario
    from ssbench.load.objectring import ObjectRing
    from ssbench.results.statswriter import GZIP_LEVEL, gzip_file
    from ssbench.wire import protocol
    from ssbench.wire.faultlog import Faults
    from ssbench.wire.messagecheck import check_from_worker
    from ssbench.wire.resultbytes import ResultShapes

    with gzip.open(stats_path, 'rb') as fp:
        plain = fp.read()
    reader = protocol.unpacker()
    reader.feed(plain)
    results = [r for batch_ in list(reader)[1:] if isinstance(batch_, list)
               for r in batch_ if 'completed_at' in r]
    count = len(results)
    clock = time.process_time if hasattr(time, 'process_time') else \
        time.clock
    out = {}

    def timed(name, work):
        began = clock()
        work()
        out[name] = (clock() - began) / count * 1e6

    # Messages as workers send them: each of one worker's results.
    by_worker = {}
    for result in results:
        by_worker.setdefault(result['worker_id'], []).append(result)
    messages = [protocol.pack(own[i:i + per])
                for own in by_worker.values()
                for i in range(0, len(own), per)]
    faults = Faults('bench')
    timed('decode', lambda: [
        protocol.decode(m, check_from_worker, faults) for m in messages])
    decode = out.pop('decode')
    shapes = ResultShapes()
    shapes.learn(results)
    scanned = []
    timed('check results on their bytes', lambda: scanned.extend(
        shapes.scan(m) for m in messages))
    if None in scanned:
        raise Failed('%d of %d messages not taken on their bytes' % (
            scanned.count(None), len(messages)))
    loaded = scenario.load_scenario(SCENARIO, {'operation_count': count})
    ring = ObjectRing()
    jobs = []
    timed('generate jobs', lambda: jobs.extend(jobgen.bench_jobs(
        loaded, random.Random(1), ring, noop=True)))
    timed('object ring takes results', lambda: [
        ring.on_results(results[i:i + per]) for i in range(0, count, per)])
    timed('pack jobs', lambda: [protocol.pack(jobs[i:i + per])
                                for i in range(0, count, per)])
    plain_path = stats_path + '.plain'
    with open(plain_path, 'wb') as fp:
        fp.write(plain)
    timed('gzip the stats file (level %d)' % GZIP_LEVEL,
          lambda: gzip_file(plain_path, plain_path + '.gz'))
    return out, decode, zmq_alone(protocol.pack(jobs[:per]), per,
                                  messages[0], count)


# An echo peer for zmq_alone(): answers every message with the bytes of
# one results message, until it is terminated.
ECHO = '''import sys, zmq
context = zmq.Context()
work, push = context.socket(zmq.DEALER), context.socket(zmq.PUSH)
work.connect('tcp://127.0.0.1:%s' % sys.argv[1])
push.connect('tcp://127.0.0.1:%s' % sys.argv[2])
with open(sys.argv[3], 'rb') as fp:
    answer = fp.read()
work.send(b'here')
while True:
    work.recv()
    push.send(answer)
'''


def zmq_alone(job_message, per, result_message, requests):
    """(process, main thread) us of CPU per request that ZeroMQ alone
    costs a master at `per` jobs a message (job_message holds them): this
    process keeps one message of jobs out per echo
    peer (WORKERS of them, each answering at once with result_message)
    and sends another for each answer, as the master's loop does, doing
    nothing else; main thread None before Python 3.7."""
    import zmq
    context = zmq.Context()
    # As the master's: jobs to each peer by its routing id (ROUTER),
    # results from all (PULL).
    push, pull = context.socket(zmq.ROUTER), context.socket(zmq.PULL)
    peers = []
    answer = tempfile.NamedTemporaryFile(prefix='ssbench-echo-')
    try:
        for sock in (push, pull):
            sock.setsockopt(zmq.LINGER, 0)
        ports = [sock.bind_to_random_port('tcp://127.0.0.1')
                 for sock in (push, pull)]
        answer.write(result_message)
        answer.flush()
        pull.setsockopt(zmq.RCVTIMEO, 10000)
        for _ in range(WORKERS):
            peers.append(subprocess.Popen(
                [sys.executable, '-c', ECHO] + [str(p) for p in ports] +
                [answer.name]))
        push.setsockopt(zmq.RCVTIMEO, 10000)
        try:
            routes = [push.recv_multipart()[0] for _ in range(WORKERS)]
        except zmq.Again:
            raise Failed('an echo peer did not connect in 10 s')
        turn = [0]

        def send():
            turn[0] += 1
            push.send(routes[turn[0] % WORKERS], zmq.SNDMORE)
            push.send(job_message)

        def round_trips(count):
            for _ in range(WORKERS):
                send()
            for left in range(count - WORKERS, -WORKERS, -1):
                try:
                    pull.recv()
                except zmq.Again:
                    raise Failed('an echo peer did not answer in 10 s')
                if left > 0:
                    send()

        round_trips(200)      # warm-up: both peers connected
        thread_time = getattr(time, 'thread_time', None)
        before = cpu_seconds()
        main_before = thread_time() if thread_time else None
        trips = max(1, requests // per)
        round_trips(trips)
        cpu = cpu_seconds() - before
        done = trips * per
        return (cpu / done * 1e6, (thread_time() - main_before) / done *
                1e6 if thread_time else None)
    finally:
        stop_workers(peers)
        answer.close()
        context.destroy(linger=0)


def split_cost(points):
    """(us a message, us a record) fitted by least squares to
    [(jobs a message, us a request)], cost = record + message / jobs;
    None with fewer than two distinct sizes."""
    xs = [1.0 / per for per, _ in points]
    if len(set(xs)) < 2:
        return None
    mean_x = sum(xs) / len(xs)
    mean_y = sum(cost for _, cost in points) / len(points)
    slope = sum((x - mean_x) * (cost - mean_y)
                for x, (_, cost) in zip(xs, points)) / sum(
                    (x - mean_x) ** 2 for x in xs)
    return slope, mean_y - slope * mean_x


def worktree(rev, tmp):
    path = os.path.join(tmp, 'tree-' + rev.replace('/', '_'))
    subprocess.check_call(['git', 'worktree', 'add', '--detach', '-q',
                           path, rev], cwd=ROOT)
    return path


def measure_batch(trees, batch, concurrency, args, tmp):
    """Measure each tree at one batch size and concurrency, print a line
    each (and the ratio of two); {label: (median us per request, that of
    the main thread or None)}."""
    marginal = dict((tree.label, []) for tree in trees)
    main = dict((tree.label, []) for tree in trees)
    rate = dict((tree.label, []) for tree in trees)
    workers = dict((tree.label, []) for tree in trees)
    ops = args.large - args.small
    for _ in range(args.runs):
        for tree in trees:
            small = master_cpu(tree, batch, args.small, tmp, args.timeout,
                               concurrency, at_once=args.answer_at_once)
            large = master_cpu(tree, batch, args.large, tmp, args.timeout,
                               concurrency, at_once=args.answer_at_once)
            marginal[tree.label].append((large[0] - small[0]) / ops * 1e6)
            if large[2] > small[2]:
                rate[tree.label].append(ops / (large[2] - small[2]))
            if large[1] is not None and small[1] is not None:
                main[tree.label].append((large[1] - small[1]) / ops * 1e6)
            if not args.answer_at_once:
                workers[tree.label].append((large[3] - small[3]) / ops * 1e6)
    for tree in trees:
        figures = marginal[tree.label]
        print('master b%d %s: %.1f us CPU/request (%d runs; %d/%d ops; '
              '-u %d%s; min %.1f, max %.1f)%s%s%s' % (
                  batch, tree.label, median(figures), args.runs,
                  args.small, args.large, WORKERS * concurrency,
                  '; answered at once' if args.answer_at_once else '',
                  min(figures), max(figures),
                  '; main thread %.1f' % median(main[tree.label])
                  if main[tree.label] else '',
                  '; %s req/s' % format(int(median(rate[tree.label])), ',')
                  if rate[tree.label] else '',
                  '; workers %.1f us CPU/request' % median(workers[tree.label])
                  if workers[tree.label] else ''))
    if len(trees) == 2:
        print('master b%d -u %d: %s / %s = %.2f' % (
            batch, WORKERS * concurrency, trees[0].label, trees[1].label,
            median(marginal[trees[0].label]) /
            median(marginal[trees[1].label])))
        if workers[trees[0].label]:
            print('workers b%d -u %d: %s / %s = %.2f' % (
                batch, WORKERS * concurrency, trees[0].label,
                trees[1].label, median(workers[trees[0].label]) /
                median(workers[trees[1].label])))
    sys.stdout.flush()
    return dict((tree.label, (median(marginal[tree.label]),
                              median(main[tree.label])
                              if main[tree.label] else None))
                for tree in trees)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=3)
    parser.add_argument('--batches', default='1,8',
                        help='comma-separated --batch-size values')
    parser.add_argument('--small', type=int, default=10000)
    parser.add_argument('--large', type=int, default=60000)
    parser.add_argument('--compare-rev', metavar='REV',
                        help='also measure this git revision')
    parser.add_argument('--timeout', type=float, default=300.0,
                        help='seconds one master run may take')
    parser.add_argument('--concurrency', default=str(CONCURRENCY),
                        help='each worker\'s -c (comma-separated: each '
                        'in turn); the master runs -u twice that, and a '
                        'message carries up to that many jobs')
    parser.add_argument('--answer-at-once', action='store_true',
                        help='bench processes that answer at once take '
                        'the workers\' place: the master sets the pace')
    parser.add_argument('--parts', action='store_true',
                        help='then time the parts of the cost in-process')
    args = parser.parse_args(argv)
    if args.large <= args.small:
        parser.error('--large must be more than --small')
    try:
        batches = [int(b) for b in args.batches.split(',')]
        concurrencies = [int(c) for c in args.concurrency.split(',')]
    except ValueError:
        parser.error('--batches and --concurrency take whole numbers, '
                     'comma-separated')
    if min(batches + concurrencies) < 1:
        parser.error('--batches and --concurrency must be at least 1')
    tmp = tempfile.mkdtemp(prefix='ssbench-ceiling-')
    trees = [Tree('this tree', ROOT)]
    added = None
    try:
        if args.compare_rev:
            added = worktree(args.compare_rev, tmp)
            trees.append(Tree(args.compare_rev, added))
        for batch in batches:
            fits = dict((tree.label, []) for tree in trees)
            for concurrency in concurrencies:
                figures = measure_batch(trees, batch, concurrency, args,
                                        tmp)
                for tree in trees:
                    fits[tree.label].append(
                        (concurrency, figures[tree.label]))
            for tree in trees:
                points = fits[tree.label]
                split = split_cost([(c, f[0]) for c, f in points])
                if split is None:
                    continue
                main = None
                if all(f[1] is not None for _, f in points):
                    main = split_cost([(c, f[1]) for c, f in points])
                print('master b%d %s: %.1f us a message, %.1f us a record%s '
                      '(fit over -u %s)' % (
                          batch, tree.label, split[0], split[1],
                          '; main thread %.1f and %.1f' % main
                          if main else '',
                          ', '.join(str(WORKERS * c)
                                    for c in concurrencies)))
            sys.stdout.flush()
        if args.parts:
            per = concurrencies[-1]
            master_cpu(trees[0], batches[-1], args.large, tmp,
                       args.timeout, per, keep=True,
                       at_once=args.answer_at_once)
            figures, decode, alone = parts(
                os.path.join(tmp, 'run.stat.gz'), per)
            for name in sorted(figures, key=figures.get, reverse=True):
                print('part b%d: %s: %.2f us CPU/request' % (
                    batches[-1], name, figures[name]))
            print('part b%d: all these: %.2f us CPU/request' % (
                batches[-1], sum(figures.values())))
            print('part b%d: (decoding and checking the results whole '
                  'instead: %.2f us CPU/request)' % (batches[-1], decode))
            print('part b%d: ZeroMQ alone, %d jobs a message (ROUTER/PULL '
                  'to %d processes that answer at once): %.2f us '
                  'CPU/request%s' % (
                      batches[-1], per, WORKERS, alone[0],
                      '; main thread %.2f' % alone[1]
                      if alone[1] is not None else ''))
    except (Failed, subprocess.CalledProcessError) as exc:
        print('master_ceiling: %s' % exc, file=sys.stderr)
        return 1
    finally:
        if added:
            subprocess.call(['git', 'worktree', 'remove', '--force', added],
                            cwd=ROOT)
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())

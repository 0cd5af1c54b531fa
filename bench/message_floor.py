#!/usr/bin/env python
"""The CPU one job message and one result message cost, with nothing else.

    python bench/message_floor.py [--requests 3000] [--users 24]
                                  [--latency-ms 160] [--runs 3]

At `--batch-size 1` every request costs one ZeroMQ message each way.  This
measures that part alone, at the rate the local Swift answers (a few
hundred requests a second), where nothing batches and every message wakes
threads that were asleep:

- a "master" (this process): plain pyzmq PUSH/PULL bound on 127.0.0.1,
  keeping --users messages out and sending one more per answer, blocking
  in recv() as ssbench's master does;
- a "worker" (a child process) that answers each message after a random
  0..--latency-ms delay, standing in for a Swift request, in two ways:
  `gevent`, as an ssbench worker waits (ssbench.wire.poller.HubPoller on the
  PULL socket, one greenlet per answer), and `plain`, a blocking loop with
  a heap of deadlines, for comparison.

Prints one line per worker kind, the median over --runs of user+sys CPU
per round trip (after a 200-message warm-up):

    floor gevent: master 80 us + worker 250 us = 330 us CPU/request
        (3 runs, 300 msg/s)

Compare with bench/client_cpu.py: a worker's real Swift request adds its
own HTTP work on top of the gevent figure.
"""
from __future__ import absolute_import, division, print_function

import argparse
import heapq
import os
import random
import subprocess
import sys
import time

import zmq

from benchlib import cpu_seconds, free_ports, median

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WARMUP = 200
STOP = b'stop'
ORPHAN_MS = 30000   # a worker with nothing to do for this long exits


def master(kind, requests, users, latency_ms):
    """One run: (master us, worker us, messages per second)."""
    work_port, results_port = free_ports(2)
    context = zmq.Context()
    push = context.socket(zmq.PUSH)
    pull = context.socket(zmq.PULL)
    push.setsockopt(zmq.LINGER, 0)
    pull.setsockopt(zmq.LINGER, 0)
    pull.setsockopt(zmq.RCVTIMEO, ORPHAN_MS)
    push.bind('tcp://127.0.0.1:%d' % work_port)
    pull.bind('tcp://127.0.0.1:%d' % results_port)
    child = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__), '--worker', kind,
         str(work_port), str(results_port), str(latency_ms)],
        stdout=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=ROOT))
    try:
        job = b'j' * 200          # about a job map's packed size
        for _ in range(users):
            push.send(job)
        for answered in range(1, requests + 1):
            pull.recv()
            if answered == WARMUP:
                cpu_start, wall_start = cpu_seconds(), time.time()
            push.send(job)
        cpu_used = cpu_seconds() - cpu_start
        elapsed = time.time() - wall_start
        push.send(STOP)
        out, _ = child.communicate()
        child = None
    finally:
        if child is not None:
            child.kill()
            child.wait()
        push.close()
        pull.close()
        context.term()
    measured = requests - WARMUP
    worker_cpu = float(out.split()[0])
    return (cpu_used / measured * 1e6, worker_cpu / measured * 1e6,
            measured / elapsed)


def worker(kind, work_port, results_port, latency_ms):
    """Answer every message after a random delay; print own CPU seconds
    from the WARMUP-th answer on."""
    context = zmq.Context()
    pull = context.socket(zmq.PULL)
    push = context.socket(zmq.PUSH)
    pull.connect('tcp://127.0.0.1:%d' % work_port)
    push.connect('tcp://127.0.0.1:%d' % results_port)
    result = b'r' * 600           # about a result map's packed size
    latency = latency_ms / 1000.0
    state = {'answered': 0, 'cpu_start': None}

    def answer(*_):
        push.send(result)
        state['answered'] += 1
        if state['answered'] == WARMUP:
            state['cpu_start'] = cpu_seconds()

    if kind == 'gevent':
        import gevent
        from ssbench.wire.poller import HubPoller
        poll = HubPoller(pull).poll
        while True:
            if not poll(ORPHAN_MS, zmq.POLLIN):
                break             # the master is gone
            message = pull.recv(zmq.NOBLOCK)
            if message == STOP:
                break
            gevent.spawn_later(random.random() * latency, answer)
    else:
        due = []
        while True:
            now = time.time()
            while due and due[0] <= now:
                heapq.heappop(due)
                answer()
            wait = int((due[0] - now) * 1000) + 1 if due else ORPHAN_MS
            if pull.poll(wait):
                message = pull.recv()
                if message == STOP:
                    break
                heapq.heappush(due, time.time() + random.random() * latency)
            elif not due:
                break             # the master is gone
    if state['cpu_start'] is not None:
        print(cpu_seconds() - state['cpu_start'])
    push.close(linger=0)
    pull.close(linger=0)
    context.term()


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == '--worker':
        worker(argv[1], int(argv[2]), int(argv[3]), float(argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=3000)
    parser.add_argument('--users', type=int, default=24)
    parser.add_argument('--latency-ms', type=float, default=160.0)
    parser.add_argument('--runs', type=int, default=3)
    args = parser.parse_args(argv)
    if args.requests <= WARMUP:
        parser.error('--requests must be over %d' % WARMUP)
    for kind in ('gevent', 'plain'):
        runs = [master(kind, args.requests, args.users, args.latency_ms)
                for _ in range(args.runs)]
        master_us = median([run[0] for run in runs])
        worker_us = median([run[1] for run in runs])
        print('floor %s: master %.0f us + worker %.0f us = %.0f us '
              'CPU/request (%d runs, %.0f msg/s)' % (
                  kind, master_us, worker_us, master_us + worker_us,
                  args.runs, median([run[2] for run in runs])))
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())

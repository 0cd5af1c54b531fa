#!/usr/bin/env python
"""The master's resident memory while a stranger floods its ports.

    python bench/hostile_peer.py [--phase waiting|run|both] [--seconds 3]
                                 [--ports work,results]
                                 [--frames maps,string,larger,former,beyond]

For each phase, port and kind of frame, starts a fresh
`python -m ssbench.cli.master -q run-scenario --noop` on free loopback
ports (waiting: no worker, --worker-wait 600; run: one local worker, a
run long enough to outlast the flood), lets it settle, then floods one
port from this process for --seconds with frames of one kind, each
connection hanging up after a second (linger 0), and prints the
master's resident memory before (VmRSS) and at its peak (VmHWM):

    waiting work    maps    1.8 MB frames: 38.1 MB before, peak 55.0 MB
    (+16.9 MB), 412 frames sent, master alive

The kinds of frames, per port (ssbench.wire.wirelimits): `maps`, the
largest message a worker sends (a heartbeat of 1.8 MB, results of 1 MiB)
made of empty maps, the costliest to decode; `string`, as large, one
string; `larger`, 1 KiB more than a worker sends, and `former`, 2 and 8
MiB, what the sockets took before (both dropped unread, and logged);
`beyond`, a byte more than the socket's bound (the peer cut off).
The master is stopped (SIGINT, then SIGKILL) after each case.
"""
from __future__ import absolute_import, division, print_function

import argparse
import multiprocessing
import os
import platform
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

import zmq

import benchlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

from ssbench.wire import wirelimits  # noqa: E402

SCENARIO = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
SETTLE = 2.0            # seconds a master is given before the flood
HANG_UP = 1.0           # seconds of each connection


def array(size, item):
    """A msgpack array of `size` bytes of the one-byte `item`."""
    count = size - 5
    return b'\xdd' + struct.pack('>I', count) + item * count


def frames(port, kind):
    largest = (wirelimits.LARGEST_HEARTBEAT if port == 'work'
               else wirelimits.RESULTS_SPLIT)
    if kind == 'maps':
        return b'\x91' + array(largest - 1, b'\x80')
    if kind == 'string':
        return b'\x91\x81\xa3pad\xdb' + struct.pack('>I', largest - 10) + \
            b'x' * (largest - 10)
    if kind == 'larger':
        return array(largest + 1024, b'\x01')
    if kind == 'former':
        return array((2 if port == 'work' else 8) * 1024 * 1024 - 100,
                     b'\x01')
    return array((wirelimits.MAX_CONTROL_MESSAGE if port == 'work'
                  else wirelimits.MAX_RESULTS_MESSAGE) + 1, b'\x01')


def vm(pid, key):
    """A figure of /proc/PID/status in MB, None once the process is gone."""
    try:
        with open('/proc/%d/status' % pid) as status:
            for line in status:
                if line.startswith(key + ':'):
                    return int(line.split()[1]) / 1024.0
    except (IOError, OSError):
        return None
    return None


def flood(port_number, port, frame, seconds):
    """Send `frame` to the port as fast as it takes it; frames sent."""
    context = zmq.Context()
    sent = 0
    end = time.time() + seconds
    try:
        while time.time() < end:
            sock = context.socket(zmq.DEALER if port == 'work'
                                  else zmq.PUSH)
            sock.setsockopt(zmq.LINGER, 0)
            sock.connect('tcp://127.0.0.1:%d' % port_number)
            hang_up = min(end, time.time() + HANG_UP)
            while time.time() < hang_up:
                try:
                    sock.send(frame, zmq.NOBLOCK)
                    sent += 1
                except zmq.Again:
                    time.sleep(0.001)
            sock.close()
    finally:
        context.term()
    return sent


def start_master(phase, work_port, results_port, directory, seconds):
    argv = [sys.executable, '-m', 'ssbench.cli.master', '-q',
            'run-scenario', '-f', SCENARIO, '--noop', '-s',
            os.path.join(directory, 'run.stat'), '--zmq-bind-ip',
            '127.0.0.1', '--zmq-work-port', str(work_port),
            '--zmq-results-port', str(results_port)]
    if phase == 'waiting':
        argv += ['--worker-wait', '600']
    else:
        argv += ['--workers', '1', '-u', '4', '-r',
                 str(int(seconds + SETTLE + 10))]
    err = open(os.path.join(directory, 'master.err'), 'wb')
    proc = subprocess.Popen(argv, cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=err)
    err.close()
    return proc


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        deadline = time.time() + 30
        while proc.poll() is None and time.time() < deadline:
            time.sleep(0.1)
    if proc.poll() is None:
        proc.kill()
    proc.communicate()


def case(phase, port, kind, seconds):
    directory = tempfile.mkdtemp(prefix='ssbench-hostile-')
    work_port, results_port = benchlib.free_ports(2)
    proc = start_master(phase, work_port, results_port, directory, seconds)
    try:
        time.sleep(SETTLE)
        before = vm(proc.pid, 'VmRSS')
        frame = frames(port, kind)
        box = {}
        thread = threading.Thread(target=lambda: box.update(sent=flood(
            work_port if port == 'work' else results_port, port, frame,
            seconds)))
        thread.start()
        thread.join()
        peak = vm(proc.pid, 'VmHWM')
        alive = proc.poll() is None
        status = '' if alive else ' (exit status %s)' % proc.returncode
        print('%-7s %-7s %-6s %.1f MB frames: %.1f MB before, peak %.1f MB '
              '(+%.1f MB), %d frames sent, master %s%s' % (
                  phase, port, kind, len(frame) / 1e6, before or 0,
                  peak or 0, (peak or 0) - (before or 0), box['sent'],
                  'alive' if alive else 'gone', status))
        sys.stdout.flush()
    finally:
        stop(proc)
        for name in os.listdir(directory):
            os.unlink(os.path.join(directory, name))
        os.rmdir(directory)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--phase', choices=('waiting', 'run', 'both'),
                        default='both')
    parser.add_argument('--seconds', type=float, default=3.0,
                        help='seconds of each flood (default 3)')
    parser.add_argument('--ports', default='work,results')
    parser.add_argument('--frames',
                        default='maps,string,larger,former,beyond')
    args = parser.parse_args()
    print('Python %s on %s, %d CPUs; libzmq %s' % (
        platform.python_version(), platform.platform(),
        multiprocessing.cpu_count(), zmq.zmq_version()))
    print('bounds: work %d bytes x %d queued, results %d x %d' % (
        wirelimits.MAX_CONTROL_MESSAGE, wirelimits.CONTROL_RCVHWM,
        wirelimits.MAX_RESULTS_MESSAGE, wirelimits.RESULTS_RCVHWM))
    phases = ('waiting', 'run') if args.phase == 'both' else (args.phase,)
    for phase in phases:
        for port in args.ports.split(','):
            for kind in args.frames.split(','):
                case(phase, port, kind, args.seconds)


if __name__ == '__main__':
    main()

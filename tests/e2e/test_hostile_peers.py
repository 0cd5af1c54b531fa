"""A stranger sending big frames to either port, while the master waits
for workers and mid-run, neither aborts the master nor bloats it, and the
run completes with its stats file and report (docs/reliability.rst, "The
wire in bytes"): real processes and sockets on this host, --noop runs."""
from __future__ import absolute_import, division, print_function

import struct
import threading
import time

import pytest
import zmq

from ssbench.wire import wirelimits
from tests.e2e import support
from tests.e2e.test_admission import (finish, listening, memory_kb, ports,
                                      start_master)
from tests.waiting import wait_for_text

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

# The master's peak resident memory, whatever the strangers send.
RSS_BOUND_KB = 150 * 1024
FLOOD_SECONDS = 3.0
CONNECTION_SECONDS = 1.0    # each connection then hangs up


def ints(size):
    """A msgpack array of `size` bytes of small integers: valid, and one
    record that is not a map for every byte."""
    count = size - 5
    return b'\xdd' + struct.pack('>I', count) + b'\x01' * count


def empty_maps(size):
    """A message of `size` bytes: one record, a list of empty maps."""
    count = size - 6
    return b'\x91\xdd' + struct.pack('>I', count) + b'\x80' * count


# Per port: frames the largest a worker sends, all maps (undecodable past
# the allowance); larger than a worker sends, and as large as the
# sockets took before (2 and 8 MiB less a little), within the socket's
# bound (dropped and logged); and beyond the bound (the peer cut off).
FRAMES = {
    'work': [empty_maps(wirelimits.LARGEST_HEARTBEAT),
             ints(wirelimits.LARGEST_HEARTBEAT + 1024),
             ints(2 * 1024 * 1024 - 100),
             ints(wirelimits.MAX_CONTROL_MESSAGE + 1)],
    'results': [empty_maps(wirelimits.RESULTS_SPLIT),
                ints(wirelimits.RESULTS_SPLIT + 1024),
                ints(8 * 1024 * 1024 - 100),
                ints(wirelimits.MAX_RESULTS_MESSAGE + 1)],
}
KINDS = ('undecodable message', 'message larger than a worker sends')


class Stranger(object):
    """Floods one port from a thread of this process for FLOOD_SECONDS,
    each connection of CONNECTION_SECONDS hanging up at once (linger 0)."""

    def __init__(self, port, kind):
        self.port = port
        self.kind = kind
        self.sent = 0
        self.thread = threading.Thread(target=self._run)
        self.thread.daemon = True
        self.thread.start()

    def _run(self):
        context = zmq.Context()
        frames = FRAMES[self.kind]
        end = time.time() + FLOOD_SECONDS
        try:
            while time.time() < end:
                sock = context.socket(zmq.DEALER if self.kind == 'work'
                                      else zmq.PUSH)
                sock.setsockopt(zmq.LINGER, 0)
                sock.connect('tcp://127.0.0.1:%d' % self.port)
                hang_up = min(end, time.time() + CONNECTION_SECONDS)
                while time.time() < hang_up:
                    try:
                        sock.send(frames[self.sent % len(frames)],
                                  zmq.NOBLOCK)
                        self.sent += 1
                    except zmq.Again:
                        time.sleep(0.001)
                sock.close()
        finally:
            context.term()

    def join(self):
        self.thread.join(FLOOD_SECONDS + 30)


def flood(pair):
    """Both ports flooded at once, until both strangers are done."""
    strangers = [Stranger(pair[0], 'work'), Stranger(pair[1], 'results')]
    for stranger in strangers:
        stranger.join()
    assert all(stranger.sent for stranger in strangers)


def check_run(ran, stats):
    """The run went on: its stats file, its report, and each kind of
    drop logged once (later ones summed up)."""
    assert ran.status == 0, ran
    assert 'Traceback' not in ran.err and 'Assertion' not in ran.err, ran
    assert support.read_results(stats + '.gz')
    assert 'Worker count:' in ran.out, ran
    for port in ('work', 'results'):
        for kind in KINDS:
            first = 'WARNING:Dropped input on the %s port: %s:' % (port, kind)
            assert ran.err.count(first) == 1, (first, ran.err)


def test_strangers_flooding_a_master_waiting_for_workers(tmpdir, workers):
    pair = ports()
    path, _ = support.write_scenario(tmpdir, operation_count=200)
    stats = str(tmpdir.join('run.stat'))
    master = start_master(tmpdir, pair, '-f', path, '-s', stats,
                          '--worker-wait', '240')
    try:
        support.wait_for(lambda: listening(pair[0]), 60, 'the master',
                         interval=0.1)
        flood(pair)
        assert master.poll() is None, support.read_text(master.err_path)
        peak = memory_kb(master.pid, 'VmHWM')
        workers(1, *pair)
        ran = finish(master)
    finally:
        support.stop_process(master)
    assert peak <= RSS_BOUND_KB, peak
    check_run(ran, stats)


def test_strangers_flooding_a_master_mid_run(tmpdir):
    pair = ports()
    path, _ = support.write_scenario(tmpdir)
    stats = str(tmpdir.join('run.stat'))
    master = start_master(tmpdir, pair, '-f', path, '-s', stats,
                          '--workers', '1', '-r', '%d' % (FLOOD_SECONDS + 6))
    try:
        wait_for_text(master.err_path, 'Starting benchmark run', 120,
                      master)
        flood(pair)
        assert master.poll() is None, support.read_text(master.err_path)
        peak = memory_kb(master.pid, 'VmHWM')
        ran = finish(master)
    finally:
        support.stop_process(master)
    assert peak <= RSS_BOUND_KB, peak
    check_run(ran, stats)

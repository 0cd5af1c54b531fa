"""A run whose workers are all local (`--workers N`, nothing else said
about the wire) listens on 127.0.0.1 only, on free ports it hands its
workers (docs/usage.rst, run-scenario), so two of them run side by side
on one host; both against the local Swift."""
from __future__ import absolute_import, division, print_function

import os
import re
import socket
import struct
import subprocess
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

BOUND = 120
# /proc/net/tcp's state of a listening socket.
LISTEN = '0A'


def start_master(tmpdir, name, *args):
    """`ssbench-master run-scenario` of a scenario of its own (a unique
    container_base) against the local Swift, in the background, its
    stderr in tmpdir/NAME.err; (Popen, scenario data, stats path)."""
    path, data = support.write_scenario(tmpdir, operation_count=60)
    stats = str(tmpdir.join(name + '.stat'))
    with open(str(tmpdir.join(name + '.err')), 'wb') as err:
        proc = subprocess.Popen(
            [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
             '-f', path, '-s', stats, '--workers', '2', '-R',
             '--progress', 'none'] + support.auth_args() + list(args),
            stdout=err, stderr=err, cwd=support.ROOT,
            preexec_fn=support.die_with_parent)
    return proc, data, stats


def listening(pid):
    """(address, port) of every TCP socket process `pid` listens on, from
    /proc/net/tcp and tcp6: the kernel's view, not the master's word."""
    inodes = set()
    fd_dir = '/proc/%d/fd' % pid
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        match = re.match(r'socket:\[(\d+)\]$', target)
        if match:
            inodes.add(match.group(1))
    found = []
    for table, family in (('tcp', socket.AF_INET), ('tcp6', socket.AF_INET6)):
        with open('/proc/net/' + table) as fp:
            for line in fp.readlines()[1:]:
                fields = line.split()
                if fields[3] != LISTEN or fields[9] not in inodes:
                    continue
                hex_address, hex_port = fields[1].split(':')
                # The address is in the host's byte order, word by word.
                raw = b''.join(struct.pack('=I', int(hex_address[i:i + 8], 16))
                               for i in range(0, len(hex_address), 8))
                found.append((socket.inet_ntop(family, raw),
                              int(hex_port, 16)))
    return sorted(found)


def spawned_ports(err_path):
    """The (work, results) ports the Spawning lines handed the workers."""
    text = support.read_text(err_path)
    return set(re.findall(r'--zmq-work-port (\d+) --zmq-results-port (\d+)',
                          text))


def test_a_local_only_run_listens_on_loopback_only(tmpdir):
    support.require_swift()
    proc, data, stats = start_master(tmpdir, 'run', '-r', '8')
    try:
        support.wait_for_a_result(stats, proc, BOUND)
        sockets = listening(proc.pid)
        support.wait_exit(proc, BOUND)
    finally:
        support.stop_process(proc)
        support.SwiftView().delete_everything(data['container_base'] + '_')
    err = support.read_text(str(tmpdir.join('run.err')))
    assert proc.returncode == 0, err
    assert len(sockets) == 2, sockets
    assert all(address == '127.0.0.1' for address, _ in sockets), sockets
    ports = sorted(port for _, port in sockets)
    assert 13579 not in ports and 13580 not in ports
    (work, results), = spawned_ports(str(tmpdir.join('run.err')))
    assert sorted([int(work), int(results)]) == ports


def test_two_local_only_runs_at_once_both_succeed(tmpdir):
    support.require_swift()
    runs = [start_master(tmpdir, name) for name in ('first', 'second')]
    try:
        for proc, _, _ in runs:
            support.wait_exit(proc, BOUND * 2)
    finally:
        for proc, data, _ in runs:
            support.stop_process(proc)
            support.SwiftView().delete_everything(
                data['container_base'] + '_')
    for name, (proc, _, stats) in zip(('first', 'second'), runs):
        err = support.read_text(str(tmpdir.join(name + '.err')))
        assert proc.returncode == 0, err
        assert os.path.exists(stats + '.gz')
    first, second = [spawned_ports(str(tmpdir.join(name + '.err')))
                     for name in ('first', 'second')]
    assert len(first) == len(second) == 1 and first != second

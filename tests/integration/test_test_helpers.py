"""The tests' own helpers: tests/waiting.py, tests/clocks.py and the
port reservations of tests/commands.py."""
from __future__ import absolute_import, division, print_function

import contextlib
import os
import subprocess
import sys
import threading


from tests import commands


HOLDER = ('import sys\n'
          'from tests import commands\n'
          'commands.RESERVATIONS = sys.argv[1]\n'
          'print(" ".join(str(commands.free_port())\n'
          '               for _ in range(int(sys.argv[2]))))\n'
          'sys.stdout.flush()\n'
          'sys.stdin.read()\n')


@contextlib.contextmanager
def ports_held_elsewhere(reservations, count):
    """The `count` ports another process of this interpreter was handed
    by free_port (reserving them in `reservations`); that process lives
    until the block ends, then is SIGKILLed."""
    holder = subprocess.Popen(
        [sys.executable, '-c', HOLDER, str(reservations), str(count)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=commands.ROOT)
    timer = threading.Timer(60, holder.kill)
    timer.start()
    try:
        ports = [int(port) for port in holder.stdout.readline().split()]
        assert len(ports) == count, 'the holder died first'
        yield ports
    finally:
        timer.cancel()
        holder.kill()
        holder.wait()
        holder.stdin.close()
        holder.stdout.close()


def test_free_port_never_hands_two_live_processes_the_same_port(tmp_path):
    # Ports taken from the kernel alone, 500 a process, had about 20 in
    # common between two processes on this host.
    with ports_held_elsewhere(tmp_path, 500) as first:
        with ports_held_elsewhere(tmp_path, 500) as second:
            assert len(set(first)) == len(set(second)) == 500
            assert set(first) & set(second) == set()


def test_a_port_is_reserved_while_its_holder_lives(tmp_path, monkeypatch):
    monkeypatch.setattr(commands, 'RESERVATIONS', str(tmp_path))
    with ports_held_elsewhere(tmp_path, 1) as (port,):
        assert commands.reserve(port) is None
    # Its holder was killed: the reservation is free, and then is this
    # process's own.
    held = commands.reserve(port)
    try:
        assert held is not None
        assert commands.reserve(port) is None
    finally:
        os.close(held)

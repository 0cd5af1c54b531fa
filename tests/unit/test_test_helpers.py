"""The tests' own helpers: tests/waiting.py, tests/clocks.py and the
port reservations of tests/commands.py."""
from __future__ import absolute_import, division, print_function

import contextlib
import os
import subprocess
import sys
import threading

import pytest

from tests import commands
from tests.clocks import FakeClock
from tests.waiting import wait_for, wait_for_text


def test_wait_for_returns_the_first_true_value_polling_in_between():
    answers = iter([0, None, 'ready'])
    clock = FakeClock()
    assert wait_for(lambda: next(answers), 5, 'ready',
                    sleep=clock.sleep) == 'ready'
    assert clock.slept == [0.01, 0.01]


def test_wait_for_names_what_never_happened():
    with pytest.raises(AssertionError) as info:
        wait_for(lambda: False, 0, 'the moon')
    assert 'never happened: the moon' in str(info.value)
    with pytest.raises(AssertionError) as info:
        wait_for(lambda: False, 0, lambda: 'told late')
    assert 'never happened: told late' in str(info.value)


class Exited(object):
    """A process that has ended with status 3."""

    def poll(self):
        return 3


def test_wait_for_text_returns_the_whole_file_once_it_holds_the_text(
        tmp_path):
    path = tmp_path / 'w.log'
    path.write_bytes(b'starting\nworker 0 connecting to master\n')
    assert wait_for_text(str(path), 'connecting to', 5) == (
        'starting\nworker 0 connecting to master\n')


def test_wait_for_text_fails_showing_the_file(tmp_path):
    path = tmp_path / 'w.log'
    path.write_bytes(b'starting\n')
    with pytest.raises(AssertionError) as info:
        wait_for_text(str(path), 'exiting', 0)
    assert "never happened: 'exiting' in %s:\nstarting\n" % path in str(
        info.value)
    with pytest.raises(AssertionError) as info:
        wait_for_text(str(path), 'exiting', 5, proc=Exited())
    assert str(info.value) == ("the process exited (status 3) before "
                               "'exiting' in %s:\nstarting\n" % path)
    with pytest.raises(AssertionError) as info:
        wait_for_text(str(tmp_path / 'absent.log'), 'exiting', 0)
    assert "'exiting' in %s:\n" % (tmp_path / 'absent.log') in str(
        info.value)


def test_fake_clock_moves_only_when_told():
    clock = FakeClock(50.0, wall_offset=900.0)
    assert (clock(), clock.monotonic(), clock.time()) == (50.0, 50.0, 950.0)
    clock.advance(2.5)
    clock.sleep(0.5)
    assert clock() == 53.0 and clock.slept == [0.5]
    clock.now = 70.0                   # a jump to the next event
    assert (clock(), clock.time()) == (70.0, 970.0)
    stepping = FakeClock(10.0, step=0.5)
    assert [stepping() for _ in range(3)] == [10.0, 10.5, 11.0]
    assert stepping.calls == 3


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

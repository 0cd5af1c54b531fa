"""The tests' own helpers: tests/waiting.py, tests/clocks.py and the
port reservations of tests/commands.py."""
from __future__ import absolute_import, division, print_function


import pytest

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

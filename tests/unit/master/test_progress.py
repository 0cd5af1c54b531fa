from __future__ import absolute_import, division, print_function

import pytest

from ssbench.master.progress import (LEGEND, PhaseLog, ProgressPrinter,
                                     mode, progress_chars)
from tests.clocks import FakeClock


class Stream(object):
    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass

    def getvalue(self):
        return ''.join(self.parts)


@pytest.mark.parametrize('result, char', [
    ({'exception': 'x'}, 'X'),
    ({'first_byte_latency': 0.5, 'last_byte_latency': 9}, '.'),
    ({'first_byte_latency': 1.0, 'last_byte_latency': 9}, 'o'),
    ({'first_byte_latency': 3.0}, 'O'),
    ({'first_byte_latency': 10.0}, '*'),
    ({'first_byte_latency': None, 'last_byte_latency': 0.2}, '_'),
    ({'first_byte_latency': None, 'last_byte_latency': 2.9}, '|'),
    ({'first_byte_latency': None, 'last_byte_latency': 9.9}, '^'),
    ({'first_byte_latency': None, 'last_byte_latency': 11}, '@'),
    ({'first_byte_latency': 0.0, 'last_byte_latency': 0.0}, '.'),
])
def test_progress_chars_of_one_result(result, char):
    assert progress_chars([result]) == char


def test_printer_wraps_lines_and_finishes():
    out = Stream()
    printer = ProgressPrinter(out, width=5)
    printer.add_results([{'first_byte_latency': 0.1}] * 7)
    printer.flush()
    printer.add_results([{'exception': 'boom'}])
    printer.finish()
    assert out.getvalue() == '.....\n..X\n'


def test_legend_matches_the_original_wording():
    out = Stream()
    ProgressPrinter(out).legend()
    assert out.getvalue() == LEGEND
    assert '  X    work job raised an exception' in LEGEND
    assert '  @ >= 10s last-byte-latency  (CREATE or UPDATE)' in LEGEND


def test_progress_chars_of_every_bucket():
    results = [
        {'exception': 'x', 'first_byte_latency': 0.1},
        {'first_byte_latency': 0.0, 'last_byte_latency': 0.0},
        {'first_byte_latency': 0.99}, {'first_byte_latency': 1.0},
        {'first_byte_latency': 2.5}, {'first_byte_latency': 3.0},
        {'first_byte_latency': 9.9}, {'first_byte_latency': 10.0},
        {'first_byte_latency': None, 'last_byte_latency': None},
        {'first_byte_latency': None, 'last_byte_latency': 0.5},
        {'first_byte_latency': None, 'last_byte_latency': 1.5},
        {'first_byte_latency': None, 'last_byte_latency': 3.5},
        {'first_byte_latency': None, 'last_byte_latency': 10.5},
        {'last_byte_latency': 0.1}, {}]
    assert progress_chars(results) == 'X..ooOO*__|^@__'
    assert progress_chars([]) == ''


def test_tick_writes_at_most_once_per_interval():
    clock = FakeClock(100.0)
    out = Stream()
    printer = ProgressPrinter(out, width=80, interval=0.5, clock=clock)
    printer.add_results([{'first_byte_latency': 0.1}] * 3)
    printer.tick()
    assert out.getvalue() == ''          # written at creation time
    clock.advance(0.5)
    printer.tick()
    assert out.getvalue() == '...'
    printer.add_results([{'exception': 'e'}])
    clock.advance(0.25)
    printer.tick()
    assert out.getvalue() == '...'
    clock.advance(0.25)
    printer.tick()
    assert out.getvalue() == '...X'
    printer.add_results([{'first_byte_latency': 0.1}])
    printer.finish()
    assert out.getvalue() == '...X.\n'


class Terminal(Stream):
    def __init__(self, tty):
        Stream.__init__(self)
        self.tty = tty

    def isatty(self):
        return self.tty


@pytest.mark.parametrize('requested, tty, verbose, quiet, shown', [
    (None, True, False, False, 'line'),
    (None, False, False, False, 'chars'),
    (None, True, True, False, 'none'),
    (None, True, False, True, 'none'),
    (None, False, False, True, 'none'),
    ('chars', True, False, False, 'chars'),
    ('line', False, False, False, 'line'),
    ('none', True, False, False, 'none'),
])
def test_a_terminal_gets_the_line_anything_else_the_characters(
        requested, tty, verbose, quiet, shown):
    assert mode(requested, Terminal(tty), verbose, quiet) == shown


def test_a_warning_starts_on_a_fresh_line_and_the_characters_go_on():
    import logging
    out = Stream()
    handler = logging.StreamHandler(out)
    handler.setFormatter(logging.Formatter('%(levelname)s:%(message)s'))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        printer = ProgressPrinter(out, width=10)
        printer.legend()
        printer.add_results([{'first_byte_latency': 0.1}] * 3)
        printer.flush()
        logging.getLogger('ssbench').warning('queue growing')
        printer.add_results([{'first_byte_latency': 0.1}] * 2)
        printer.finish()
        logging.getLogger('ssbench').warning('after the run')
    finally:
        root.removeHandler(handler)
    assert out.getvalue()[len(LEGEND):] == (
        '...\nWARNING:queue growing\n..\nWARNING:after the run\n')
    assert handler.filters == []


def test_phase_log_says_done_of_total_and_the_time_left(caplog):
    clock = FakeClock()
    phase = PhaseLog('Clean-up', 1200, interval=10, clock=clock)
    caplog.set_level('INFO')
    phase.on_idle()
    clock.advance(5)
    phase.on_results([{}] * 100)
    phase.on_idle()
    assert caplog.messages == []
    clock.advance(5)
    phase.on_results([{}] * 200)
    phase.on_idle()
    phase.on_idle()
    # 300 in 10 s: the 900 left take 30 s more.
    assert caplog.messages == [
        'Clean-up: 300 of 1200 done (25%), about 00:30 left']
    clock.advance(10)
    phase.on_idle()
    assert caplog.messages[-1] == \
        'Clean-up: 300 of 1200 done (25%), about 01:00 left'


def test_phase_log_before_any_result_gives_no_estimate():
    clock = FakeClock()
    phase = PhaseLog('Clean-up', 7, clock=clock)
    clock.advance(10)
    assert phase.line(clock()) == 'Clean-up: 0 of 7 done yet'

from __future__ import absolute_import, division, print_function

import pytest

from ssbench.progress import LEGEND, ProgressPrinter, progress_char


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
def test_progress_char(result, char):
    assert progress_char(result) == char


def test_printer_wraps_lines_and_finishes():
    out = Stream()
    printer = ProgressPrinter(out, width=5)
    for _ in range(7):
        printer.add({'first_byte_latency': 0.1})
    printer.flush()
    printer.add({'exception': 'boom'})
    printer.finish()
    assert out.getvalue() == '.....\n..X\n'


def test_legend_matches_the_original_wording():
    out = Stream()
    ProgressPrinter(out).legend()
    assert out.getvalue() == LEGEND
    assert '  X    work job raised an exception' in LEGEND
    assert '  @ >= 10s last-byte-latency  (CREATE or UPDATE)' in LEGEND

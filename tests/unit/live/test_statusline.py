from __future__ import absolute_import, division, print_function

import pytest

from ssbench.live.statusline import (
    StatusLine, clock_text, format_line, latency_text)


class Stream(object):
    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


def figures(**changes):
    out = {'phase': 'benchmark', 'elapsed': 75.2, 'left': 3725,
           'done': 12345, 'total': 60000, 'rate': 1234.4, 'p50': 0.0123,
           'p99': 0.25, 'errors': {}}
    out.update(changes)
    return out


def test_the_line_has_phase_times_counts_rate_percentiles_and_workers():
    line = format_line(figures(), 3, 1)
    assert line == ('benchmark 01:15 | ETA 1:02:05 | 12,345/60,000 req | '
                    '1,234 req/s | p50 12.3ms p99 250ms | errors 0 | '
                    'workers 3 (1 saturated)')


def test_a_suite_step_comes_first():
    line = format_line(figures(), 3, 0, step=(3, 8, 'u32.rate400'))
    assert line.startswith('step 3/8 u32.rate400 | benchmark 01:15 | ')
    assert format_line(figures(), 3, 0, step=(1, 1, '')).startswith(
        'step 1/1 | benchmark')


def test_errors_are_told_by_cause_most_first():
    line = format_line(figures(errors={'503': 4, 'timeout': 9, '404': 1,
                                       'reset': 1}, total=None, left=None),
                       2, 0)
    assert '| errors 15 (timeout:9 503:4 404:1 ...) |' in line
    assert '| 12,345 req |' in line
    assert 'ETA --:--' in line
    assert line.endswith('| workers 2')


@pytest.mark.parametrize('seconds, text', [
    (None, '-'), (0.0, '0ms'), (0.0005132, '0.513ms'), (0.001, '1ms'),
    (0.0123, '12.3ms'), (0.999, '999ms'), (2.5, '2.5s'), (12.0, '12s'),
    (512.7, '513s')])
def test_latency_text(seconds, text):
    assert latency_text(seconds) == text


def test_clock_text():
    assert clock_text(None) == '--:--'
    assert clock_text(59.6) == '01:00'
    assert clock_text(3600) == '1:00:00'


def test_redrawn_in_place_and_cut_to_width():
    stream = Stream()
    texts = iter('line %d ' % n + 'x' * 50 for n in range(100))
    status = StatusLine(stream, lambda: next(texts), width=lambda: 20)
    for step in range(4):
        status.draw()
    assert len(stream.parts) == 4
    assert all(part.startswith('\r\x1b[K') and len(part) == 4 + 19
               for part in stream.parts)
    status.finish()
    assert stream.parts[-1] == '\n'
    status.clear()
    assert stream.parts[-1] == '\n'    # nothing shown: nothing to clear


def test_a_step_s_values_are_escaped_and_cut():
    line = format_line(figures(), 3, 0,
                       step=(1, 2, u'p\x1b[2J' + u'x' * 100))
    assert line.startswith(u'step 1/2 p\\x1b[2J' + u'x' * 35 +
                           u'... (105 characters) | benchmark')

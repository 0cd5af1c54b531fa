from __future__ import absolute_import, division, print_function

import pytest

from ssbench.live.livestats import LiveStats
from ssbench.live.opsview import (StatusBlock, format_rows,
                                  operation_figures)


def _ok(kind, latency):
    return {'type': kind, 'size_str': 'tiny', 'status': 200,
            'first_byte_latency': latency, 'last_byte_latency': latency,
            'size': 10, 'retries': 0}


def _failed(kind, status):
    return {'type': kind, 'size_str': 'tiny', 'exception': 'x',
            'status': status, 'retries': 0}


def test_each_operation_has_its_rate_p99_and_errors():
    now = [100.0]
    stats = LiveStats(lambda: now[0])
    stats.start_phase('benchmark')
    # Six whole seconds: the rate is over the last five of them.
    for second in range(6):
        stats.add([_ok('get_object', 0.010)] * 4 +
                  [_ok('upload_object', 0.200)] * 2)
        if second == 5:
            stats.add([_failed('upload_object', 503)] * 3 +
                      [_failed('get_object', None)])
        now[0] += 1
        stats.turn(now[0])
    figures = operation_figures(stats)
    assert sorted(figures) == ['get_object', 'upload_object']
    rate, p99, errors = figures['get_object']
    assert rate == pytest.approx((5 * 4 + 1) / 5.0)
    assert p99 == pytest.approx(0.010, rel=0.03)
    assert errors == {'error': 1}
    rate, p99, errors = figures['upload_object']
    assert rate == pytest.approx((5 * 2 + 3) / 5.0)
    assert p99 == pytest.approx(0.200, rel=0.03)
    assert errors == {'503': 3}


def test_before_five_seconds_the_rate_is_over_the_phase_so_far():
    now = [100.0]
    stats = LiveStats(lambda: now[0])
    stats.start_phase('benchmark')
    stats.add([_ok('delete_object', 0.001)] * 3)
    now[0] += 2
    stats.turn(now[0])
    rate, _, errors = operation_figures(stats)['delete_object']
    assert rate == pytest.approx(1.5)
    assert errors == {}


def test_rows_in_report_order_with_errors_by_cause():
    rows = format_rows({
        'delete_object': (3.2, None, {}),
        'get_object': (1234.4, 0.0042, {'503': 2, 'timeout': 5, '404': 1,
                                        'reset': 1}),
        'upload_object': (25.0, 1.5, {}),
    })
    assert rows == [
        '  CREATE        25 req/s | p99 1.5s    | errors 0',
        '  READ       1,234 req/s | p99 4.2ms   | errors 9 '
        '(timeout:5 503:2 404:1 ...)',
        '  DELETE         3 req/s | p99 -       | errors 0',
    ]


class Stream(object):
    def __init__(self, tty):
        self.tty = tty
        self.parts = []

    def isatty(self):
        return self.tty

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


def test_a_terminal_has_the_block_redrawn_in_place():
    stream = Stream(True)
    text = ['status\n  READ 1', 'status line too long\n  READ 2\n  LIST 3']
    block = StatusBlock(stream, lambda: text[0], width=lambda: 12)
    block.draw()
    assert stream.parts == ['\r\x1b[Jstatus\n  READ 1']
    text.pop(0)
    block.draw()
    # Up one line (the first block had two), cleared, cut to 11 columns.
    assert stream.parts[-1] == '\x1b[1A\r\x1b[Jstatus line\n  READ 2\n  LIST 3'
    block.clear()
    assert stream.parts[-1] == '\x1b[2A\r\x1b[J'
    block.finish()
    assert stream.parts[-2:] == ['\r\x1b[Jstatus line\n  READ 2\n  LIST 3',
                                 '\n']


def test_a_file_gets_plain_blocks_now_and_then():
    stream = Stream(False)
    now = [0.0]
    block = StatusBlock(stream, lambda: 'status\n  READ %d' % now[0],
                        monotonic=lambda: now[0], plain_interval=10.0)
    for second in range(25):
        now[0] = float(second)
        block.draw()
    assert stream.parts == ['status\n  READ 0\n', 'status\n  READ 10\n',
                            'status\n  READ 20\n']
    block.clear()
    block.finish()
    assert stream.parts[-1] == 'status\n  READ 24\n'
    assert not [part for part in stream.parts if '\x1b' in part]

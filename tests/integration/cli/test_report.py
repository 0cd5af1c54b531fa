"""report-scenario --summary in a real process: the micro sign where the
stream's encoding can show it, ASCII "us" where it cannot (LANG=C on
Python 2.7 and with Python 3's locale coercion off), never an encoding
error."""
from __future__ import absolute_import, division, print_function

import sys

import pytest

from ssbench.compat import PY2
from ssbench.results.statswriter import StatsWriter
from tests import commands
from tests.unit.report.compute.test_classicstats import HEADER, res

pytestmark = pytest.mark.timeout(120)

MICRO_LINE = (u'10 requests, 1.1 req/s, p50 500 %ss, p99 500 %ss, '
              u'p99.9 500 %ss, 0 errors (0.00%%), - MB/s, client unknown\n')
# The locale's own encoding: no UTF-8 mode, no coercion of C to UTF-8.
PLAIN = {'PYTHONUTF8': '0', 'PYTHONCOERCECLOCALE': '0'}


def fast_run(tmpdir):
    """A stats file of ten 0.5 ms reads."""
    writer = StatsWriter(str(tmpdir.join('run.stat')),
                         dict(HEADER, operation_count=10))
    writer.write_batch([res(at=100.0 + i, first=0.0002, last=0.0005)
                        for i in range(10)])
    return writer.finalize()


def summary(path, locale):
    env = dict(PLAIN, LANG=locale, LC_ALL=locale)
    ran = commands.run([sys.executable, '-m', 'ssbench.cli.master',
                        'report-scenario', '-s', path, '--summary'], 60,
                       env=env, drop_env=('PYTHONIOENCODING',))
    assert ran.status == 0 and ran.err == '', ran
    return ran.out


def test_ascii_us_where_the_stream_cannot_show_the_micro_sign(tmpdir):
    assert summary(fast_run(tmpdir), 'C') == MICRO_LINE % (('u',) * 3)


def test_the_micro_sign_on_a_utf_8_stream(tmpdir):
    # Python 2.7 writes a pipe without an encoding: ASCII then too.
    sign = 'u' if PY2 else u'\u00b5'
    assert summary(fast_run(tmpdir), 'C.UTF-8') == MICRO_LINE % (
        (sign,) * 3)

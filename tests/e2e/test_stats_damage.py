"""The stats file of a master killed mid-run (SIGKILL to its process
group: no gzip, no end) reports what it holds with one warning that says
the run ended early, in every output; real master, workers and
report-scenario processes."""
from __future__ import absolute_import, division, print_function

import io
import os
import random
import re
import signal

import pytest

from ssbench.results import timewindow
from tests.e2e import support
from tests.e2e.test_interrupts import BOUND, SCENARIO, master_job

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

GOLDEN = os.path.join(support.ROOT, 'tests', 'data', 'golden',
                      'swift_u8_o2000_c10.stat.gz')

EARLY = re.compile(
    r'WARNING:(.*): (holds \d+ results? of the 100000000 operations its run '
    r'asked for|its results span \d+ s of the 3600 s its run asked for): '
    r'the run ended early \(a master stopped before the end\?\); the '
    r'report is of those results$')
CUT = re.compile(r'WARNING:(.*): truncated \(.*\); using the results '
                 r'before it$')


def killed_run(tmpdir, *args):
    """The plain stats file of a run SIGKILLed after its first results."""
    stats = str(tmpdir.join('run.stat'))
    job = master_job(tmpdir, '-f', SCENARIO, '--noop', '--workers', '1',
                     '-s', stats, *args)
    support.wait_for_a_result(stats, job.proc, BOUND)
    job.signal_group(signal.SIGKILL)
    job.finish()
    assert not os.path.exists(stats + '.gz')
    return stats


def warnings(err):
    return [line for line in err.splitlines() if 'WARNING' in line]


@pytest.mark.parametrize('limit', [['-o', '100000000'], ['-r', '3600']],
                         ids=['operation count', 'run time'])
def test_a_killed_master_s_file_says_the_run_ended_early(tmpdir, limit):
    stats = killed_run(tmpdir, *limit)
    for flags in ([], ['--csv'], ['--json', '-'],
                  ['--compare', GOLDEN]):
        ran = support.master('report-scenario', '-s', stats, *flags,
                             timeout=BOUND)
        assert ran.status == 0, ran.err
        assert 'Traceback' not in ran.err
        lines = warnings(ran.err)
        # Killed while writing, the file is also cut mid-object: that
        # line says so instead.
        assert len(lines) == 1, ran.err
        match = EARLY.match(lines[0]) or CUT.match(lines[0])
        assert match and match.group(1) == stats, ran.err


def test_results_spread_over_centuries_cost_bounded_memory(tmpdir):
    # Completion times anywhere from 1970 to 2286: the reports keep the
    # widest window a run can have (about 16 weeks and two days around
    # the median), and the -r histogram of it is written in blocks.
    from tests.e2e.test_fuzz import report_capped
    from tests.unit.cli.test_stats_errors import header, result, write_stats
    rng = random.Random(7)
    stats = write_stats(str(tmpdir.join('spread.stat')),
                        header(operation_count=5000),
                        [result(i, completed_at=rng.uniform(0, 1e10))
                         for i in range(5000)])
    rps = str(tmpdir.join('rps.csv'))
    status, out, err = report_capped(['-s', stats, '-r', rps, '--json',
                                      str(tmpdir.join('a.json'))],
                                     timeout=240)
    assert status == 0, err
    assert 'TOTAL' in out and 'Traceback' not in err
    lines = warnings(err)
    assert len(lines) == 1 and 'far outside the run' in lines[0], err
    assert 1 < line_count(rps) <= timewindow.MAX_WIDTH + 2


def line_count(path):
    """The lines of a file that ends in a newline: its b'\\n' counted in
    binary blocks, as many as a text-mode loop over its lines finds but
    without decoding each of its millions of rows (25 s of a loaded CI
    run on a 20-million-row histogram, 1 s this way)."""
    count = 0
    with io.open(path, 'rb') as fp:
        for block in iter(lambda: fp.read(1 << 20), b''):
            count += block.count(b'\n')
    return count

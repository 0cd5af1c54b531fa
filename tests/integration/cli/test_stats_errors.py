"""Bad stats files, data-driven (tests/data/bad/stats_cases.json): every
bad value is one "not a valid ssbench stats file" line naming the file,
exit status 1 and no output file, in every report output; results far
outside the run and a run that ended early are one warning each, and the
report of the rest.  --fail-if and --compare on their edge cases.

Each case runs `ssbench-master report-scenario`'s main() in this process
(the `cli` fixture); the memory bound is a real process's."""
from __future__ import absolute_import, division, print_function

import io
import os
import resource
import sys

import pytest

from tests import commands
from tests.clirun import MASTER

from tests.unit.cli.test_stats_errors import (CASES, RESULTS, START,
                                              case_file, header, result,
                                              write_stats)

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope='module')
def stats(tmpdir_factory):
    d = str(tmpdir_factory.mktemp('badstats'))
    files = dict((case['name'], case_file(d, case)) for case in CASES)
    clean = [result(i) for i in range(RESULTS)]
    files['clean'] = write_stats(os.path.join(d, 'clean.stat'), header(),
                                 clean)
    files['clean_copy'] = write_stats(os.path.join(d, 'clean_copy.stat'),
                                      header(), clean)
    files['strays'] = write_stats(
        os.path.join(d, 'strays.stat'), header(operation_count=RESULTS + 2),
        clean[:50] + [result(50, completed_at=5.0)] + clean[50:150] +
        [result(150, completed_at=START + 365 * 86400)] + clean[150:])
    files['ended_early'] = write_stats(
        os.path.join(d, 'ended_early.stat'),
        header(operation_count=RESULTS * 3), clean)
    files['one_second'] = write_stats(
        os.path.join(d, 'one_second.stat'), header(operation_count=RESULTS),
        [result(i, completed_at=START + i / 1000.0)
         for i in range(RESULTS)])
    files['dir'] = d
    return files


def limit_memory():
    limit = 700 * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def test_a_worker_clock_at_1970_costs_no_memory(stats, tmpdir):
    # One counter per second from 1970 took 2.7 GB; 700 MB of address
    # space is ample for the report of 200 results.
    rps = str(tmpdir.join('rps.csv'))
    ran = commands.run(
        [sys.executable, '-m', MASTER, 'report-scenario', '-s',
         stats['strays'], '-r', rps, '--json', str(tmpdir.join('a.json'))],
        60, preexec_fn=limit_memory)
    err = ran.err
    assert ran.status == 0, err
    assert 'far outside the run' in err and 'MemoryError' not in err
    with io.open(rps) as fp:
        assert len(fp.read().splitlines()) == RESULTS + 1

"""ssbench.procstats: the readers of /proc and the OS that health
sampling uses, on canned files and on this system."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from ssbench import procstats


def test_proc_readers(tmpdir):
    stat = tmpdir.join('stat')
    stat.write('cpu  100 5 20 800 50 1 2 3 0 0\ncpu0 1 2 3 4 5 6 7 8\n')
    # busy: all but idle (800) and iowait (50)
    assert procstats.host_cpu_ticks(str(stat)) == (131, 981)
    stat.write('intr 1 2 3\n')
    assert procstats.host_cpu_ticks(str(stat)) is None
    assert procstats.host_cpu_ticks(str(tmpdir.join('none'))) is None
    schedstat = tmpdir.join('schedstat')
    schedstat.write('78943 1500000000 2\n')
    assert procstats.run_delay(str(schedstat)) == pytest.approx(1.5)
    assert procstats.run_delay(str(tmpdir.join('none'))) is None


@pytest.mark.skipif(not os.path.exists('/proc/self/schedstat'),
                    reason='Linux figures')
def test_this_system_s_readers():
    busy, total = procstats.host_cpu_ticks()
    assert 0 <= busy <= total
    assert procstats.run_delay() >= 0 and procstats.load_average() >= 0
    assert procstats.cpu_count() >= 1

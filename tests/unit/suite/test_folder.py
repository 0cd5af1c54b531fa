"""ssbench.suite.folder: a step's file name, and its steadiness read
from its stats file (suite.json's own checks are in test_reportsuite and
test_resume, through the commands)."""
from __future__ import absolute_import, division, print_function

from ssbench.suite import folder as suitefolder
from ssbench.suite.steadystate import RECORD_KIND
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter


def test_a_steps_file_is_named_by_its_suite_number_and_label():
    assert suitefolder.stats_name('read curve', 3, 'u8.rate400') == \
        'read_curve.03.u8.rate400.stat.gz'
    assert suitefolder.stats_name('/..', 12, '') == 'suite.12.stat.gz'


def stats_file(tmpdir, header, records=()):
    path = str(tmpdir.join('x.stat'))
    writer = StatsWriter(path, dict({'_scenario_data': {}}, **header))
    for record in records:
        writer.write_batch([record])
    return open_stats(writer.finalize())


def test_steadiness_comes_from_the_record_the_stats_file_ends_with(tmpdir):
    record = {'kind': RECORD_KIND, 'steady': True, 'after': 12.0,
              'why': 'within 3%', 'windows': 6}
    steady = suitefolder.steady_of(stats_file(
        tmpdir, {'until_steady': True}, [record]))
    assert steady == {'steady': True, 'after': 12.0, 'why': 'within 3%'}


def test_a_step_not_run_until_steady_has_no_steadiness(tmpdir):
    record = {'kind': RECORD_KIND, 'steady': True, 'after': 1.0, 'why': ''}
    assert suitefolder.steady_of(stats_file(tmpdir, {}, [record])) is None
    assert suitefolder.steady_of(stats_file(
        tmpdir, {'until_steady': True})) is None

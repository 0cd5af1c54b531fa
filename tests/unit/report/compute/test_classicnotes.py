"""classicnotes.compute(summary=True): the summary line's figures from the
text report's own pass, the same as step_figures() reads from the
analysis document."""
from __future__ import absolute_import, division, print_function

import copy

import pytest

from ssbench.load.schedule import SCHEDULE_RECORD
from ssbench.report.compute import classicnotes
from ssbench.report.compute.analyze import analyze
from ssbench.report.compute.metricnames import DEFAULT_PERCENTILES
from ssbench.report.compute.suitefigures import step_figures
from ssbench.report.render.headline import headline
from ssbench.results import healthrecords
from tests import analysis_naive as naive
from tests.analysis_naive import FakeStatsFile, err, res


def both_ways(results, skip=0, header=naive.HEADER, batch=3):
    """(figures of the analysis, figures of the text report's pass,
    passes the latter took over its file)."""
    analysed = analyze(FakeStatsFile(copy.deepcopy(results), header, batch),
                       DEFAULT_PERCENTILES, skip)
    fake = FakeStatsFile(copy.deepcopy(results), header, batch)
    run_stats = classicnotes.compute(fake, 95, skip, summary=True)
    return step_figures(analysed), step_figures(run_stats.also), fake.passes


def assert_same(analysed, classic):
    assert classic['operations'].get('total') == \
        analysed['operations'].get('total')
    for key in ('offered', 'schedule', 'health', 'start_time'):
        assert classic[key] == analysed[key], key
    assert headline(classic) == headline(analysed)


@pytest.mark.parametrize('seed', range(3))
def test_one_pass_gives_the_analysis_figures(seed):
    analysed, classic, passes = both_ways(naive.random_run(seed))
    assert_same(analysed, classic)
    assert classic['operations']['total']['MB_per_second'] > 0
    assert passes == 1


@pytest.mark.parametrize('skip', [0.5, 30])
def test_a_warm_up_leaves_the_same_results_out(skip):
    analysed, classic, _ = both_ways(naive.random_run(21), skip)
    assert_same(analysed, classic)


@pytest.mark.parametrize('results', [
    [], [err(at=100.0), err(at=101.0)],
    [res(at=100.0, last=0.5), res(at=100.0, last=0.5, size=10)]],
    ids=['empty', 'only-failures', 'zero-span'])
def test_runs_without_every_figure(results):
    analysed, classic, _ = both_ways(results)
    assert_same(analysed, classic)


def saturated_run():
    """A --rate run's results, its schedule and a saturated worker's
    health records."""
    header = dict(naive.HEADER, rate=4.0, arrival=u'uniform')
    results = [dict(r, intended_start=r['completed_at'] -
                    r['last_byte_latency'] - 0.25)
               for r in (res(at=100.0 + n / 4.0, last=0.01, size=5)
                         for n in range(40))]
    schedule = {'kind': SCHEDULE_RECORD, 'intended': 60, 'sent': 40,
                'seconds': 10.0, 'rate': 4.0, 'intended_rate': 4.0,
                'achieved_rate': 4.0, 'unsent': 20}
    health = [{'kind': healthrecords.HEALTH_RECORD, 'worker_id': 1,
               'at': 100.0 + n, 'window': 1.0, 'cpu': 0.95,
               'loop_lag': 0.001, 'waiting': 0} for n in range(10)]
    return header, results + [schedule] + health


def test_a_rate_runs_schedule_and_the_clients_health():
    header, records = saturated_run()
    # Control records in batches of their own, as a stats file has them.
    analysed, classic, _ = both_ways(records, header=header, batch=4)
    assert_same(analysed, classic)
    assert classic['health'] == 'saturated'
    assert classic['schedule']['unsent'] == 20
    # Over the 15 s the schedule offered, not the 9.75 s of results.
    assert classic['operations']['total']['req_per_s'] == \
        pytest.approx(40 / 15.0)


def test_without_summary_nothing_more_is_computed():
    run_stats = classicnotes.compute(FakeStatsFile([res()]), 95)
    assert run_stats.also is None


@pytest.mark.parametrize('warn', [True, False])
def test_the_line_alone_logs_no_warning(caplog, warn):
    header, records = saturated_run()
    run_stats = classicnotes.compute(FakeStatsFile(records, header, 4),
                                     summary=True, warn=warn)
    assert run_stats.also['client']['saturated']
    assert ('client saturated' in caplog.text) == warn

from __future__ import absolute_import, division, print_function

import pytest

from ssbench.suite.capacitysearch import CapacitySearch


def search_against(capacity, client_limit=None, **kwargs):
    """Run a search against a cluster that meets the objectives up to
    `capacity` req/s, with a client that cannot send more than
    `client_limit`."""
    search = CapacitySearch(**kwargs)
    while True:
        rate = search.next_rate()
        if rate is None:
            return search
        if client_limit is not None and rate > client_limit:
            search.record(rate, False, achieved=client_limit, limited=True)
        else:
            search.record(rate, rate <= capacity, achieved=rate)


def test_it_rises_then_bisects_to_the_resolution():
    search = search_against(3000, start=100)
    rates = [outcome.rate for outcome in search.outcomes]
    assert rates[:7] == [100, 200, 400, 800, 1600, 3200, 2400]
    assert search.why() == 'resolved'
    assert search.highest_met <= 3000 < search.lowest_missed
    assert search.lowest_missed - search.highest_met <= \
        0.05 * search.highest_met
    assert len(rates) <= 16
    assert search.summary().startswith(
        'highest rate that met the objectives: %d req/s; lowest that '
        'missed them: %d req/s' % (search.highest_met,
                                   search.lowest_missed))


@pytest.mark.parametrize('capacity', [7, 150, 999, 5000, 77777])
def test_it_lands_within_its_resolution_of_any_capacity(capacity):
    search = search_against(capacity, start=100, max_steps=30)
    assert search.why() == 'resolved'
    assert capacity * 0.95 <= search.highest_met <= capacity


def test_a_first_step_that_misses_makes_it_fall():
    search = search_against(30, start=100)
    assert [o.rate for o in search.outcomes][:3] == [100, 50, 25]
    assert search.why() == 'resolved'


def test_a_client_limited_step_ends_it_with_the_client_verdict():
    search = search_against(10 ** 6, client_limit=900, start=100)
    assert search.why() == 'client'
    assert search.next_rate() is None
    assert search.summary() == ("the client's limit, not the cluster's: "
                                "900 req/s; add workers or hosts")


def test_the_steps_are_bounded():
    search = search_against(10 ** 9, start=1, max_steps=5)
    assert len(search.outcomes) == 5
    assert search.why() == 'steps'
    assert 'after 5 steps, before its resolution of 5%' in search.summary()


def test_a_ceiling_caps_the_rise():
    search = search_against(10 ** 9, start=100, ceiling=1000)
    assert [o.rate for o in search.outcomes] == [100, 200, 400, 800, 1000]
    assert search.why() == 'ceiling'
    assert search.summary().endswith('(the search stopped at its ceiling)')


@pytest.mark.parametrize('kwargs', [
    {'start': 0}, {'start': 1, 'resolution': 0}, {'start': 1, 'factor': 1}])
def test_a_search_without_a_way_forward_is_refused(kwargs):
    with pytest.raises(ValueError):
        CapacitySearch(**kwargs)


def test_a_step_that_sent_clearly_less_than_was_due_did_not_meet_it():
    # The CI step: objectives held, but 1100 of 1938 jobs/s went out.
    search = CapacitySearch(start=1938)
    outcome = search.record(1938, True, achieved=1100.0, offered=1938.0)
    assert outcome.short and not outcome.met
    assert search.highest_met is None and search.lowest_missed == 1938
    assert search.next_rate() == 969
    assert 'lowest that missed them: 1938 req/s (achieved 1100 of 1938 ' \
        'req/s offered)' in search.summary()


@pytest.mark.parametrize('achieved, met', [(1938, True), (1900, True),
                                           (1850, True), (1830, False)])
def test_a_step_carries_its_rate_within_the_shortfall(achieved, met):
    # 5% of 1938 is 96.9 jobs/s: 1841.1 is the least that carries it.
    search = CapacitySearch(start=1938)
    assert search.record(1938, True, achieved=achieved).met is met
    assert (search.highest_met == 1938) is met


def test_without_the_schedules_figures_the_objectives_decide():
    search = CapacitySearch(start=100)
    assert search.record(100, True).met
    assert search.highest_met == 100


def test_a_client_that_cannot_send_more_bounds_what_is_met():
    # Latencies stay fine, but no more than 1100 jobs/s go out: the
    # search must not report a rate above what was carried.
    search = CapacitySearch(start=250)
    while search.next_rate() is not None:
        rate = search.next_rate()
        search.record(rate, True, achieved=min(rate, 1100.0))
    assert search.why() == 'resolved'
    assert 1100 * 0.95 <= search.highest_met <= 1100 / 0.95


def test_a_busy_host_that_fell_short_ends_it_as_the_clients_limit():
    search = CapacitySearch(start=250)
    search.record(250, True, achieved=250.0)
    outcome = search.record(500, True, achieved=310.0, offered=500.0,
                            busy=True)
    assert search.client_step is outcome
    assert search.why() == 'client' and search.next_rate() is None
    assert search.summary() == (
        'the client host could not offer 500 req/s: it was busy (other '
        'processes kept its CPU) and achieved 310 of 500 req/s offered; '
        'give the master and workers cores or hosts of their own')


def test_a_busy_host_that_sent_its_jobs_goes_on_counting():
    search = CapacitySearch(start=250)
    assert search.record(250, True, achieved=249.0, busy=True).met
    assert search.highest_met == 250 and search.next_rate() == 500


def test_a_busy_host_short_and_missed_is_a_miss():
    # Past the cluster's capacity jobs wait for -u slots, in their
    # response times: the objectives miss, the cluster is the cause.
    search = CapacitySearch(start=120)
    search.record(120, False, achieved=85.5, offered=120.0, busy=True)
    assert search.why() is None
    assert search.lowest_missed == 120 and search.next_rate() == 60


def test_a_client_saturated_twice_at_a_rate_ends_it_short_or_not():
    search = CapacitySearch(start=250)
    search.record(250, True, achieved=250.0, limited=True)
    assert search.why() is None and search.next_rate() == 250
    search.record(250, True, achieved=250.0, limited=True)
    assert search.why() == 'client'
    assert search.summary().startswith(
        "the client's limit, not the cluster's: 250 req/s")


def test_a_client_saturated_once_is_noise_and_the_search_goes_on():
    """One window of a short step stalled on a busy host: the step is
    neither met nor missed; run again, it counts as any other."""
    search = CapacitySearch(start=250)
    search.record(250, True, achieved=250.0)
    first = search.record(500, False, achieved=500.0, limited=True)
    assert not first.met and search.lowest_missed is None
    assert search.next_rate() == 500
    search.record(500, True, achieved=500.0)
    assert search.highest_met == 500 and search.next_rate() == 1000
    search.record(1000, True, achieved=1000.0, limited=True)
    assert search.why() is None and search.next_rate() == 1000


def search_judging(capacity, needed, seconds=3, **kwargs):
    """A search whose steps of `seconds` have rate * seconds results, too
    few below `needed`; the cluster meets the objectives up to
    `capacity` (None: never)."""
    search = CapacitySearch(**kwargs)
    while True:
        rate = search.next_rate()
        if rate is None:
            return search
        few = rate * seconds < needed
        met = capacity is not None and rate <= capacity
        search.record(rate, met and not few, achieved=rate, too_few=few)


def test_a_step_of_too_few_results_is_never_met():
    # A p99 at 400 ms at every rate: every step misses it, but those of
    # 2-5 results, whose "p99" is their maximum, cannot say so (the
    # objective is too few, neither met nor missed).
    search = search_judging(None, needed=100, start=1.09)
    assert search.highest_met is None
    assert all(not o.met for o in search.outcomes)
    assert search.summary().startswith(
        'highest rate that met the objectives: none;')


def test_too_few_results_make_it_rise_then_judge():
    search = search_judging(3000, needed=100, start=1, max_steps=30)
    rates = [o.rate for o in search.outcomes]
    assert rates[:7] == [1, 2, 4, 8, 16, 32, 64]
    assert [o.too_few for o in search.outcomes[:6]] == [True] * 6
    assert search.why() == 'resolved'
    assert search.highest_met <= 3000 < search.lowest_missed
    assert 'steps at up to 32 req/s had too few results' in \
        search.summary()


def test_too_few_results_below_a_miss_end_it_unjudged():
    # It misses from 100 req/s on; below 100 req/s a 3 s step has too
    # few results for the objectives.
    search = search_judging(None, needed=300, start=400, max_steps=30)
    assert search.why() == 'too few'
    assert search.highest_met is None
    assert search.lowest_missed >= 100
    assert 'too few results' in search.summary()

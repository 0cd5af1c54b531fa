from __future__ import absolute_import, division, print_function

import pytest

from ssbench.master.capacitysearch import CapacitySearch


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

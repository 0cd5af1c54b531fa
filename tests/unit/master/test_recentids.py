"""The master's bounded memory of lost ids (ssbench.master.recentids)."""
from __future__ import absolute_import, division, print_function

from ssbench.master.recentids import RecentIds


def test_the_latest_ids_are_kept_and_the_older_ones_counted():
    ids = RecentIds(3)
    assert not ids and ids.describe() == ''
    for item in (5, 1, 2, 1, 9, 4):
        ids.add(item)
    # 1 was added again: it is among the latest; 5 and 2 were let go.
    assert list(ids) == [1, 9, 4] and len(ids) == 3
    assert 1 in ids and 5 not in ids and 2 not in ids
    assert ids.describe() == '1, 4, 9 and 2 more'
    ids.discard(9)
    ids.discard(7)
    assert list(ids) == [1, 4] and ids.forgotten == 2


def test_a_long_run_of_losses_costs_bounded_memory():
    ids = RecentIds(100)
    for item in range(100000):
        ids.add(item)
    assert len(ids) == 100 and ids.forgotten == 99900
    assert 99999 in ids and 99899 not in ids

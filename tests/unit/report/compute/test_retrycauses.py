"""RetryTable: retries by operation and cause, expired tokens apart."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.report.compute.retrycauses import (AUTH_CAUSE, RetryTable,
                                                cause_name, split)


def test_statuses_are_named_as_failure_causes_are():
    assert cause_name(u'503') == u'HTTP 503'
    assert cause_name(u'401') == AUTH_CAUSE == u'HTTP 401'
    assert cause_name(u'timeout') == u'timeout'


def test_split_names_each_cause_in_name_order():
    assert split({u'timeout': 1, u'503': 2, u'401': 1}, 4) == [
        (u'HTTP 401', 1), (u'HTTP 503', 2), (u'timeout', 1)]


def test_raw_decoded_causes_are_text():
    assert split({b'401': 2}, 2) == [(u'HTTP 401', 2)]


@pytest.mark.parametrize('causes', [
    None, [u'503'], {u'503': 1}, {u'503': 3}, {u'503': True, u'404': 1},
    {u'503': 0, u'404': 2}, {u'': 2}, {3: 2}, {u'503': 1.0, u'404': 1}])
def test_causes_missing_or_not_adding_up_are_not_recorded(causes):
    assert split(causes, 2) == [(u'not recorded', 2)]


def test_table_counts_per_operation_and_cause():
    table = RetryTable()
    table.add(u'read', {u'503': 1}, 1)
    table.add(u'create', {u'401': 2}, 2)
    table.add(u'read', {u'401': 1, u'timeout': 1}, 2)
    table.add(u'read', None, 3)
    assert table.by_cause(u'read') == {u'HTTP 503': 1, u'HTTP 401': 1,
                                       u'timeout': 1, u'not recorded': 3}
    assert table.by_cause(u'create') == {u'HTTP 401': 2}
    assert table.by_cause(u'delete') == {}
    assert table.by_cause() == {u'HTTP 503': 1, u'HTTP 401': 3,
                                u'timeout': 1, u'not recorded': 3}


def test_summary_most_frequent_first_ties_as_first_seen():
    table = RetryTable()
    table.add(u'read', {u'503': 1}, 1)
    table.add(u'create', {u'401': 2}, 2)
    table.add(u'read', {u'401': 1}, 1)
    table.add(u'read', {u'503': 1}, 1)
    assert table.summary() == {'total': 5, 'auth': 3, 'causes': [
        {'operation': u'read', 'cause': u'HTTP 503', 'count': 2,
         'auth': False},
        {'operation': u'create', 'cause': u'HTTP 401', 'count': 2,
         'auth': True},
        {'operation': u'read', 'cause': u'HTTP 401', 'count': 1,
         'auth': True}]}


def test_an_empty_table():
    assert RetryTable().summary() == {'total': 0, 'auth': 0, 'causes': []}

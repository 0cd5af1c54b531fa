from __future__ import absolute_import, division, print_function

import pytest

from ssbench.report.compute import metricnames as names
from tests.unit.report.test_compare import latency, operation


def test_names_parse_to_operation_kind_and_metric():
    parse = names.parse_metric
    assert parse('p99') == ('total', 'last_byte', 'p99')
    assert parse('READ.First_Byte.P99_9') == ('read', 'first_byte', 'p99_9')
    assert parse('delete.max') == ('delete', 'last_byte', 'max')
    assert parse('rps') == ('total', None, 'rps')
    assert parse('create.errors') == ('create', None, 'errors')
    assert parse('head.p99') == ('head', 'last_byte', 'p99')
    assert parse('LIST.first_byte.max') == ('list', 'first_byte', 'max')
    assert parse('list.rps') == ('list', None, 'rps')
    assert parse('endpoint[1].p99') == ('endpoint[1]', 'last_byte', 'p99')
    assert parse('Endpoint[01].first_byte.max') == (
        'endpoint[1]', 'first_byte', 'max')
    assert parse('endpoint[0].errors') == ('endpoint[0]', None, 'errors')
    assert parse('p99.9').percentile() == 99.9
    assert parse('p50').percentile() == 50
    assert parse('avg').percentile() is None


@pytest.mark.parametrize('text', ['p0', 'p100.1', 'x.p99', 'errors.p99',
                                  'last_byte.errors', 'p', 'rps2',
                                  'endpoint.p99', 'endpoint[].p99',
                                  'endpoint[a].p99', 'endpoint[1]p99'])
def test_names_that_are_no_figure_are_refused(text):
    with pytest.raises(ValueError):
        names.parse_metric(text)


def test_percentiles_are_listed_once():
    parsed = [names.parse_metric(t) for t in ('p99', 'read.p99', 'p99.9',
                                              'max', 'first_byte.p50')]
    assert names.percentiles_of(parsed) == [99, 99.9, 50]


def test_values_are_read_from_an_operation():
    op = operation('total', count=75, errors=25, rps=12.5,
                   first=latency(0.5))
    value = names.value_of
    assert value(op, names.parse_metric('rps')) == 12.5
    assert value(op, names.parse_metric('errors')) == 25.0
    assert value(op, names.parse_metric('p99_9')) == 0.8
    assert value(op, names.parse_metric('first_byte.max')) == 0.5
    assert value(op, names.parse_metric('p42')) is None
    assert names.error_rate({'count': 0, 'errors': 0}) is None


def test_endpoints_are_operations_of_the_document():
    endpoint = dict(operation('endpoint[0]', rps=7.0), index=0,
                    url='http://a/v1/AUTH_t')
    doc = {'operations': [operation('total')],
           'endpoints': {'unattributed': 0, 'endpoints': [endpoint]}}
    assert sorted(names.operations_of(doc)) == ['endpoint[0]', 'total']
    assert names.value_of(names.operations_of(doc)['endpoint[0]'],
                          names.parse_metric('endpoint[0].rps')) == 7.0
    assert names.endpoints_of({'operations': []}) == []

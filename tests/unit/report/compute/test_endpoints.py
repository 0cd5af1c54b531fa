"""ssbench.report.compute.endpoints: per-endpoint figures, against the
naive computation of tests/analysis_naive."""
from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.report.compute.analyze import analyze
from ssbench.report.compute.endpoints import urls_of
from ssbench.measure.rank import percentile_name
from tests import analysis_naive as naive
from tests import paths
from tests.analysis_naive import HEADER, FakeStatsFile, err, res

PCTILES = [0, 50, 99, 100]
URLS = [u'http://127.0.0.1:8080/v1/AUTH_test',
        u'http://127.0.0.1:8090/v1/AUTH_test', u'http://other/v1/AUTH_x']
TWO = dict(HEADER, endpoints=URLS)


def tagged_run(seed):
    """A random run whose results name an endpoint, or none, or one past
    the header's list; and how many have no usable one."""
    rng = random.Random(seed)
    results = naive.random_run(seed)
    unattributed = 0
    for result in results:
        endpoint = rng.choice([0, 1, 2, 2, None, 3])
        if endpoint is not None:
            result['endpoint'] = endpoint
        if endpoint not in (0, 1, 2):
            unattributed += 1
    return results, unattributed


@pytest.mark.parametrize('seed', range(3))
@pytest.mark.parametrize('budget', [5, 1 << 18])
def test_each_endpoint_equals_the_naive_total_of_its_results(
        seed, budget, monkeypatch):
    # A tiny budget spills the buffers to many sorted runs.
    monkeypatch.setattr('ssbench.report.compute.endpoints.BUFFER_BUDGET',
                        budget)
    results, unattributed = tagged_run(seed)
    doc = analyze(FakeStatsFile(results, header=TWO), PCTILES)
    section = doc['endpoints']
    assert section['unattributed'] == unattributed
    assert [e['url'] for e in section['endpoints']] == URLS
    for index, entry in enumerate(section['endpoints']):
        assert entry['index'] == index
        assert entry['operation'] == 'endpoint[%d]' % index
        mine = [r for r in results if r.get('endpoint') == index]
        want = naive.operation(mine, 'total')
        for name in ('count', 'errors', 'retries', 'start', 'stop',
                     'throughput'):
            assert entry[name] == want[name], name
        assert entry['req_per_s'] == pytest.approx(want['req_per_s'])
        ok = [r for r in mine if 'exception' not in r]
        for kind in ('first_byte', 'last_byte'):
            [got] = entry['latency'][kind]
            exp = naive.latency(ok, kind + '_latency', PCTILES)
            for name in ('count', 'min', 'max', 'worst_trans_id',
                         'histogram'):
                assert got[name] == exp[name], (kind, name)
            for pctile in PCTILES:
                assert got[percentile_name(pctile, '_')] == exp[pctile]
        [every] = entry['latency']['all_requests']
        exp = naive.all_requests(mine, PCTILES)
        for name in ('count', 'failures', 'failures_without_time', 'max',
                     'worst_trans_id'):
            assert every[name] == exp[name], name
        for pctile in PCTILES:
            assert every[percentile_name(pctile, '_')] == exp[pctile]


def test_a_slow_endpoint_stands_out_and_the_rest_is_unchanged():
    results = []
    for i in range(200):
        slow = i % 2
        results.append(res(at=100.0 + i / 20.0, last=0.5 if slow else 0.01,
                           txid='tx%d' % i, endpoint=slow))
    results.append(err(at=105.0, endpoint=1, status=503,
                       time_to_failure=2.0))
    plain = [dict((k, v) for k, v in r.items() if k != 'endpoint')
             for r in results]
    doc = analyze(FakeStatsFile(results, header=TWO), PCTILES)
    fast, slow, idle = doc['endpoints']['endpoints']
    p99 = percentile_name(99, '_')
    assert fast['latency']['last_byte'][0][p99] == 0.01
    assert slow['latency']['last_byte'][0][p99] == 0.5
    assert slow['latency']['all_requests'][0]['max'] == 2.0
    assert (fast['errors'], slow['errors']) == (0, 1)
    assert idle['count'] == 0 and idle['req_per_s'] is None
    assert idle['latency']['last_byte'][0]['count'] == 0
    # Everything else is the document of the same results without them.
    base = analyze(FakeStatsFile(plain, header=TWO), PCTILES)
    del doc['endpoints'], base['endpoints']
    assert doc == base


def test_one_url_or_none_makes_no_section():
    results = [res(endpoint=0), res(at=101.0)]
    for header in (HEADER, dict(HEADER, endpoints=URLS[:1]),
                   dict(HEADER, endpoints=u'http://x')):
        doc = analyze(FakeStatsFile(results, header=header), PCTILES)
        assert 'endpoints' not in doc
    assert 'endpoints' not in analyze(paths.GOLDEN +
                                      '/swift_u8_o2000_c10.stat.gz')


def test_urls_of_takes_text_and_bytes_and_refuses_the_rest():
    assert urls_of({'endpoints': [b'http://a', u'http://b']}) == [
        u'http://a', u'http://b']
    assert urls_of({'endpoints': [u'http://a', 3]}) is None
    assert urls_of({}) is None

from __future__ import absolute_import, division, print_function

import pytest

from ssbench.report import slo
from ssbench.report.compute.metricnames import MetricName
from tests.unit.report.test_compare import document, latency, operation
from tests.unit.report.test_gate import native


def doc(*operations):
    return document(list(operations) or [operation('total')])


def test_objectives_parse_with_their_units():
    parsed = slo.parse_slo(
        'p99<200ms, read.p99.9<1s,create.first_byte.max < 500us,'
        'errors<0.1%,rps>500,delete.rps>2.5 req/s,update.avg<.5S')
    assert [(o.name, o.comparison, o.limit) for o in parsed] == [
        (MetricName('total', 'last_byte', 'p99'), '<', 0.2),
        (MetricName('read', 'last_byte', 'p99_9'), '<', 1.0),
        (MetricName('create', 'first_byte', 'max'), '<',
         pytest.approx(500e-6)),
        (MetricName('total', None, 'errors'), '<', 0.1),
        (MetricName('total', None, 'rps'), '>', 500.0),
        (MetricName('delete', None, 'rps'), '>', 2.5),
        (MetricName('update', 'last_byte', 'avg'), '<', 0.5)]
    assert slo.percentiles_of(parsed) == [99, 99.9]


@pytest.mark.parametrize('text, why', [
    ('', 'at least one objective'),
    ('p99<200ms,', 'empty objective'),
    ('p99=200ms', 'exactly one comparison'),
    ('p99<<200ms', 'exactly one comparison'),
    ('p99<200', 'a time needs its unit, one of us, ms, s: 200ms'),
    ('p99<200 min', 'a time needs its unit'),
    ('p99<-200ms', 'the limit must be a number'),
    ('errors<0.1', 'an error limit is a percentage: 0.1%'),
    ('rps>500ms', 'a rate limit is requests per second'),
    ('p101<1s', 'percentile 101 is not above 0'),
    ('latency<1s', "unknown metric 'latency'"),
    ('first_byte.rps>1', 'first_byte. applies only to latency'),
    # As the command line gives it: UTF-8 bytes on Python 2.
    (native(u'p\uff19\uff19<1s'), 'unknown metric'),
])
def test_a_malformed_objective_is_one_line_naming_it(text, why):
    with pytest.raises(slo.SloError) as info:
        slo.parse_slo(text)
    message = '%s' % (info.value,)
    assert why in message
    assert '\n' not in message
    assert info.value.exit_status == 2


def test_a_long_objective_is_quoted_cut():
    with pytest.raises(slo.SloError) as info:
        slo.parse_slo('p99<' + '9' * 200)
    assert len('%s' % (info.value,)) < 200


def test_met_objectives_give_no_line():
    # operation(): last-byte p99 0.4 s, max 1 s; 100 req/s, no errors.
    objectives = slo.parse_slo('p99<400ms,max<1s,rps>100,errors<0.1%')
    assert slo.missed(doc(), objectives) == []


def test_each_missed_objective_is_named_with_its_figure():
    objectives = slo.parse_slo('p99<200ms,rps>150,errors<1%,max<2s')
    lines = slo.missed(doc(operation('total', count=90, errors=10)),
                       objectives)
    assert lines == [
        'p99<200ms: total last-byte p99 is 400.0 ms, the objective '
        '< 200.0 ms',
        'rps>150: total rps is 100.0 req/s, the objective > 150.0 req/s',
        'errors<1%: total errors is 10%, the objective < 1%']


def test_an_objective_without_evidence_fails():
    objectives = slo.parse_slo('read.p99<1s,p99.99<1s')
    lines = slo.missed(doc(operation('total', last=latency(count=10000))),
                       objectives)
    assert lines[0] == 'read.p99<1s: read has no results'
    assert lines[1].startswith('p99.99<1s: total last-byte p99.99 is '
                               'missing')


def test_latencies_read_per_operation_and_kind():
    read = operation('read', first=latency(0.001))
    objectives = slo.parse_slo('read.first_byte.p99<1ms')
    assert slo.verdict(doc(operation('total'), read), objectives[0]) == (
        slo.MET, pytest.approx(0.0004), None)


def test_an_objective_can_name_an_endpoint():
    slow = dict(operation('endpoint[1]', last=latency(2.0)), index=1,
                url='http://p1/v1/AUTH_t')
    fast = dict(operation('endpoint[0]'), index=0, url='http://p0/v1/AUTH_t')
    run = doc()
    run['endpoints'] = {'unattributed': 0, 'endpoints': [fast, slow]}
    objectives = slo.parse_slo('endpoint[0].p99<500ms,endpoint[1].p99<500ms')
    lines = slo.missed(run, objectives)
    assert len(lines) == 1 and lines[0].startswith('endpoint[1].p99<500ms')


@pytest.mark.parametrize('count, verdict', [
    (2, slo.TOO_FEW), (5, slo.TOO_FEW), (99, slo.TOO_FEW),
    (100, slo.MISSED), (5000, slo.MISSED)])
def test_a_percentile_is_judged_on_enough_results(count, verdict):
    # The p99 of fewer than 100 results is their maximum.
    run = doc(operation('total', last=latency(count=count)))
    objective = slo.parse_slo('p99<200ms')[0]
    assert slo.verdict(run, objective)[0] == verdict
    lines = slo.too_few(run, [objective])
    assert (lines == []) == (verdict != slo.TOO_FEW)
    if lines:
        assert lines == [
            'p99<200ms: too few results: total has %d last-byte latencies, '
            'p99 needs at least 100 (neither met nor missed; a longer run '
            'has more)' % (count,)]
        assert slo.missed(run, [objective]) == []


def test_max_avg_rps_and_errors_need_no_more_results():
    run = doc(operation('total', count=2, last=latency(count=2)))
    objectives = slo.parse_slo('max<2s,avg<1s,rps>1,errors<1%,p50<1s')
    assert [slo.verdict(run, o)[0] for o in objectives] == [slo.MET] * 5


@pytest.mark.parametrize('text', ['p99<0ms', 'p99<0us', 'max<0.5us',
                                  'read.p50<0.0000001s'])
def test_a_time_limit_below_a_microsecond_is_refused(text):
    # 'p99<0ms' read back as "< 0 us".
    with pytest.raises(slo.SloError) as info:
        slo.parse_slo(text)
    assert 'a time limit must be at least 1us' in '%s' % (info.value,)
    assert info.value.exit_status == 2


def test_the_smallest_time_limit_reads_back_as_given():
    objective = slo.parse_slo('p99<1us')[0]
    assert slo.format_figure(objective.limit, objective.name) == '1 us'


def test_an_endpoint_the_run_has_not_is_a_usage_error():
    objectives = slo.parse_slo('p99<1s,endpoint[99].p99<1s')
    with pytest.raises(slo.SloError) as info:
        slo.check_document(doc(), objectives)
    message = '%s' % (info.value,)
    assert message == ("bad --slo objective 'endpoint[99].p99<1s': the run "
                       "has one storage URL: endpoint[N] names one of "
                       "several (-S)")
    assert info.value.exit_status == 2
    with pytest.raises(slo.SloError) as info:
        slo.check_flags(objectives, ['http://a/v1', 'http://b/v1'])
    assert 'endpoint[0] to endpoint[1] only' in '%s' % (info.value,)
    slo.check_flags(slo.parse_slo('endpoint[1].p99<1s'),
                    ['http://a/v1', 'http://b/v1'])
    slo.check_flags(objectives, [])
    slo.check_flags(None, ['http://a/v1'])

"""The --fail-if gate: rule parsing and checks on crafted comparisons."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.report import gate
from ssbench.report.compute.metricnames import SHOWN
from ssbench.errors import SsbenchError
from tests.unit.report.test_compare import latency, operation, pair


def native(text):
    """A str of text, as sys.argv holds it."""
    return text.encode('utf-8') if str is bytes else text


VALID_RULES = [
    ('p99>+10%', ('total', 'last_byte', 'p99', '>', 10.0)),
    ('rps<-5%', ('total', None, 'rps', '<', -5.0)),
    ('read.first_byte.p99.9>+20%', ('read', 'first_byte', 'p99_9', '>', 20.0)),
    ('create.p99_9 > +2.5%', ('create', 'last_byte', 'p99_9', '>', 2.5)),
    (' UPDATE.Last_Byte.MAX > +1% ', ('update', 'last_byte', 'max', '>', 1.0)),
    ('delete.avg<-0.5%', ('delete', 'last_byte', 'avg', '<', -0.5)),
    ('first_byte.p50>+.5%', ('total', 'first_byte', 'p50', '>', 0.5)),
    ('errors>+1%', ('total', None, 'errors', '>', 1.0)),
    ('read.errors > +0.5pp', ('read', None, 'errors', '>', 0.5)),
    ('p75>+1 %', ('total', 'last_byte', 'p75', '>', 1.0)),
    ('p99.90>+0%', ('total', 'last_byte', 'p99_9', '>', 0.0)),
    ('p100>+3%', ('total', 'last_byte', 'p100', '>', 3.0)),
    ('rps>+50%', ('total', None, 'rps', '>', 50.0)),
]


@pytest.mark.parametrize('text,expect', VALID_RULES,
                         ids=[t for t, _ in VALID_RULES])
def test_parse_valid_rule(text, expect):
    rules = gate.parse_fail_if(text)
    assert len(rules) == 1
    rule = rules[0]
    assert tuple(rule.name) + (rule.comparison, rule.threshold) == expect
    assert rule.text == text.strip()


def test_parse_several_rules_in_order():
    rules = gate.parse_fail_if('p99>+10%, rps<-5%,read.errors>+1%')
    assert [r.text for r in rules] == ['p99>+10%', 'rps<-5%',
                                       'read.errors>+1%']
    assert [r.name.metric for r in rules] == ['p99', 'rps', 'errors']


INVALID_RULES = [
    ('', '', 'at least one rule'),
    ('  ', '', 'at least one rule'),
    ('p99>+10%,', '', 'empty rule'),
    ('p99>+10%,,rps<-5%', '', 'empty rule'),
    ('p99+10%', 'p99+10%', 'one comparison'),
    ('p99>=+10%', 'p99>=+10%', 'one comparison'),
    ('p99=+10%', 'p99=+10%', 'one comparison'),
    ('p99<>+10%', 'p99<>+10%', 'one comparison'),
    ('p99>+10%>', 'p99>+10%>', 'one comparison'),
    ('p99>10%', 'p99>10%', 'needs a sign, +10% or -10%'),
    ('p99>+10', 'p99>+10', 'needs a unit: +10%'),
    ('p99>+10pp', 'p99>+10pp', 'only to errors'),
    ('rps<-5pp', 'rps<-5pp', 'only to errors'),
    ('p99>+ten%', 'p99>+ten%', 'like +10% or -5%'),
    ('p99>+10%%', 'p99>+10%%', 'like +10% or -5%'),
    ('p99>+-10%', 'p99>+-10%', 'like +10% or -5%'),
    ('p99>', 'p99>', 'like +10% or -5%'),
    ('>+10%', '>+10%', "unknown metric ''"),
    ('rpm<-5%', 'rpm<-5%', "unknown metric 'rpm'"),
    ('reads.p99>+1%', 'reads.p99>+1%', "unknown metric 'reads.p99'"),
    ('total.total.p99>+1%', 'total.total.p99>+1%',
     "unknown metric 'total.p99'"),
    ('last_byte.first_byte.p99>+1%', 'last_byte.first_byte.p99>+1%',
     "unknown metric 'first_byte.p99'"),
    ('p99.>+1%', 'p99.>+1%', "unknown metric 'p99.'"),
    ('p>+1%', 'p>+1%', "unknown metric 'p'"),
    ('read.>+1%', 'read.>+1%', "unknown metric ''"),
    ('first_byte.rps<-5%', 'first_byte.rps<-5%', 'only to latency'),
    ('last_byte.errors>+1%', 'last_byte.errors>+1%', 'only to latency'),
    ('p0>+1%', 'p0>+1%', 'percentile 0 is not above 0'),
    ('p101>+1%', 'p101>+1%', 'percentile 101'),
    # ASCII digits only: full-width and other Unicode digits are refused
    # (as the command line gives them: UTF-8 bytes on Python 2).
    (native(u'p\uff19\uff19>+10%'), native(u'p\uff19\uff19>+10%'),
     'unknown metric'),
    (native(u'p99>+\uff11\uff10%'), native(u'p99>+\uff11\uff10%'),
     'like +10% or -5%'),
    (native(u'p\u0669\u0669>+10%'), native(u'p\u0669\u0669>+10%'),
     'unknown metric'),
    (native(u'p99>+10\u2009%'), native(u'p99>+10\u2009%'),
     'like +10% or -5%'),
]


@pytest.mark.parametrize('text,bad,why', INVALID_RULES,
                         ids=[repr(t) for t, _, _ in INVALID_RULES])
def test_parse_invalid_rule(text, bad, why):
    with pytest.raises(gate.FailIfError) as info:
        gate.parse_fail_if(text)
    message = str(info.value)
    assert isinstance(info.value, SsbenchError)
    assert info.value.exit_status == 2
    assert '\n' not in message
    assert why in message
    if bad:
        assert message.startswith("bad --fail-if rule '%s': " % bad)


def test_a_long_rule_is_cut_in_messages():
    with pytest.raises(gate.FailIfError) as info:
        gate.parse_fail_if('p99>+10%,' + 'x' * 100000 + '>+1%')
    message = str(info.value)
    # Two cut quotes and the fixed help text (which names every OP).
    assert len(message) < 320
    assert message.startswith("bad --fail-if rule '%s...': unknown "
                              "metric '%s...'" % ('x' * (SHOWN - 3),
                                                  'x' * (SHOWN - 3)))
    # A valid rule that long is quoted cut too when it fails.
    rule = gate.parse_fail_if('p99' + ' ' * 100000 + '>+1%')[0]
    assert rule.text == 'p99' + ' ' * (SHOWN - 6) + '...'


def test_percentiles_of_the_rules():
    rules = gate.parse_fail_if('p99.99>+1%,rps<-5%,read.p100>+1%,'
                               'first_byte.p99_99>+2%,max>+1%,p50>+1%')
    assert gate.percentiles_of(rules) == [99.99, 100, 50]
    assert gate.percentiles_of([]) == []


def test_parse_error_names_only_the_bad_rule():
    with pytest.raises(gate.FailIfError) as info:
        gate.parse_fail_if('p99>+10%,p90>x,rps<-5%')
    assert str(info.value).startswith("bad --fail-if rule 'p90>x': ")


def test_threshold_exit_differs_from_error_statuses():
    assert gate.THRESHOLD_EXIT == 3
    assert gate.FailIfError.exit_status != gate.THRESHOLD_EXIT


# --- arithmetic -------------------------------------------------------------


def check(base_ops, this_ops, rules):
    return gate.failed_checks(pair(base_ops, this_ops),
                              gate.parse_fail_if(rules))


def test_checks_pass_when_nothing_crosses_a_threshold():
    assert check([operation('total')],
                 [operation('total', rps=96.0, last=latency(1.09))],
                 'p99>+10%,rps<-5%,errors>+1%,max>+10%') == []


def test_rps_drop_beyond_the_threshold_fails():
    lines = check([operation('total', rps=100.0)],
                  [operation('total', rps=93.0)], 'rps<-5%')
    assert lines == [
        'rps<-5%: total requests/s changed -7.0% (100.0 -> 93.0) '
        '(per-second spread: base +/-4.0%, this run +/-4.0%)']


def test_rps_rise_never_fails_a_drop_rule():
    assert check([operation('total', rps=100.0)],
                 [operation('total', rps=500.0)], 'rps<-5%') == []


def test_a_change_equal_to_the_threshold_passes():
    # 0.4 -> 0.44 is +10.000000000000009% in floats.
    assert check([operation('total')], [operation('total', last=latency(
        1.1))], 'p99>+10%') == []
    assert check([operation('total', rps=100.0)],
                 [operation('total', rps=95.0)], 'rps<-5%') == []


def test_latency_rise_fails():
    lines = check([operation('total')],
                  [operation('total', last=latency(1.5))], 'p99>+10%')
    assert lines == ['p99>+10%: total last-byte p99 changed +50.0% '
                     '(400.00 ms -> 600.00 ms)']


def test_first_byte_and_operation_rules_look_at_their_row():
    base = [operation('total'), operation('read')]
    this = [operation('total', first=latency(0.5, p50=0.2)),
            operation('read', last=latency(2.0))]
    lines = check(base, this, 'first_byte.p50>+100%,read.max>+50%,'
                  'create.p99>+1%,total.p50>+1%')
    assert lines == [
        'first_byte.p50>+100%: total first-byte p50 changed +300.0% '
        '(50.00 ms -> 200.00 ms)',
        'read.max>+50%: read last-byte max changed +100.0% '
        '(1000.00 ms -> 2000.00 ms)',
        'create.p99>+1%: create has no results in either run']


def test_errors_rule_uses_percentage_points():
    base = [operation('total', count=1000, errors=0)]
    assert check(base, [operation('total', count=995, errors=5)],
                 'errors>+1%') == []
    lines = check(base, [operation('total', count=980, errors=20)],
                  'errors>+1pp')
    assert lines == ['errors>+1pp: total error rate changed +2.00 points '
                     '(0.00% -> 2.00%)']


def test_rules_that_cannot_be_evaluated_fail():
    base = [operation('total', rps=0.0), operation('create')]
    this = [operation('total', first=latency(p99=None)),
            operation('read')]
    lines = check(base, this, 'rps<-5%,first_byte.p99>+10%,create.p50>+1%,'
                  'read.p50>+1%,p75>+1%')
    assert lines == [
        'rps<-5%: total requests/s is 0 in the base run, so it has no '
        'relative change',
        'first_byte.p99>+10%: total first-byte p99 is missing in this run',
        'create.p50>+1%: create has no results in this run',
        'read.p50>+1%: read has no results in the base run',
        'p75>+1%: total last-byte p75 is missing in both runs']


def test_only_failing_rules_are_listed_in_rule_order():
    lines = check([operation('total')],
                  [operation('total', rps=50.0, last=latency(3.0))],
                  'p50>+1000%,rps<-10%,p50>+10%,rps>+1%')
    assert [line.split(':')[0] for line in lines] == ['rps<-10%', 'p50>+10%']


def test_a_value_missing_in_both_runs_fails():
    no_max = latency(0.5, max=None)
    lines = check([operation('total', first=no_max)],
                  [operation('total', first=no_max)], 'first_byte.max>+1%')
    assert lines == ['first_byte.max>+1%: total first-byte max is missing '
                     'in both runs']


def test_a_rule_can_name_an_endpoint():
    from ssbench.report import compare as cmp
    from tests.unit.report.test_compare import document

    def doc(slow, stats_file):
        endpoints = [dict(operation('endpoint[%d]' % i, last=latency(
            scale)), index=i, url='http://p%d/v1/AUTH_t' % i)
            for i, scale in enumerate((1.0, slow))]
        out = document([operation('total')], stats_file=stats_file)
        out['endpoints'] = {'unattributed': 0, 'endpoints': endpoints}
        return out
    result = cmp.compare(doc(1.0, '/tmp/b'), doc(1.5, '/tmp/t'))
    lines = gate.failed_checks(result, gate.parse_fail_if(
        'endpoint[0].p99>+10%,endpoint[1].p99>+10%,endpoint[2].p99>+10%'))
    assert lines == [
        'endpoint[1].p99>+10%: endpoint[1] last-byte p99 changed +50.0% '
        '(400.00 ms -> 600.00 ms)',
        'endpoint[2].p99>+10%: endpoint[2] has no results in either run']
    text = cmp.compare_lines(result)
    assert 'ENDPOINT[1]  http://p1/v1/AUTH_t' in text


def test_a_percentile_rule_on_too_few_results_neither_passes_nor_fails():
    # p99 of 50 successes is their maximum; it doubled, but on too few.
    base = [operation('total', count=50)]
    this = [operation('total', count=50, last=latency(2.0))]
    rules = gate.parse_fail_if('p99>+10%,max>+10%')
    result = pair(base, this)
    assert gate.failed_checks(result, rules) == [
        'max>+10%: total last-byte max changed +100.0% (1000.00 ms -> '
        '2000.00 ms)']
    assert gate.too_few_checks(result, rules) == [
        "p99>+10%: too few results: the base run's total has 50, this "
        "run's total has 50; p99 needs at least 100 (neither passed nor "
        "failed)"]
    assert gate.too_few_checks(pair([operation('total')], [
        operation('total', last=latency(2.0))]), rules) == []

from __future__ import absolute_import, division, print_function

import copy
import io

import pytest

from ssbench.report import compare as cmp
from ssbench.compat import PY2
from ssbench.errors import StatsFileError

SCENARIO = {
    'name': 'Crafted', 'user_count': 4,
    'sizes': [{'name': 'tiny', 'size_min': 4096, 'size_max': 8192},
              {'name': 'big', 'size_min': 10 ** 6, 'size_max': 10 ** 6,
               'crud_profile': [1, 1, 0, 0]}],
    'initial_files': {'tiny': 30, 'big': 10},
    'crud_profile': [1, 2, 1, 0], 'run_seconds': 60,
}


def latency(scale=1.0, **overrides):
    """An all-sizes latency entry: p50 0.1 s ... max 1 s, times scale."""
    entry = {'size': None, 'count': 100, 'min': 0.01, 'std_dev': 0.05,
             'p50': 0.1, 'p90': 0.2, 'p95': 0.25, 'p99': 0.4, 'p99_9': 0.8,
             'max': 1.0, 'avg': 0.12, 'worst_trans_id': 'tx1',
             'histogram': []}
    for key in ('min', 'std_dev', 'p50', 'p90', 'p95', 'p99', 'p99_9',
                'max', 'avg'):
        entry[key] *= scale
    entry.update(overrides)
    return entry


def throughput(median=100.0, p25=96.0, p75=102.0):
    return {'seconds': 60, 'fastest': median * 1.2, 'p75': p75,
            'median': median, 'p25': p25, 'slowest': median * 0.5,
            'iqr': p75 - p25}


def operation(name, count=1000, errors=0, rps=100.0, last=None, first=None,
              tput='default'):
    sized = dict(latency(), size='tiny')
    return {'operation': name, 'count': count, 'errors': errors,
            'retries': 0, 'reconnects': 0, 'bytes': None,
            'start': 1000.0, 'stop': 1060.0, 'req_per_s': rps,
            'throughput': throughput() if tput == 'default' else tput,
            'latency': {'first_byte': [first or latency(0.5), sized],
                        'last_byte': [last or latency(), sized]}}


def document(operations, name='Crafted', stats_file='/tmp/base.stat.gz',
             start=1700000000.0, scenario=SCENARIO, user_count=4,
             percentiles=(50, 90, 95, 99, 99.9), skip=0):
    return {'format_version': 1, 'generator': 'ssbench test',
            'stats_file': stats_file,
            'header': {'name': name, 'version': '1.0',
                       'user_count': user_count, 'operation_count': None,
                       'run_seconds': 60},
            'scenario': copy.deepcopy(scenario),
            'run': {'name': name, 'version': '1.0', 'worker_count': 2,
                    'concurrency': 2, 'start_time': start,
                    'stop_time': None if start is None else start + 60,
                    'duration': 60.0, 'records': 1000, 'skipped': 0,
                    'skip_seconds': skip},
            'percentiles': list(percentiles),
            'operations': operations,
            'timeseries': {}, 'errors': {'recorded': True, 'total': 0,
                                         'causes': []}}


def pair(base_ops, this_ops, **this_kwargs):
    this_kwargs.setdefault('stats_file', '/tmp/this.stat.gz')
    return cmp.compare(document(base_ops), document(this_ops, **this_kwargs))


def op_of(result, name):
    return [op for op in result['operations'] if op['operation'] == name][0]


def row(result, name, metric):
    return [r for r in op_of(result, name)['rows']
            if r['metric'] == metric][0]


def rendered(result):
    out = io.BytesIO() if PY2 else io.StringIO()
    cmp.render_compare(result, out)
    value = out.getvalue()
    return value.decode('utf-8') if PY2 else value


# --- parse_fail_if ----------------------------------------------------------

@pytest.mark.parametrize('base,this,expect', [
    (100.0, 110.0, 10.0),
    (100.0, 95.0, -5.0),
    (0.2, 0.1, -50.0),
    (50, 50, 0.0),
    (4, 5, 25.0),
])
def test_relative_change(base, this, expect):
    assert cmp.relative_change(base, this) == pytest.approx(expect)


@pytest.mark.parametrize('base,this', [
    (0, 5.0), (0.0, 0.0), (None, 5.0), (5.0, None), (None, None)])
def test_relative_change_undefined(base, this):
    assert cmp.relative_change(base, this) is None


def test_throughput_spread_is_the_wider_side_of_the_middle_half():
    assert cmp.throughput_spread(throughput(100.0, 96.0, 102.0)) == \
        pytest.approx(4.0)
    assert cmp.throughput_spread(throughput(200.0, 199.0, 210.0)) == \
        pytest.approx(5.0)


@pytest.mark.parametrize('block', [
    None, {}, throughput(0.0, 0.0, 0.0),
    dict(throughput(), p25=None),
    # One whole second (or a few) has no spread to speak of, not 0.0%.
    dict(throughput(100.0, 100.0, 100.0), seconds=1),
    dict(throughput(), seconds=cmp.MIN_SPREAD_SECONDS - 1),
    dict(throughput(), seconds=None)])
def test_throughput_spread_unknown(block):
    assert cmp.throughput_spread(block) is None


def test_throughput_spread_from_enough_seconds():
    block = dict(throughput(100.0, 96.0, 102.0),
                 seconds=cmp.MIN_SPREAD_SECONDS)
    assert cmp.throughput_spread(block) == pytest.approx(4.0)


# --- compare ----------------------------------------------------------------

def test_compare_side_by_side_changes():
    base = [operation('total', errors=10, rps=100.0),
            operation('read', rps=80.0)]
    this = [operation('total', errors=30, rps=110.0, last=latency(1.25),
                      first=latency(0.25)),
            operation('read', rps=60.0)]
    result = pair(base, this)
    assert [op['operation'] for op in result['operations']] == \
        ['total', 'read']
    rps = row(result, 'total', 'rps')
    assert (rps['base'], rps['this']) == (100.0, 110.0)
    assert rps['change'] == pytest.approx(10.0)
    assert row(result, 'read', 'rps')['change'] == pytest.approx(-25.0)
    p99 = row(result, 'total', 'last_byte.p99')
    assert (p99['base'], p99['this']) == (0.4, 0.5)
    assert p99['change'] == pytest.approx(25.0)
    assert p99['label'] == 'last-byte p99'
    assert row(result, 'total', 'last_byte.p99_9')['label'] == \
        'last-byte p99.9'
    assert row(result, 'total', 'first_byte.max')['change'] == \
        pytest.approx(-50.0)
    assert row(result, 'total', 'last_byte.avg')['this'] == \
        pytest.approx(0.15)
    # The per-size entries are ignored: only all sizes are compared.
    assert row(result, 'total', 'first_byte.p50')['base'] == 0.05
    errors = row(result, 'total', 'errors')
    assert (errors['base'], errors['this']) == (10, 30)
    assert errors['change'] == pytest.approx(200.0)
    rate = row(result, 'total', 'error_rate')
    assert rate['base'] == pytest.approx(100.0 * 10 / 1010)
    assert rate['this'] == pytest.approx(100.0 * 30 / 1030)
    assert rate['change'] == pytest.approx(rate['this'] - rate['base'])
    assert rate['change_unit'] == 'points'
    assert rps['change_unit'] == 'relative'


def test_compare_row_order_and_units():
    result = pair([operation('total')], [operation('total')])
    metrics = [(r['metric'], r['unit']) for r in op_of(result, 'total')
               ['rows']]
    latency_stats = ['p50', 'p90', 'p95', 'p99', 'p99_9', 'max', 'avg']
    assert metrics == (
        [('rps', 'req/s'), ('count', 'count'), ('errors', 'count'),
         ('error_rate', 'percent')] +
        [('last_byte.' + s, 'seconds') for s in latency_stats] +
        [('first_byte.' + s, 'seconds') for s in latency_stats])


def test_compare_describes_both_runs():
    result = pair([operation('total')], [operation('total')],
                  name='Other', start=None)
    assert result['base'] == {
        'name': 'Crafted', 'version': '1.0', 'start_time': 1700000000.0,
        'stop_time': 1700000060.0, 'duration': 60.0, 'skip_seconds': 0,
        'stats_file': '/tmp/base.stat.gz'}
    assert result['this']['name'] == 'Other'
    assert result['this']['start_time'] is None
    assert result['this']['stats_file'] == '/tmp/this.stat.gz'


def test_compare_operation_missing_in_either_run():
    base = [operation('total'), operation('create'), operation('read')]
    this = [operation('total'), operation('read'), operation('delete')]
    result = pair(base, this)
    assert [(op['operation'], op['in_base'], op['in_this'])
            for op in result['operations']] == [
        ('total', True, True), ('create', True, False),
        ('read', True, True), ('delete', False, True)]
    create = op_of(result, 'create')
    assert create['throughput']['this'] is None
    assert create['spread'] == {'base': pytest.approx(4.0), 'this': None}
    for r in create['rows']:
        assert r['base'] is not None and r['this'] is None
        assert r['change'] is None
    for r in op_of(result, 'delete')['rows']:
        assert r['base'] is None and r['change'] is None


def test_compare_zero_and_null_bases():
    base = [operation('total', rps=0.0, errors=0,
                      last=latency(0.0), first=latency(p99=None))]
    this = [operation('total', rps=5.0, errors=2)]
    result = pair(base, this)
    assert row(result, 'total', 'rps')['change'] is None
    assert row(result, 'total', 'last_byte.p99')['change'] is None
    assert row(result, 'total', 'errors')['change'] is None
    assert row(result, 'total', 'first_byte.p99')['base'] is None
    assert row(result, 'total', 'first_byte.p99')['change'] is None
    # Percentage points are defined from a zero base.
    assert row(result, 'total', 'error_rate')['change'] == \
        pytest.approx(100.0 * 2 / 1002)


def test_compare_error_rate_without_requests_is_unknown():
    result = pair([operation('total', count=0, errors=0)],
                  [operation('total')])
    rate = row(result, 'total', 'error_rate')
    assert rate['base'] is None and rate['change'] is None


def test_compare_uses_the_union_of_percentiles():
    base = document([operation('total', last=latency(p75=0.15))],
                    percentiles=(50, 75, 99.9))
    this = document([operation('total')], stats_file='/tmp/b')
    result = cmp.compare(base, this)
    metrics = [r['metric'] for r in op_of(result, 'total')['rows']]
    assert metrics[4:10] == ['last_byte.p50', 'last_byte.p75',
                             'last_byte.p90', 'last_byte.p95',
                             'last_byte.p99', 'last_byte.p99_9']
    p75 = row(result, 'total', 'last_byte.p75')
    assert (p75['base'], p75['this'], p75['change']) == (0.15, None, None)


def test_compare_spreads():
    base = [operation('total', tput=throughput(100.0, 96.0, 102.0))]
    this = [operation('total', tput=None)]
    total = op_of(pair(base, this), 'total')
    assert total['spread']['base'] == pytest.approx(4.0)
    assert total['spread']['this'] is None
    assert total['throughput']['base']['iqr'] == 6.0


def test_compare_refuses_other_format_versions():
    later = document([operation('total')], stats_file='/tmp/later.json')
    later['format_version'] = 2
    with pytest.raises(StatsFileError) as info:
        cmp.compare(document([]), later)
    assert '/tmp/later.json' in str(info.value)
    assert 'format_version 2' in str(info.value)


def test_same_scenario_has_no_differences():
    assert pair([], [])['scenario_differences'] == []


def test_scenario_differences():
    other = copy.deepcopy(SCENARIO)
    other['crud_profile'] = [0, 1, 0, 0]
    other['user_count'] = 99    # the header's effective value wins
    other['sizes'][1]['crud_profile'] = [0, 1, 0, 0]
    other['sizes'].append({'name': 'huge', 'size_min': 1, 'size_max': 2})
    del other['sizes'][0]
    other['sizes'].insert(0, {'name': 'tiny', 'size_min': 4096,
                              'size_max': 16384})
    other['initial_files'] = {'tiny': 30}
    other['policy'] = 'gold'
    result = pair([], [], scenario=other, user_count=8)
    assert result['scenario_differences'] == [
        'user_count: 4 -> 8',
        'crud_profile: [1, 2, 1, 0] -> [0, 1, 0, 0]',
        'initial_files: {"big": 10, "tiny": 30} -> {"tiny": 30}',
        'policy: null -> "gold"',
        'size class "tiny": size_max 8192 -> 16384',
        'size class "big": crud_profile [1, 1, 0, 0] -> [0, 1, 0, 0]',
        'size class "huge": only in this run',
    ]
    assert pair([], [], scenario=dict(SCENARIO, sizes=[]))[
        'scenario_differences'] == ['size class "tiny": only in the base run',
                                    'size class "big": only in the base run']


def test_scenario_user_count_falls_back_to_the_scenario():
    base = document([])
    del base['header']['user_count']
    assert cmp.compare(base, document([], user_count=4))[
        'scenario_differences'] == []


# --- render_compare ---------------------------------------------------------

HEADER_ROW = '  %-22s %14s %14s  %s' % ('metric', 'base', 'this run', 'change')


def table_rows(text, title):
    """The rows of an operation's block, as {label: (base, this, change)}."""
    lines = text.split('\n')
    start = lines.index(title)
    assert lines[start + 1] == HEADER_ROW
    rows = {}
    for line in lines[start + 2:]:
        if not line:
            break
        # Fixed columns: a value never runs into its neighbour.
        assert (line[:2], line[24], line[39], line[54:56]) == \
            ('  ', ' ', ' ', '  '), line
        rows[line[2:24].strip()] = (line[25:39].strip(),
                                    line[40:54].strip(), line[56:])
    return rows


def test_render_header_names_both_runs():
    result = pair([operation('total')], [operation('total')],
                  name='Next', start=None)
    lines = rendered(result).split('\n')
    assert lines[:5] == [
        'Comparison of two ssbench runs',
        'Base:     Crafted  (started 2023-11-14 22:13:20 UTC)',
        '          stats file: /tmp/base.stat.gz',
        'This run: Next  (started N/A)',
        '          stats file: /tmp/this.stat.gz']
    assert 'NOTE' not in rendered(result)


def test_render_says_which_side_left_out_a_warmup():
    result = pair([operation('total')], [operation('total')], skip=2.5)
    lines = rendered(result).split('\n')
    assert lines[1:6] == [
        'Base:     Crafted  (started 2023-11-14 22:13:20 UTC)',
        '          stats file: /tmp/base.stat.gz',
        'This run: Crafted  (started 2023-11-14 22:13:20 UTC)',
        '          stats file: /tmp/this.stat.gz',
        '          warm-up: the first 2.5 s left out']
    assert result['this']['skip_seconds'] == 2.5


def test_render_notes_differing_scenarios():
    text = rendered(pair([], [], user_count=16))
    assert ('NOTE: the scenarios differ, so these figures compare '
            'different workloads:\n  user_count: 4 -> 16\n') in text


def test_render_operation_block():
    base = [operation('total', errors=10, rps=100.0)]
    this = [operation('total', errors=30, rps=103.1, last=latency(1.25),
                      tput=throughput(50.0, 49.0, 51.5))]
    text = rendered(pair(base, this))
    assert HEADER_ROW == '  metric' + ' ' * 27 + 'base' + ' ' * 7 + \
        'this run  change'
    rows = table_rows(text, 'TOTAL')
    assert rows['requests/s'] == (
        '100.0', '103.1',
        '+3.1% (per-second spread: base +/-4.0%, this run +/-3.0%)')
    assert rows['successes'] == ('1000', '1000', '+0.0%')
    assert rows['errors'] == ('10', '30', '+200.0%')
    assert rows['error rate'] == ('0.99%', '2.91%', '+1.92 pp')
    assert rows['last-byte p99.9'][2] == '+25.0%'
    assert rows['last-byte p99'][:2] == ('400.00 ms', '500.00 ms')
    assert rows['first-byte avg'] == ('60.00 ms', '60.00 ms', '+0.0%')
    assert len(rows) == 18
    for line in text.split('\n'):
        assert len(line) <= 79 or line.startswith('  requests/s')


def test_render_says_when_the_spread_is_unknown():
    text = rendered(pair([operation('total', tput=None)],
                         [operation('total', tput=None)]))
    assert table_rows(text, 'TOTAL')['requests/s'][2] == \
        '+0.0% (per-second spread unknown)'
    text = rendered(pair([operation('total')],
                         [operation('total', tput=None)]))
    assert table_rows(text, 'TOTAL')['requests/s'][2] == \
        '+0.0% (per-second spread: base +/-4.0%, this run unknown)'


def test_render_missing_operations_and_zero_bases():
    base = [operation('total', rps=0.0, last=latency(0.0)),
            operation('create')]
    this = [operation('total'), operation('read',
                                          first=latency(p50=None))]
    text = rendered(pair(base, this))
    assert '\nCREATE (no results in this run)\n' in text
    assert '\nREAD (no results in the base run)\n' in text
    total = table_rows(text, 'TOTAL')
    assert total['last-byte p50'] == ('0.00 ms', '100.00 ms', 'n/a (base 0)')
    # The spread goes with a change; without one it would explain nothing.
    assert total['requests/s'][2] == 'n/a (base 0)'
    create = table_rows(text, 'CREATE (no results in this run)')
    assert create['last-byte p99'] == ('400.00 ms', '-', 'n/a')
    read = table_rows(text, 'READ (no results in the base run)')
    # A row without a value in either run is left out.
    assert 'first-byte p50' not in read
    assert read['first-byte p90'] == ('-', '200.00 ms', 'n/a')


def test_render_order_of_blocks():
    ops = [operation(n) for n in ('total', 'create', 'read', 'update',
                                  'delete')]
    text = rendered(pair(ops, list(reversed(ops))))
    titles = [line for line in text.split('\n') if line.isupper()]
    assert titles == ['TOTAL', 'CREATE', 'READ', 'UPDATE', 'DELETE']


# --- failed_checks ----------------------------------------------------------

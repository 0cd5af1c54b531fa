# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

import csv
import io

import pytest

from ssbench.report.render import classic
from ssbench.compat import PY2
from ssbench.report.compute.classicstats import compute

from tests.unit.report.compute.test_classicstats import (
    HEADER, FakeStatsFile, err, res)


def render(func, run_stats):
    out = io.BytesIO() if PY2 else io.StringIO()
    func(run_stats, out)
    value = out.getvalue()
    return value.decode('utf-8') if PY2 else value


def crafted(results, pctile=95, header=None):
    if header is None:
        return compute(FakeStatsFile([results]), pctile)
    return compute(FakeStatsFile([results], header), pctile)


RESULTS = [
    res('get_object', 'tiny', at=100.25, first=0.01, last=0.02, txid='r1'),
    res('get_object', 'big', at=101.5, first=0.2, last=0.4, txid='r2',
        worker=1),
    res('upload_object', 'tiny', at=102.0, first=None, last=0.3, txid='c1',
        retries=2),
    err('delete_object', 'big', at=102.5, worker=2),
]


def test_csv_columns_for_a_crafted_run():
    names, values = classic.csv_rows(crafted(RESULTS))
    stat = ['min', 'max', 'avg', 'std_dev', '95_pctile', 'worst_txid']
    want = ['scenario_name', 'ssbench_version', 'worker_count',
            'concurrency', 'start_time', 'stop_time', 'duration',
            'delete_after']
    # DELETE only failed and UPDATE never ran: neither has columns.
    # CREATE only touched 'tiny', so it has no 'big' columns.
    for g, sizes in (('total', ['all', 'tiny', 'big']),
                     ('create', ['all', 'tiny']),
                     ('read', ['all', 'tiny', 'big'])):
        want += [g + '_count', g + '_errors', g + '_retries',
                 g + '_retry_rate', g + '_avg_req_per_s']
        for size in sizes:
            for kind in ('first', 'last'):
                want += ['%s_%s_%s_%s' % (g, kind, size, s) for s in stat]
    assert names == want
    assert len(values) == len(names)


def test_csv_values_and_quoting():
    text = render(classic.render_csv, crafted(RESULTS))
    lines = text.split('\n')
    assert len(lines) == 3 and lines[2] == ''  # two rows, '\n' endings
    header, row = list(csv.reader(io.StringIO(text) if not PY2 else
                                  io.BytesIO(text.encode('utf-8'))))
    data = dict(zip(header, row))
    assert data['worker_count'] == '3'
    assert data['concurrency'] == '7'
    assert data['delete_after'] == '30'
    assert data['start_time'] == '1970-01-01 00:01:39 UTC'
    assert data['total_retry_rate'] == '133.333333'  # 4 retries / 3 ok
    assert data['total_retries'] == '4'
    assert data['create_first_all_min'] == ' N/A  '
    assert data['create_first_all_max'] == '  N/A  '
    assert data['create_first_all_worst_txid'] == ''
    assert data['read_last_big_worst_txid'] == 'r2'
    assert data['read_first_tiny_95_pctile'] == '0.01'
    # Strings are quoted, numbers are not, retry_rate is a quoted string.
    raw = lines[1].split(',')
    assert raw[0] == '"Crafted"'
    assert raw[2] == '3'
    assert '"133.333333"' in raw
    assert '"0.000000"' in raw  # read_retry_rate


def test_csv_pctile_column_name():
    names, _ = classic.csv_rows(crafted(RESULTS, pctile=50))
    assert 'total_first_all_50_pctile' in names


def test_csv_numbers_rounded_to_six_places():
    rs = crafted([res(at=100.5, first=0.1234564, last=0.12345651)])
    _, values = classic.csv_rows(rs)
    assert 0.123456 in values
    assert 0.123457 in values


def test_round6_rounds_halves_away_from_zero_like_python2():
    # 0.5078125 is exact in binary, a true halfway case at six places.
    assert classic.round6(0.5078125) == 0.507813
    assert classic.round6(-0.5078125) == -0.507813
    assert classic.round6(2.5e-7) == 0.0
    assert classic.round6(0.1234565) == 0.123456  # just below half in binary
    assert classic.round6(0.0123455) == 0.012346  # just above
    assert classic.round6(1e20) == 1e20
    assert classic.round6(float('inf')) == float('inf')
    assert classic.round6(3) == 3.0


@pytest.mark.parametrize('size, text', [
    (0, '  0  B'), (999, '999  B'), (1000, '  1 kB'), (4096, '  4 kB'),
    (20000, ' 20 kB'), (1500000, '  2 MB'), (3 * 10 ** 9, '  3 GB'),
    (5 * 10 ** 12, '5000 GB'),
])
def test_format_bytes(size, text):
    assert classic.format_bytes(size) == text


def test_text_report_layout():
    text = render(classic.render_text, crafted(RESULTS))
    lines = text.split('\n')
    assert lines[0] == ''
    assert lines[1] == 'Crafted  (generated with ssbench version 9.9)'
    assert lines[2] == ('Worker count:   3   Concurrency:   7  Ran '
                        '1970-01-01 00:01:39 UTC to 1970-01-01 00:01:42 UTC '
                        '(2s)')
    assert lines[3] == 'Object expiration (X-Delete-After): 30 (sec)'
    assert lines[5:10] == [
        '% Ops    C   R   U   D       Size Range       Size Name',
        ' 75%   % 60   0  30  10        4 kB -   8 kB  tiny',
        ' 25%   % 25  50  25   0        1 MB           big',
        '-' * 69,
        '         51  12  29   8      CRUD weighted average',
    ]
    assert [line for line in lines if line.isupper()] == [
        'TOTAL', 'CREATE', 'READ']
    assert ('       Count:     3 (    1 error;     4 retries: 133.33%)  '
            'Average requests per second:   1.7') in lines
    assert ('       First-byte latency:  N/A   -   N/A      N/A    (  N/A  )'
            '    N/A    (all obj sizes)  ') in lines
    assert ('       Last-byte  latency:  0.300 -   0.300    0.300  (  0.000)'
            '    0.300  (    tiny objs)  c1') in lines
    assert lines[-2] == ('Distribution of requests per worker-ID:  1.000 -   '
                         '2.000 (avg:   1.500; stddev:   0.500)')
    assert lines[-1] == ''


def test_text_noop_worst_is_none_and_rate_inf():
    rs = crafted([res(at=100.0, first=0.0, last=0.0)])
    text = render(classic.render_text, rs)
    assert ('       Last-byte  latency:  N/A   -   N/A      N/A    (  N/A  )'
            '    N/A    (all obj sizes)  None') in text
    assert 'Average requests per second:   inf' in text
    assert '(0s)' in text


def test_text_pctile_header():
    text = render(classic.render_text, crafted(RESULTS, pctile=5))
    assert ' std_dev  05%-ile ' in text


def test_text_unicode_name():
    header = dict(FakeStatsFile([]).header, name=u'Caf\xe9 \u2603')
    text = render(classic.render_text, crafted(RESULTS, header=header))
    assert u'Caf\xe9 \u2603  (generated' in text
    csv_text = render(classic.render_csv, crafted(RESULTS, header=header))
    assert u'"Caf\xe9 \u2603"' in csv_text


def test_rps_histogram_with_empty_seconds():
    rs = crafted([res(at=10.5), res(at=10.9), res(at=13.0), err(at=12.0),
                  res(at=11.2)])
    assert render(classic.render_rps_histogram, rs) == (
        '"Seconds Since Start","Requests Completed"\n'
        '1,2\n2,1\n3,0\n4,1\n')


def test_an_idle_block_of_the_rps_histogram_is_rows_of_zeros(monkeypatch):
    # Blocks of 3 seconds: the second and the third have no success.
    monkeypatch.setattr(classic, 'RPS_BLOCK', 3)
    rs = crafted([res(at=10.5), res(at=19.2), res(at=19.7)])
    assert render(classic.render_rps_histogram, rs) == (
        '"Seconds Since Start","Requests Completed"\n' +
        '1,1\n' + ''.join('%d,0\n' % s for s in range(2, 10)) + '10,2\n')


def test_no_successes_at_all():
    rs = crafted([err(), err(worker=1)])
    text = render(classic.render_text, rs)
    assert 'Worker count:   2' in text
    assert 'TOTAL' not in text
    assert render(classic.render_rps_histogram, rs) == (
        '"Seconds Since Start","Requests Completed"\n')
    names, values = classic.csv_rows(rs)
    assert len(names) == len(values) == 8


def test_the_rps_histogram_is_written_a_block_at_a_time(monkeypatch):
    # Byte for byte the golden histogram, formatted 7 rows at a time.
    from tests.unit.report.test_golden import expected, render, run_stats
    monkeypatch.setattr(classic, 'RPS_BLOCK', 7)
    stats = run_stats('swift_u8_o2000_c10', 95)
    assert len(stats.rps_counts) > 7
    assert render(classic.render_rps_histogram, stats) == expected(
        'swift_u8_o2000_c10', 'rps_histogram.csv')


# --- HEAD and LIST -----------------------------------------------------------

MIXED = dict(HEADER, _scenario_data={
    'name': 'Mixed', 'user_count': 3,
    'sizes': [{'name': 'tiny', 'size_min': 4096, 'size_max': 8192,
               'crud_profile': [6, 0, 3, 1]},
              {'name': 'big', 'size_min': 10 ** 6, 'size_max': 10 ** 6}],
    'initial_files': {'tiny': 30, 'big': 10},
    'crud_profile': {'READ': 50, 'HEAD': 30, 'LIST': 20}})
MIXED_RESULTS = RESULTS + [
    res('head_object', 'big', at=101.0, first=0.001, last=0.002, txid='h1'),
    res('list_container', 'big', at=101.75, first=0.03, last=0.05,
        txid='l1', name=''),
    err('list_container', 'big', at=102.25),
]


def test_text_report_of_head_and_list():
    lines = render(classic.render_text,
                   crafted(MIXED_RESULTS, header=MIXED)).split('\n')
    assert lines[5:10] == [
        '% Ops    C   R   U   D   H   L       Size Range       Size Name',
        ' 75%   % 60   0  30  10   0   0        4 kB -   8 kB  tiny',
        ' 25%   %  0  50   0   0  30  20        1 MB           big',
        '-' * 77,
        '         45  12  22   8   8   5      CRUDHL weighted average',
    ]
    assert [line for line in lines if line.isupper()] == [
        'TOTAL', 'CREATE', 'READ', 'HEAD', 'LIST']
    head = lines.index('HEAD')
    assert lines[head + 1].startswith('       Count:     1 (    0 error;')
    assert ('       Last-byte  latency:  0.002 -   0.002    0.002  (  0.000)'
            '    0.002  (     big objs)  h1') in lines[head:]
    listing = lines.index('LIST')
    assert lines[listing + 1].startswith('       Count:     1 (    1 error;')


def test_csv_of_head_and_list_has_their_blocks_after_delete():
    names, values = classic.csv_rows(crafted(MIXED_RESULTS, header=MIXED))
    row = dict(zip(names, values))
    assert names.index('head_count') > names.index('read_count')
    assert names.index('list_count') > names.index('head_count')
    assert (row['head_count'], row['head_errors']) == (1, 0)
    assert (row['list_count'], row['list_errors']) == (1, 1)
    assert row['head_first_big_max'] == 0.001
    assert row['list_last_all_worst_txid'] == 'l1'


def test_text_escape_sequences_in_names_are_shown_escaped():
    # A stats file from anywhere must not recolour or retitle the
    # terminal the report is printed on.
    import copy
    scenario = copy.deepcopy(HEADER['_scenario_data'])
    scenario['sizes'][0]['name'] = u'ti\x1b[2Jny'
    scenario['initial_files'] = {u'ti\x1b[2Jny': 30, 'big': 10}
    header = dict(HEADER, name=u'Red\x1b[31m\nrun', _scenario_data=scenario)
    results = [dict(result, size_str=u'ti\x1b[2Jny')
               if result.get('size_str') == 'tiny' else result
               for result in RESULTS]
    text = render(classic.render_text, crafted(results, header=header))
    assert u'\x1b' not in text
    assert u'Red\\x1b[31m\\x0arun  (generated' in text
    assert u'ti\\x1b[2Jny' in text
    csv_text = render(classic.render_csv, crafted(RESULTS, header=header))
    assert u'"Red\\x1b[31m\\x0arun"' in csv_text

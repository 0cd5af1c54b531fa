"""Bandwidth: bytes of the successes over the run's duration, in the JSON
document and as the --bandwidth text table."""
from __future__ import absolute_import, division, print_function

import io

import pytest

from ssbench.report.compute import bandwidth
from ssbench.report.compute.analyze import analyze
from ssbench.report.render.bandwidthtable import (bandwidth_lines,
                                                  render_bandwidth_table)
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter

MiB = 1024 * 1024


def test_figures_spell_out_both_megabytes():
    assert bandwidth.figures(3 * MiB, 2.0) == {
        'bytes': 3 * MiB, 'bytes_per_second': 1.5 * MiB,
        'MB_per_second': 1.5 * MiB / 1e6, 'MiB_per_second': 1.5}
    assert bandwidth.figures(5, None)['MiB_per_second'] is None


def result(kind, size_str, size, completed, exception=None):
    record = {'type': kind, 'size_str': size_str, 'container': 'c',
              'name': 'o', 'worker_id': 1, 'completed_at': completed,
              'first_byte_latency': 0.1, 'last_byte_latency': 0.5,
              'retries': 0, 'trans_id': 'tx', 'size': size}
    if exception:
        record['exception'] = exception
        del record['first_byte_latency'], record['last_byte_latency']
    return record


@pytest.fixture
def stats(tmp_path):
    path = str(tmp_path / 'run.stats')
    header = {'_scenario_data': {'name': 'bw', 'sizes': [
        {'name': 'big', 'size_min': 1, 'size_max': 10 * MiB},
        {'name': 'small', 'size_min': 1, 'size_max': 10}]},
        'name': 'bw', 'version': '0.4.0', 'user_count': 1}
    writer = StatsWriter(path, header)
    writer.write_batch([
        result('upload_object', 'big', 10 * MiB, 1700000000.5),
        result('get_object', 'big', 10 * MiB, 1700000001.5),
        result('get_object', 'small', 7, 1700000002.25),
        result('upload_object', 'big', 10 * MiB, 1700000002.5,
               exception='503'),
    ])
    writer.close()
    return path


def test_the_document_divides_the_successes_bytes_by_the_run(stats):
    doc = analyze(open_stats(stats), (50,))
    seconds = doc['run']['duration']
    assert doc['bandwidth']['seconds'] == seconds
    ops = doc['bandwidth']['operations']
    assert sorted(ops) == ['create', 'read', 'total']
    assert ops['total']['bytes'] == 20 * MiB + 7
    assert ops['total']['bytes_per_second'] == (20 * MiB + 7) / seconds
    assert ops['read']['sizes'] == {
        'big': bandwidth.figures(10 * MiB, seconds),
        'small': bandwidth.figures(7, seconds)}
    # The failed upload's size is no byte moved.
    assert ops['create']['bytes'] == 10 * MiB


def test_the_table_names_its_units_and_rows(stats):
    doc = analyze(open_stats(stats), (50,))
    out = io.StringIO()
    render_bandwidth_table(doc, out)
    text = out.getvalue()
    seconds = doc['run']['duration']
    assert text.startswith('\nBandwidth (bytes of the successful '
                           'operations / the run\'s %.3f seconds)\n' %
                           seconds)
    assert 'MB/s: 1,000,000 bytes per second; MiB/s: 1,048,576' in text
    rows = [line.split() for line in text.splitlines()[4:]]
    assert rows[0] == ['TOTAL', '(all)', str(20 * MiB + 7),
                       '%.2f' % ((20 * MiB + 7) / seconds / 1e6),
                       '%.2f' % ((20 * MiB + 7) / seconds / MiB)]
    assert [row[0] for row in rows if len(row) == 5] == [
        'TOTAL', 'CREATE', 'READ']


def test_no_success_no_rows():
    lines = bandwidth_lines({'bandwidth': {'seconds': None,
                                           'operations': {}}})
    assert lines[-1].strip() == 'No successful operations.'


def test_a_0_3_9_file_says_what_it_does_not_record():
    from tests import paths
    import os
    doc = analyze(open_stats(os.path.join(
        paths.GOLDEN, 'swift_u8_o2000_c10.stat.gz')), (50,))
    ops = doc['bandwidth']['operations']
    # 0.3.x recorded no size on reads; a DELETE moves none.
    assert ops['read']['bytes'] is None and ops['delete']['bytes'] is None
    assert ops['read']['MiB_per_second'] is None
    assert ops['total']['bytes'] == ops['create']['bytes'] + \
        ops['update']['bytes']
    rows = [line.split() for line in bandwidth_lines(doc)[4:]]
    assert ['READ', '(all)', 'not', 'recorded', '-', '-'] in rows
    assert ['DELETE', '(all)', 'N/A', '-', '-'] in rows
    # Sizes in the scenario's order.
    assert [row[0] for row in rows[1:4]] == ['zero', 'tiny', 'small']

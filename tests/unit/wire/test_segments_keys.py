"""The `segments` key of a large object's result: what the master and the
stats readers accept."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter
from ssbench.wire import protocol
from ssbench.measure.record import is_segments
from ssbench.wire.messagecheck import check_from_worker

GOOD = {'count': 3, 'retries': 1, 'seconds': 0.75, 'slowest': 0.5}


def result(**extra):
    record = {'type': 'upload_object', 'size_str': 'big', 'container': 'c',
              'name': 'big_000001', 'worker_id': 1, 'job_id': 7,
              'completed_at': 1700000000.5, 'first_byte_latency': 0.1,
              'last_byte_latency': 0.9, 'retries': 1, 'trans_id': 'tx',
              'size': 30, 'segment_size': 10, 'large_object': 'slo'}
    record.update(extra)
    return protocol.unpack(protocol.pack(record))


BAD = [
    dict(GOOD, count=-1), dict(GOOD, seconds='1'), dict(GOOD, extra=1),
    dict((k, v) for k, v in GOOD.items() if k != 'slowest'),
    dict(GOOD, retries=True), dict(GOOD, slowest=float('nan')), [1, 2],
]


def test_a_good_segments_map_passes():
    assert is_segments(GOOD)
    assert check_from_worker(result(segments=GOOD)) is None


@pytest.mark.parametrize('value', BAD)
def test_the_master_drops_a_bad_one(value):
    assert not is_segments(value)
    assert check_from_worker(result(segments=value))[0] == 'bad segments'


def write(path, records):
    writer = StatsWriter(path, {'_scenario_data': {'name': 'x'},
                                'name': 'x', 'version': '0.4.0',
                                'user_count': 1})
    writer.write_batch(records)
    writer.close()
    return path


@pytest.mark.parametrize('raw', [False, True])
def test_stats_readers_read_good_ones(tmp_path, raw):
    path = write(str(tmp_path / 's'), [result(segments=GOOD), result()])
    batches = list(open_stats(path).iter_batches(raw=raw))
    assert sum(len(batch) for batch in batches) == 2


@pytest.mark.parametrize('raw', [False, True])
def test_stats_readers_leave_a_bad_one_out_with_one_warning(
        tmp_path, caplog, raw):
    path = write(str(tmp_path / 's'), [result(segments=dict(GOOD,
                                                            count='x')),
                                       result()])
    batches = list(open_stats(path).iter_batches(raw=raw))
    assert sum(len(batch) for batch in batches) == 1
    assert len(caplog.records) == 1 and caplog.records[0].getMessage(
    ).startswith('%s: left out 1 result with a bad value (the first: '
                 'segments {' % (path,))

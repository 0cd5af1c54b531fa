"""write_json(): valid JSON on both Pythons, and the document's schema."""
from __future__ import absolute_import, division, print_function

import io
import json
import os

import pytest

from ssbench.report.compute.analyze import analyze
from ssbench.report.compute.jsonsafe import jsonable
from ssbench.report.render.jsonfile import dumps, write_json
from ssbench.measure.rank import percentile_name
from ssbench.compat import string_types
from tests import analysis_naive as naive
from tests import paths

GOLDEN = paths.GOLDEN

try:
    INTS = (int, long)  # noqa: F821
except NameError:
    INTS = (int,)
NUMBER = INTS + (float,)


def is_int(value):
    return isinstance(value, INTS) and not isinstance(value, bool)


def is_number(value, nullable=False):
    if value is None:
        return nullable
    return isinstance(value, NUMBER) and not isinstance(value, bool)


def is_text(value, nullable=False):
    return isinstance(value, string_types) or (nullable and value is None)


def check_keys(obj, keys):
    assert isinstance(obj, dict)
    assert sorted(obj) == sorted(keys)


def check_bandwidth(bandwidth, duration, operations):
    check_keys(bandwidth, ['seconds', 'operations'])
    assert bandwidth['seconds'] == duration
    assert sorted(bandwidth['operations']) == sorted(operations)
    for entry in bandwidth['operations'].values():
        figures = [entry] + list(entry['sizes'].values())
        check_keys(entry, ['bytes', 'bytes_per_second', 'MB_per_second',
                           'MiB_per_second', 'sizes'])
        for item in figures:
            rate = item['bytes_per_second']
            if item['bytes'] is None:   # not recorded (0.3.x reads)
                assert rate is None and item['MiB_per_second'] is None
                continue
            assert is_int(item['bytes'])
            if duration:
                assert rate == item['bytes'] / duration
                assert item['MB_per_second'] == rate / 1e6
                assert item['MiB_per_second'] == rate / 1048576
            else:
                assert rate is None and item['MiB_per_second'] is None
        assert sum(item['bytes'] or 0 for item in figures[1:]) == \
            (entry['bytes'] or 0)


def check_popularity(popularity):
    if popularity is None:        # a uniform run's
        return
    check_keys(popularity, ['reads', 'objects_read', 'objects', 'hottest'])
    for key in ('reads', 'objects_read', 'objects'):
        assert is_int(popularity[key])
    assert [h['fraction'] for h in popularity['hottest']] == [0.01, 0.1]
    for hottest in popularity['hottest']:
        check_keys(hottest, ['fraction', 'objects', 'share'])
        assert is_int(hottest['objects'])
        assert is_number(hottest['share'], nullable=True)


def check_schema(doc):
    """Keys and types of the JSON document, format_version 1."""
    check_keys(doc, ['format_version', 'generator', 'stats_file', 'header',
                     'scenario', 'run', 'percentiles', 'operations',
                     'timeseries', 'errors', 'retries', 'bandwidth',
                     'popularity', 'events'] +
               (['workers'] if 'workers' in doc else []))
    assert doc['format_version'] == 1
    assert doc['generator'].startswith('ssbench ')
    assert is_text(doc['stats_file'])
    assert isinstance(doc['header'], dict)
    assert '_scenario_data' not in doc['header']
    assert isinstance(doc['scenario'], dict)
    run = doc['run']
    check_keys(run, ['name', 'version', 'worker_count', 'concurrency',
                     'start_time', 'stop_time', 'duration', 'records',
                     'skipped', 'skip_seconds'] +
               [key for key in ('protocol', 's3') if key in run])
    if 'protocol' in run:
        assert run['protocol'] == 's3'
        check_keys(run['s3'], ['endpoint_url', 'region', 'addressing',
                               'payload', 'buckets'])
    assert is_text(run['name']) and is_text(run['version'])
    for key in ('worker_count', 'concurrency', 'records', 'skipped'):
        assert is_int(run[key])
    for key in ('start_time', 'stop_time', 'duration'):
        assert is_number(run[key], nullable=True)
    assert is_number(run['skip_seconds'])
    pctile_keys = [percentile_name(p, '_') for p in doc['percentiles']]
    for op in doc['operations']:
        check_operation(op, pctile_keys)
    check_timeseries(doc['timeseries'],
                     [op['operation'] for op in doc['operations']])
    check_bandwidth(doc['bandwidth'], run['duration'],
                    [op['operation'] for op in doc['operations']])
    check_popularity(doc['popularity'])
    errors = doc['errors']
    check_keys(errors, ['recorded', 'total', 'causes'])
    assert isinstance(errors['recorded'], bool) and is_int(errors['total'])
    for cause in errors['causes']:
        check_keys(cause, ['operation', 'cause', 'status', 'error_class',
                           'count', 'first_seen', 'last_seen',
                           'example_trans_id', 'example_message'])
        assert is_text(cause['operation']) and is_text(cause['cause'])
        assert cause['status'] is None or is_int(cause['status'])
        assert is_text(cause['error_class'], nullable=True)
        assert is_int(cause['count'])
        assert is_number(cause['first_seen'])
        assert is_number(cause['last_seen'])
        assert is_text(cause['example_trans_id'], nullable=True)
        assert is_text(cause['example_message'])
    check_retries(doc['retries'], doc['operations'])
    for event in doc['events']:
        check_keys(event, ['time', 'at', 'kind', 'worker', 'text'])
        assert is_number(event['time'], nullable=True)
        assert is_number(event['at']) and is_text(event['kind'])
        assert is_text(event['text'], nullable=True)
    for worker in doc.get('workers', []):
        check_worker(worker)


def check_retries(retries, operations):
    check_keys(retries, ['total', 'auth', 'causes'])
    assert is_int(retries['total']) and is_int(retries['auth'])
    for cause in retries['causes']:
        check_keys(cause, ['operation', 'cause', 'count', 'auth'])
        assert is_text(cause['operation']) and is_text(cause['cause'])
        assert is_int(cause['count']) and cause['count'] > 0
        assert cause['auth'] is (cause['cause'] == 'HTTP 401')
    assert sum(c['count'] for c in retries['causes']) == retries['total']
    for op in operations:
        if op['operation'] == 'total':
            assert sum(op['retries_by_cause'].values()) == retries['total']
            assert op['auth_retries'] == retries['auth']


def check_worker(worker):
    check_keys(worker, ['worker_id', 'host', 'pid', 'version', 'protocol',
                        'concurrency', 'clock_offset', 'at_start', 'joined',
                        'rejoined', 'lost', 'back', 'results', 'errors'])
    assert is_int(worker['worker_id']) or is_text(worker['worker_id'])
    assert worker['at_start'] in (True, False, None)
    assert is_number(worker['joined'], nullable=True)
    for key in ('rejoined', 'lost', 'back'):
        assert worker[key] is None or all(
            is_number(t, nullable=True) for t in worker[key])
    assert is_int(worker['results']) and is_int(worker['errors'])


def check_operation(op, pctile_keys):
    check_keys(op, ['operation', 'count', 'errors', 'retries',
                    'retries_by_cause', 'auth_retries', 'reconnects',
                    'bytes', 'start', 'stop', 'req_per_s', 'throughput',
                    'latency'])
    assert op['operation'] in ('total', 'create', 'read', 'update',
                               'delete')
    for key in ('count', 'errors', 'retries', 'auth_retries'):
        assert is_int(op[key])
    assert all(is_text(cause) and is_int(count) and count > 0
               for cause, count in op['retries_by_cause'].items())
    assert sum(op['retries_by_cause'].values()) == op['retries']
    assert op['auth_retries'] == op['retries_by_cause'].get('HTTP 401', 0)
    for key in ('reconnects', 'bytes'):
        assert op[key] is None or is_int(op[key])
    for key in ('start', 'stop', 'req_per_s'):
        assert is_number(op[key], nullable=True)
    if op['throughput'] is not None:
        check_keys(op['throughput'], ['seconds', 'fastest', 'p75', 'median',
                                      'p25', 'slowest', 'iqr'])
        assert is_int(op['throughput']['seconds'])
        for key in ('fastest', 'p75', 'median', 'p25', 'slowest', 'iqr'):
            assert isinstance(op['throughput'][key], float)
    check_keys(op['latency'], ['first_byte', 'last_byte', 'all_requests'])
    for kind, entries in op['latency'].items():
        assert entries[0]['size'] is None
        assert [e['size'] for e in entries] == [
            e['size'] for e in op['latency']['last_byte']]
        extra = []
        if kind == 'all_requests':
            extra = ['failures', 'failures_without_time']
        for entry in entries:
            check_keys(entry, ['size', 'count', 'min', 'max', 'avg',
                               'std_dev', 'worst_trans_id', 'histogram'] +
                       pctile_keys + extra)
            for key in extra:
                assert is_int(entry[key]) and entry[key] >= 0
            assert is_text(entry['size'], nullable=True)
            assert is_int(entry['count'])
            for key in ['min', 'max', 'avg', 'std_dev'] + pctile_keys:
                assert is_number(entry[key], nullable=not entry['count'])
            assert is_text(entry['worst_trans_id'], nullable=True)
            for lo, hi, count in entry['histogram']:
                assert is_number(lo) and is_number(hi) and lo < hi
                assert is_int(count) and count > 0


def check_timeseries(ts, names):
    check_keys(ts, ['bucket_seconds', 'start', 'count',
                    'percentile_relative_error', 'operations'])
    assert is_int(ts['bucket_seconds']) and ts['bucket_seconds'] >= 1
    assert is_int(ts['count']) and ts['count'] <= 4000
    assert is_number(ts['start'], nullable=not ts['count'])
    assert 0 < ts['percentile_relative_error'] < 0.05
    assert sorted(ts['operations']) == sorted(names)
    for series in ts['operations'].values():
        check_keys(series, ['requests', 'errors', 'bytes', 'first_byte_p50',
                            'first_byte_p99', 'last_byte_p50',
                            'last_byte_p99'])
        for key, values in series.items():
            assert len(values) == ts['count']
            for value in values:
                if key in ('requests', 'errors', 'bytes'):
                    assert is_int(value)
                else:
                    assert is_number(value, nullable=True)


def round_trip(doc, stream):
    write_json(doc, stream)
    data = stream.getvalue()
    if isinstance(data, bytes):
        data = data.decode('ascii')
    assert data.endswith('\n') and data.count('\n') == 1
    return json.loads(data)


DOCS = {
    'random': lambda: analyze(naive.FakeStatsFile(naive.random_run(3))),
    'old': lambda: analyze(naive.FakeStatsFile(
        naive.random_run(3, new_keys=False))),
    'empty': lambda: analyze(naive.FakeStatsFile([])),
    'swift': lambda: analyze(os.path.join(GOLDEN,
                                          'swift_u8_o2000_c10.stat.gz')),
    'noop': lambda: analyze(os.path.join(GOLDEN,
                                         'noop_u4_w1_b1.run1.stat.gz')),
}


@pytest.mark.parametrize('name', sorted(DOCS))
@pytest.mark.parametrize('stream', [io.StringIO, io.BytesIO])
def test_round_trip_keeps_the_schema(name, stream):
    doc = DOCS[name]()
    check_schema(doc)
    loaded = round_trip(doc, stream())
    assert loaded == doc
    check_schema(loaded)


def test_write_json_to_a_native_file(tmp_path):
    path = str(tmp_path / 'doc.json')
    doc = {'name': u'caf\xe9', 'value': 1.5}
    with open(path, 'w') as out:
        write_json(doc, out)
    with io.open(path, 'rb') as fp:
        data = fp.read()
    assert data == b'{"name":"caf\\u00e9","value":1.5}\n'


def test_dumps_writes_what_jsonable_makes():
    obj = {b'raw': b'caf\xc3\xa9', 3: (1, float('nan')), (1, 2): object,
           True: None, 2.5: 0, u'x': [float('inf'), b'\xff']}
    assert json.loads(dumps(obj)) == jsonable(obj)


def test_header_values_are_made_json():
    header = dict(naive.HEADER, odd=float('nan'), raw=b'\x00\xff',
                  nested={1: b'one'})
    doc = analyze(naive.FakeStatsFile([naive.res()], header=header))
    assert doc['header']['odd'] is None
    assert doc['header']['raw'] == u'\x00\ufffd'
    assert doc['header']['nested'] == {u'1': u'one'}
    check_schema(json.loads(dumps(doc)))

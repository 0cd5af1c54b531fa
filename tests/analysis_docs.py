"""Hand-made analysis documents (format_version 1, SCHEMA of issue 10) for
the tests of the document's renderers."""
from __future__ import absolute_import, division, print_function

import math

START = 1795317877.0
PERCENTILES = [50, 90, 95, 99, 99.9]


def _histogram(median, count):
    """Log buckets (20 per decade) holding `count` values around median."""
    centre = int(round(20 * math.log10(median)))
    weights = [1, 4, 10, 16, 10, 4, 2, 1]
    total = sum(weights)
    rows = []
    for offset, weight in enumerate(weights):
        k = centre - 3 + offset
        rows.append([10 ** (k / 20), 10 ** ((k + 1) / 20),
                     max(1, count * weight // total)])
    return rows


def _latency_row(size, median, count, trans_id):
    hist = _histogram(median, count)
    row = {'size': size, 'count': sum(r[2] for r in hist),
           'min': hist[0][0], 'max': hist[-1][1], 'avg': median * 1.1,
           'std_dev': median / 3, 'worst_trans_id': trans_id,
           'histogram': hist}
    for pct, factor in zip(PERCENTILES, (1.0, 1.5, 1.8, 2.5, 3.5)):
        row['p' + ('%g' % pct).replace('.', '_')] = median * factor
    return row


def _empty_latency_row(size):
    row = {'size': size, 'count': 0, 'min': None, 'max': None, 'avg': None,
           'std_dev': None, 'worst_trans_id': None, 'histogram': []}
    for pct in PERCENTILES:
        row['p' + ('%g' % pct).replace('.', '_')] = None
    return row


def _operation(name, count, median, sizes, trans_id, first_byte):
    rows = [_latency_row(None, median, count, trans_id)]
    rows += [_latency_row(size, median * (1 + i), count // len(sizes),
                          trans_id) for i, size in enumerate(sizes)]
    if first_byte:
        first = [_latency_row(r['size'], median / 2, r['count'], trans_id)
                 for r in rows]
    else:
        first = [_empty_latency_row(r['size']) for r in rows]
    return {'operation': name, 'count': count, 'errors': 2, 'retries': 3,
            'reconnects': 1, 'bytes': count * 4096, 'start': START,
            'stop': START + 30, 'req_per_s': count / 30.0,
            'throughput': {'seconds': 28, 'fastest': 60.0, 'p75': 55.0,
                           'median': 50.0, 'p25': 45.0, 'slowest': 30.0,
                           'iqr': 10.0},
            'latency': {'first_byte': first, 'last_byte': rows}}


def _series(buckets, scale):
    return {'requests': [50 * scale] * buckets,
            'errors': [0] * (buckets - 1) + [1],
            'bytes': [4096 * 50 * scale] * buckets,
            'first_byte_p50': [0.01 * scale] * buckets,
            'first_byte_p99': [0.05 * scale] * buckets,
            'last_byte_p50': [0.02 * scale] * (buckets - 1) + [None],
            'last_byte_p99': [0.08 * scale] * (buckets - 1) + [None]}


def sample_doc(name='Small mixed run', sizes=('tiny', 'large'),
               trans_id='tx0123456789abcdef0123456-0000000001',
               message='SwiftError: Object PUT failed: 503',
               buckets=30):
    """A small run: CREATE and READ over two size classes, 4 errors."""
    return {
        'format_version': 1,
        'generator': 'ssbench 1.0.0',
        'stats_file': '/tmp/ssbench-results/run.stat.gz',
        'header': {'name': name, 'version': '1.0.0', 'user_count': 4,
                   'operation_count': None, 'run_seconds': 30,
                   'container_base': 'ssbench', 'container_count': 100,
                   'container_concurrency': 10, 'delete_after': None},
        'scenario': {
            'name': name,
            'sizes': [{'name': size, 'size_min': 4096 * (i + 1),
                       'size_max': 65536 * (i + 1)}
                      for i, size in enumerate(sizes)],
            'initial_files': dict((size, 100) for size in sizes),
            'crud_profile': [20, 70, 10, 0], 'user_count': 4,
            'run_seconds': 30},
        'run': {'name': name, 'version': '1.0.0', 'worker_count': 2,
                'concurrency': 4, 'start_time': START,
                'stop_time': START + 30, 'duration': 30.0,
                'records': 3004, 'skipped': 0},
        'percentiles': list(PERCENTILES),
        'operations': [
            _operation('total', 3000, 0.02, sizes, trans_id, True),
            _operation('create', 1000, 0.04, sizes, trans_id, False),
            _operation('read', 2000, 0.015, sizes, trans_id, True)],
        'timeseries': {
            'bucket_seconds': 1, 'start': START, 'count': buckets,
            'percentile_relative_error': 0.01,
            'operations': {'total': _series(buckets, 3),
                           'create': _series(buckets, 1),
                           'read': _series(buckets, 2)}},
        'errors': {
            'recorded': True, 'total': 4,
            'causes': [
                {'operation': 'create', 'cause': 'HTTP 503', 'status': 503,
                 'error_class': None, 'count': 3, 'first_seen': START + 1,
                 'last_seen': START + 29, 'example_trans_id': trans_id,
                 'example_message': message},
                {'operation': 'read', 'cause': 'ConnectionRefusedError',
                 'status': None, 'error_class': 'ConnectionRefusedError',
                 'count': 1, 'first_seen': START + 5,
                 'last_seen': START + 5, 'example_trans_id': None,
                 'example_message': '[Errno 111] Connection refused'}]},
    }


def old_file_doc():
    """A 0.3.x stats file: no status/error_class/reconnects recorded."""
    doc = sample_doc()
    for op in doc['operations']:
        op['reconnects'] = None
    doc['run']['version'] = '0.3.9'
    doc['errors'] = {
        'recorded': False, 'total': 4,
        'causes': [{'operation': 'create', 'cause': 'not recorded',
                    'status': None, 'error_class': None, 'count': 4,
                    'first_seen': START + 1, 'last_seen': START + 29,
                    'example_trans_id': None,
                    'example_message': 'ClientException: Object PUT '
                                       'failed'}]}
    return doc


def empty_doc():
    """A run with no result at all."""
    doc = sample_doc()
    doc['run'].update(start_time=None, stop_time=None, duration=None,
                      records=0, worker_count=0)
    doc['operations'] = []
    doc['timeseries'] = {'bucket_seconds': 1, 'start': START, 'count': 0,
                         'percentile_relative_error': 0.01,
                         'operations': {}}
    doc['errors'] = {'recorded': False, 'total': 0, 'causes': []}
    return doc

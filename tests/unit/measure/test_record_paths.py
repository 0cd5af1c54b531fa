"""The record spec (ssbench.measure.record) held at every limit along the
whole path of a result: the master's wire check (messagecheck, and
resultbytes on the bytes), the stats writer, the reader (statsreader) and
the reports (text with --bandwidth and --errors, and the JSON analysis).
Whatever the wire accepts, the reader keeps and the reports render; what
the wire refuses, the reader leaves out with one warning."""
from __future__ import absolute_import, division, print_function

import json
from collections import OrderedDict

import pytest

from ssbench.cli import master as cli
from ssbench.compat import text_type
from ssbench.measure import record
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter
from ssbench.wire import protocol
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire.resultbytes import ResultShapes
from tests.unit.measure.test_record import just_below
from tests.unit.results.test_statsreader import HEADER

START = 1700000000.25
# An open-loop run's header: its results' intended_start, send_lag and
# worker_time are read too.
OPEN_LOOP = dict(HEADER, rate=10.0)
# The result keys the reports read; the reader checks these.
READ_KEYS = frozenset(text_type(key) for key in (
    'completed_at', 'retries', 'first_byte_latency', 'last_byte_latency',
    'size', 'status', 'reconnects', 'time_to_failure', 'intended_start',
    'send_lag', 'worker_time'))


def success(i):
    """A Swift success of an open-loop run, in our workers' key order."""
    return OrderedDict((text_type(k), v) for k, v in (
        ('job_id', i), ('worker_id', 1), ('type', u'get_object'),
        ('size_str', u'tiny'), ('container', u'c'), ('name', u'n%d' % i),
        ('intended_start', START + i - 0.1), ('send_lag', 0.001),
        ('segment_size', None), ('limit', None), ('endpoint', None),
        ('first_byte_latency', 0.01),
        ('last_byte_latency', 0.02), ('trans_id', u'tx%d' % i),
        ('retries', 0), ('status', 200), ('size', 5), ('reconnects', 0),
        ('worker_time', 0.03), ('completed_at', START + i)))


def failure(i):
    fields = success(i)
    del fields['first_byte_latency'], fields['last_byte_latency']
    fields.update([(u'exception', u'boom'), (u'status', 503),
                   (u'error_class', None), (u'time_to_failure', 0.5)])
    return fields


def limit_cases():
    """(key, value, inside) just inside and just outside every limit of
    the spec, and of each wrong type."""
    for key, kind, _, nullable in record.FIELDS:
        if kind.bound is None:
            continue
        floats = float in kind.types
        top = float(kind.bound) if floats else int(kind.bound)
        # (A success's last byte is never None: test_record says so.)
        inside = [type(top)(0), just_below(top)] + [None] * (
            nullable and key != record.LAST_BYTE_LATENCY)
        outside = [top, type(top)(-1), True, u'1', 1e308, float('nan'),
                   float('inf')] + ([] if floats else [1.0, 2 ** 63])
        for values, good in ((inside, True), (outside, False)):
            for value in values:
                yield key, value, good


CASES = list(limit_cases())


def case_record(key, value, i=100):
    fields = failure(i) if key == 'time_to_failure' else success(i)
    fields[key] = value
    if key == 'first_byte_latency' and record.within(record.SECONDS,
                                                     value):
        fields[u'last_byte_latency'] = max(value, 0.02)
    if key == 'last_byte_latency':
        fields[u'first_byte_latency'] = None
    return fields


def test_the_cases_cover_every_limit():
    keys = set(key for key, _, _ in CASES)
    assert keys == set(key for key, kind, _, _ in record.FIELDS
                       if kind.bound is not None)
    assert READ_KEYS <= keys


@pytest.mark.parametrize('key, value, inside', CASES,
                         ids=['%s=%r' % case[:2] for case in CASES])
def test_the_wire_checks_hold_the_spec(key, value, inside):
    fields = case_record(key, value)
    decoded = protocol.unpack(protocol.pack([fields]))[0]
    accepted = check_from_worker(decoded) is None
    assert accepted is inside
    if key == 'time_to_failure':
        return      # a failure never takes the bytes' way
    shapes = ResultShapes()
    assert shapes.add(tuple(success(0)))
    scanned = shapes.scan(protocol.pack([fields]))
    if scanned is not None:
        assert accepted and scanned == ([100], 1, None)
    rule_type = float if float in record.KINDS[key].types else int
    if inside and type(value) is rule_type:
        # Exact at the limits: nothing the check takes goes the slow way.
        assert scanned == ([100], 1, None)


def write(path, records, header=OPEN_LOOP):
    writer = StatsWriter(path, header)
    writer.write_batch(records)
    writer.close()
    return path


def bad_value_warnings(caplog):
    return [r.getMessage() for r in caplog.records
            if 'with a bad value' in r.getMessage()]


def left_out_warnings(caplog):
    return [r.getMessage() for r in caplog.records
            if ': left out ' in r.getMessage()]


@pytest.mark.parametrize('raw', [False, True])
@pytest.mark.parametrize('key, value, inside', CASES,
                         ids=['%s=%r' % case[:2] for case in CASES])
def test_the_reader_keeps_what_the_wire_accepts(tmp_path, caplog, key,
                                                value, inside, raw):
    records = [success(i) for i in range(10)] + [case_record(key, value)]
    path = write(str(tmp_path / 'case.stat'), records)
    kept = sum(len(batch) for batch in
               open_stats(path).iter_batches(raw=raw))
    if inside or key not in READ_KEYS:
        assert kept == 11 and left_out_warnings(caplog) == []
        return
    assert kept == 10
    warned = left_out_warnings(caplog)
    assert len(warned) == 1 and warned[0].startswith(path + ': left out 1 ')
    if 'with a bad value' in warned[0]:
        assert ' (the first: %s ' % (key,) in warned[0]
    else:
        # A 0.3.x clock stepped back: NaN, infinite or negative seconds.
        assert 'latency' in key and not 0 <= value < float('inf')


def report(capsys, path, *flags):
    status = cli.main(['report-scenario', '-s', path] + list(flags))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize('inside', [True, False])
def test_the_reports_render_every_record_the_reader_keeps(
        tmp_path, capsys, inside):
    records = [success(i) for i in range(10)] + [
        case_record(key, value, 100 + n)
        for n, (key, value, good) in enumerate(CASES) if good is inside]
    path = write(str(tmp_path / 'cases.stat'), records)
    status, out, err = report(capsys, path, '--bandwidth', '--errors')
    assert status == 0 and 'Bandwidth' in out and 'ERROR' not in err, err
    status, out, err = report(capsys, path, '--json', '-')
    assert status == 0 and 'ERROR' not in err, err
    records_reported = json.loads(out)['run']['records']
    warned = [line for line in err.splitlines() if 'WARNING' in line]
    if inside:
        # Completed at 0 and just before MAX_EPOCH: kept, and then left
        # out as far outside the run (a worker's clock).
        assert len(warned) == 1 and 'far outside the run' in warned[0]
        assert records_reported == len(records) - 2
    else:
        assert len(warned) == 2 and all(
            'WARNING:%s: left out ' % (path,) in line for line in warned)
        assert records_reported == 10 + sum(
            1 for key, _, good in CASES if not good and
            key not in READ_KEYS)


@pytest.mark.parametrize('key, value', [
    ('size', -5), ('size', 1e308), ('size', 2 ** 63),
    ('last_byte_latency', 1e308)])
def test_bad_sizes_and_latencies_never_reach_the_figures(tmp_path, capsys,
                                                         key, value):
    clean = [success(i) for i in range(20)]
    dirty = clean[:10] + [case_record(key, value, 10)] + clean[10:]
    paths = [write(str(tmp_path / name), records) for name, records in (
        ('clean.stat', clean), ('dirty.stat', dirty))]
    outputs = []
    for path in paths:
        status, text, err = report(capsys, path, '--bandwidth', '--errors')
        assert status == 0, err
        status, out, err = report(capsys, path, '--json', '-')
        assert status == 0, err
        doc = json.loads(out)
        doc.pop('stats_file')
        outputs.append((text, doc))
    assert outputs[0] == outputs[1]
    assert '-5' not in outputs[1][0] and 'e+' not in outputs[1][0]

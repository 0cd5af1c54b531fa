from __future__ import absolute_import, division, print_function

import gzip
import io
import logging
import os
import struct
import time

import pytest

from ssbench.wire import protocol
from ssbench.results import statscheck, statsreader, timewindow
from ssbench.errors import StatsFileError
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter

HEADER = {
    '_scenario_data': {
        'name': 'Round trip', 'sizes': [
            {'name': 'tiny', 'size_min': 1, 'size_max': 9}],
        'initial_files': {'tiny': 3}, 'operation_count': 10,
        'crud_profile': [1, 1, 1, 1], 'user_count': 2},
    'name': 'Round trip', 'version': '0.4.0', 'user_count': 2,
    'operation_count': None, 'run_seconds': None, 'container_base': 'ssbench',
    'container_count': 100, 'container_concurrency': 10,
    'delete_after': None,
}


def ok(i, worker=0):
    return {'type': 'get_object', 'size_str': 'tiny',
            'container': 'ssbench_000001_default_policy',
            'name': 'tiny_%06d' % i, 'worker_id': worker,
            'completed_at': 1700000000.25 + i, 'first_byte_latency': 0.01,
            'last_byte_latency': 0.02 + i / 1000, 'retries': 0,
            'trans_id': 'tx%021x-%010x' % (i, 1700000000)}


def failed(i, worker=1):
    return {'type': 'upload_object', 'size_str': 'tiny',
            'container': 'ssbench_000002_default_policy',
            'name': 'tiny_%06d' % i, 'size': 5, 'worker_id': worker,
            'completed_at': 1700000000.5 + i, 'retries': 3,
            'exception': 'ClientException: 503', 'trans_id': None,
            'traceback': 'Traceback (most recent call last):\n  ...\n'}


BATCHES = [[ok(1), ok(2)], [failed(3)], [ok(4, worker=1)]]


def write_file(path, batches=BATCHES, gz=False):
    """Write a stats file (alternating write_raw and write_batch)."""
    writer = StatsWriter(path, HEADER)
    for i, batch in enumerate(batches):
        if i % 2:
            writer.write_batch(batch)
        else:
            writer.write_raw(protocol.pack(batch))
    if gz:
        return writer.finalize()
    writer.close()
    return path


def results(path):
    return list(open_stats(path).iter_results())


def flat(batches=BATCHES):
    return [r for batch in batches for r in batch]


def test_reads_multi_member_gzip(tmp_path):
    path = str(tmp_path / 'run.stat.gz')
    data = protocol.pack(HEADER) + b''.join(protocol.pack(b) for b in BATCHES)
    half = len(data) // 2
    with io.open(path, 'wb') as fp:
        for part in (data[:half], data[half:]):
            fp.write(gzip_bytes(part))
    assert results(path) == flat()


def gzip_bytes(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode='wb') as fp:
        fp.write(data)
    return buf.getvalue()


def test_large_file_spans_many_read_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(statsreader, 'READ_CHUNK', 4096)
    path = str(tmp_path / 'run.stat')
    batches = [[ok(i), ok(i + 1)] for i in range(0, 2000, 2)]
    gz_path = write_file(path, batches, gz=True)
    assert results(gz_path) == flat(batches)


# --- truncated files ---------------------------------------------------------

def truncate(path, size):
    with io.open(path, 'rb') as fp:
        data = fp.read()
    with io.open(path, 'wb') as fp:
        fp.write(data[:size])
    return data


def warnings_of(caplog):
    return [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_truncated_plain_file(tmp_path, caplog):
    path = write_file(str(tmp_path / 'run.stat'))
    data = truncate(path, os.path.getsize(path) - 5)
    assert len(data) > 5
    caplog.set_level(logging.INFO)
    stats_file = open_stats(path)
    assert list(stats_file.iter_results()) == flat(BATCHES[:2])
    warned = warnings_of(caplog)
    assert len(warned) == 1
    assert path in warned[0].getMessage()
    assert 'truncated' in warned[0].getMessage()


def test_truncated_gz_file(tmp_path, caplog):
    path = str(tmp_path / 'run.stat')
    batches = [[ok(i)] for i in range(3000)]
    gz_path = write_file(path, batches, gz=True)
    truncate(gz_path, os.path.getsize(gz_path) // 2)
    caplog.set_level(logging.INFO)
    got = results(gz_path)
    # Everything up to the cut, in order, and nothing invented.
    assert 0 < len(got) < 3000
    assert got == flat(batches)[:len(got)]
    warned = warnings_of(caplog)
    assert len(warned) == 1
    assert 'truncated' in warned[0].getMessage()


def test_gz_without_trailer(tmp_path, caplog):
    # Cut inside the 8-byte CRC/size trailer: all data is there.
    path = str(tmp_path / 'run.stat.gz')
    data = protocol.pack(HEADER) + protocol.pack([ok(1)])
    with io.open(path, 'wb') as fp:
        fp.write(gzip_bytes(data)[:-4])
    caplog.set_level(logging.INFO)
    assert results(path) == [ok(1)]
    assert len(warnings_of(caplog)) == 1


def test_garbage_after_header_says_each_problem_once(tmp_path, caplog):
    path = str(tmp_path / 'run.stat')
    with io.open(path, 'wb') as fp:
        fp.write(protocol.pack(HEADER) + protocol.pack([ok(1)]) +
                 protocol.pack(7) + protocol.pack({'x': 1}) + b'\xc1' * 9)
    caplog.set_level(logging.INFO)
    stats_file = open_stats(path)
    for _ in range(2):   # a second pass says nothing new
        got = list(stats_file)
        assert got[0] == ok(1)
    said = [r.getMessage().split(': ', 1)[1] for r in warnings_of(caplog)]
    assert len(said) == 2
    assert said[0] == 'skipped 1 objects that are not result batches'
    # msgpack's own words for the error differ between its versions.
    assert said[1].startswith('undecodable data (')
    assert said[1].endswith('); using the results before it')


# --- unusable files ----------------------------------------------------------

def write_bytes(path, data):
    with io.open(path, 'wb') as fp:
        fp.write(data)
    return path


def one_line_error(path):
    with pytest.raises(StatsFileError) as info:
        open_stats(path)
    message = str(info.value)
    assert '\n' not in message
    assert path in message
    return message


@pytest.mark.parametrize('name, data, words', [
    ('empty.stat', b'', 'empty'),
    ('empty.stat.gz', gzip_bytes(b''), 'empty'),
    ('text.stat', b'hello, I am not msgpack\n', 'not an ssbench stats file'),
    ('list.stat', protocol.pack([1, 2, 3]), 'not an ssbench stats file'),
    ('map.stat', protocol.pack({'name': 'x'}), 'not an ssbench stats file'),
    ('cut_header.stat', protocol.pack(HEADER)[:20], 'no complete header'),
    ('bad.stat.gz', b'\x1f\x8b' + b'\x00' * 40, 'gzip'),
    ('corrupt.stat', b'\xc1\xc1\xc1\xc1', 'not an ssbench stats file'),
    ('text.stat.gz', gzip_bytes(b'{"json": true}'), 'not an ssbench'),
])
def test_unusable_files(tmp_path, name, data, words):
    path = write_bytes(str(tmp_path / name), data)
    assert words in one_line_error(path)


def test_missing_file(tmp_path):
    message = one_line_error(str(tmp_path / 'nope.stat.gz'))
    assert 'No such file' in message


def test_directory(tmp_path):
    assert 'directory' in one_line_error(str(tmp_path))


@pytest.mark.skipif(hasattr(os, 'geteuid') and os.geteuid() == 0,
                    reason='root can read anything')
def test_unreadable_file(tmp_path):  # pragma: no cover - needs non-root
    path = write_file(str(tmp_path / 'run.stat'))
    os.chmod(path, 0)
    assert 'ermission' in one_line_error(path)


# --- the original 0.3.x reader can read our files ----------------------------

class OldSpecReader(object):
    """A msgpack reader that knows only the 2012 spec ssbench 0.3.x used.

    No str8, bin or ext types; every string is a raw byte string, as
    msgpack-python of that time returned them on Python 2.
    """

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise EOFError
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt):
        return struct.unpack('>' + fmt, self.take(struct.calcsize(fmt)))[0]

    def objects(self):
        while self.pos < len(self.data):
            yield self.read()

    def read(self):
        code = ord(self.take(1))
        if code <= 0x7f:
            return code
        if code >= 0xe0:
            return code - 0x100
        if 0x80 <= code <= 0x8f:
            return self.read_map(code & 0x0f)
        if 0x90 <= code <= 0x9f:
            return [self.read() for _ in range(code & 0x0f)]
        if 0xa0 <= code <= 0xbf:
            return self.take(code & 0x1f)
        simple = {0xc0: None, 0xc2: False, 0xc3: True}
        if code in simple:
            return simple[code]
        numbers = {0xca: 'f', 0xcb: 'd', 0xcc: 'B', 0xcd: 'H', 0xce: 'I',
                   0xcf: 'Q', 0xd0: 'b', 0xd1: 'h', 0xd2: 'i', 0xd3: 'q'}
        if code in numbers:
            return self.unpack(numbers[code])
        if code == 0xda:
            return self.take(self.unpack('H'))
        if code == 0xdb:
            return self.take(self.unpack('I'))
        if code == 0xdc:
            return [self.read() for _ in range(self.unpack('H'))]
        if code == 0xdd:
            return [self.read() for _ in range(self.unpack('I'))]
        if code == 0xde:
            return self.read_map(self.unpack('H'))
        if code == 0xdf:
            return self.read_map(self.unpack('I'))
        raise ValueError('type 0x%02x unknown to msgpack of 2012' % code)

    def read_map(self, n):
        result = {}
        for _ in range(n):
            key = self.read()
            result[key] = self.read()
        return result


def test_original_layout_reader_reads_our_files(tmp_path):
    path = str(tmp_path / 'run.stat')
    long_name = 'x' * 40  # a raw16 string, where newer msgpack has str8
    batches = [[ok(1), ok(2)], [failed(3)], [dict(ok(4), name=long_name)]]
    writer = StatsWriter(path, HEADER)
    writer.write_raw(protocol.pack(batches[0]))
    writer.write_batch(batches[1])
    writer.write_batch(batches[2])
    gz_path = writer.finalize()
    with gzip.open(gz_path, 'rb') as fp:  # the original used gzip.open
        objects = list(OldSpecReader(fp.read()).objects())

    header = objects[0]
    assert isinstance(header, dict)
    assert header[b'_scenario_data'][b'sizes'][0][b'name'] == b'tiny'
    for key in (b'name', b'version', b'user_count', b'operation_count',
                b'run_seconds', b'container_base', b'container_count',
                b'container_concurrency', b'delete_after'):
        assert key in header
    assert header[b'name'] == b'Round trip'
    assert header[b'user_count'] == 2

    stored = objects[1:]
    assert len(stored) == 3
    assert all(isinstance(batch, list) for batch in stored)
    good, bad, long_one = stored[0][0], stored[1][0], stored[2][0]
    assert good[b'type'] == b'get_object'
    assert good[b'size_str'] == b'tiny'
    assert good[b'worker_id'] == 0
    assert good[b'completed_at'] == 1700000001.25
    assert good[b'first_byte_latency'] == 0.01
    assert good[b'last_byte_latency'] == 0.021
    assert good[b'trans_id'] == b'tx000000000000000000001-006553f100'
    assert good[b'retries'] == 0
    assert bad[b'exception'] == b'ClientException: 503'
    assert bad[b'traceback'].startswith(b'Traceback')
    assert bad[b'retries'] == 3
    assert b'first_byte_latency' not in bad
    assert long_one[b'name'] == long_name.encode('ascii')


def test_reads_python2_raw_string_files(tmp_path):
    # 0.3.x wrote Python 2 str as msgpack raw; the golden files are real
    # examples, this one is minimal and has non-ASCII UTF-8 in a name.
    path = str(tmp_path / 'old.stat')
    header = dict(HEADER, name=u'caf\xe9 run')
    write_bytes(path, protocol.pack(header) + protocol.pack([ok(1)]))
    stats_file = open_stats(path)
    assert stats_file.header['name'] == u'caf\xe9 run'
    assert list(stats_file) == [ok(1)]


# --- latencies that are no measurement ---------------------------------------

NAN, INF = float('nan'), float('inf')


@pytest.mark.parametrize('first, last', [
    (0.01, -0.5), (-0.01, 0.02), (0.01, NAN), (NAN, 0.02), (None, NAN),
    (INF, INF), (0.01, INF), (0.5, 0.1), (0.01, None), (None, -1)])
@pytest.mark.parametrize('raw', [False, True])
def test_a_bad_latency_is_left_out_and_counted(tmp_path, caplog, first,
                                               last, raw):
    bad = dict(ok(2), first_byte_latency=first, last_byte_latency=last)
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[ok(1)], [failed(3), bad, ok(4)], [ok(5), bad, ok(6)]])
    stats_file = open_stats(path)
    for _ in range(2):   # two passes (text and JSON reports), one warning
        batches = list(stats_file.iter_batches(raw=raw))
        assert [len(batch) for batch in batches] == [1, 2, 2]
        if not raw:
            assert batches == [[ok(1)], [failed(3), ok(4)], [ok(5), ok(6)]]
    assert [r.getMessage() for r in caplog.records] == [
        '%s: left out 2 results whose latencies are no measurement '
        '(negative, NaN or infinite, or the last byte before the first)'
        % (path,)]


def test_good_latencies_and_other_records_pass(tmp_path):
    batches = [[dict(ok(1), first_byte_latency=None, last_byte_latency=0),
                dict(ok(2), first_byte_latency=0.5, last_byte_latency=0.5),
                dict(ok(3), first_byte_latency=0, last_byte_latency=None),
                failed(4)],
               [{'kind': 'worker_health', 'worker_id': 1}],
               [dict(ok(5), last_byte_latency=3600.0)]]
    path = write_file(str(tmp_path / 'good.stat'), batches)
    assert list(open_stats(path).iter_batches()) == batches
    assert len(list(open_stats(path).iter_batches(raw=True))) == 3


def test_a_latency_that_is_not_a_number_refuses_the_file(tmp_path):
    # A batch item that is not a map is left to the reports.
    path = write_file(str(tmp_path / 'odd.stat'),
                      [[ok(1), 7], [dict(ok(2), last_byte_latency='x')]])
    batches = open_stats(path).iter_batches()
    assert next(batches) == [ok(1), 7]
    with pytest.raises(StatsFileError) as info:
        next(batches)
    assert str(info.value).endswith("last_byte_latency 'x')")


# --- bad values refuse the file ----------------------------------------------

@pytest.mark.parametrize('key, value, shown', [
    ('retries', 'x', "retries 'x'"),
    ('retries', 2 ** 64 - 1, 'retries 18446744073709551615'),
    ('retries', -1, 'retries -1'),
    ('retries', True, 'retries True'),
    ('retries', NAN, 'retries nan'),
    ('retries', 1.5, 'retries 1.5'),
    ('completed_at', True, 'completed_at True'),
    ('completed_at', 1e300, 'completed_at 1e+300'),
    ('completed_at', -5.0, 'completed_at -5.0'),
    ('completed_at', NAN, 'completed_at nan'),
    ('completed_at', 'x' * 200, 'completed_at %s...' % (
        "'" + 'x' * 56,)),
    ('last_byte_latency', True,
     'first_byte_latency 0.01, last_byte_latency True'),
    ('first_byte_latency', False,
     'first_byte_latency False, last_byte_latency 0.022'),
])
@pytest.mark.parametrize('raw', [False, True])
def test_a_bad_value_refuses_the_file(tmp_path, key, value, shown, raw):
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[ok(1)], [ok(2), dict(ok(2), **{key: value})]])
    with pytest.raises(StatsFileError) as info:
        list(open_stats(path).iter_batches(raw=raw))
    assert str(info.value) == (
        '%s: not a valid ssbench stats file: a result has a bad value (%s)'
        % (path, shown))


@pytest.mark.parametrize('value, shown', [
    ('x', "'x'"), (-0.5, '-0.5'), (1e9, '1000000000.0'), (True, 'True'),
    (NAN, 'nan'), ([1], '[1]')])
@pytest.mark.parametrize('raw', [False, True])
def test_a_bad_time_to_failure_refuses_the_file(tmp_path, value, shown,
                                                raw):
    # As the wire checks it: a latency (0 <= x < MAX_LATENCY) of a
    # failure.
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[ok(1), dict(failed(2), time_to_failure=2.5)],
                       [dict(failed(3), time_to_failure=value)]])
    with pytest.raises(StatsFileError) as info:
        list(open_stats(path).iter_batches(raw=raw))
    assert str(info.value) == (
        '%s: not a valid ssbench stats file: a result has a bad value '
        '(time_to_failure %s)' % (path, shown))


@pytest.mark.parametrize('raw', [False, True])
def test_a_time_to_failure_is_for_failures_only(tmp_path, raw):
    good = write_file(str(tmp_path / 'good.stat'), [[
        dict(failed(1), time_to_failure=0), dict(failed(2),
                                                 time_to_failure=None),
        dict(failed(3), time_to_failure=999999999.9)]])
    assert len(list(open_stats(good).iter_results())) == 3
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[dict(ok(1), time_to_failure=0.5)]])
    with pytest.raises(StatsFileError) as info:
        list(open_stats(path).iter_batches(raw=raw))
    assert str(info.value).endswith('(time_to_failure 0.5)')


@pytest.mark.parametrize('value', [1e300, -1.0, 'soon', True, [1]])
def test_a_bad_intended_start_refuses_an_open_loop_file(tmp_path, value):
    path = str(tmp_path / 'rate.stat')
    writer = StatsWriter(path, dict(HEADER, rate=10.0))
    writer.write_batch([dict(ok(1), intended_start=1700000000.0),
                        dict(ok(2), intended_start=value)])
    writer.close()
    with pytest.raises(StatsFileError) as info:
        list(open_stats(path).iter_batches())
    assert 'a result has a bad value (intended_start ' in str(info.value)
    # A file of a closed-loop run does not read intended_start.
    plain = write_file(str(tmp_path / 'plain.stat'),
                       [[dict(ok(1), intended_start=value)]])
    assert len(results(plain)) == 1


def scenario_with(**values):
    return dict(HEADER['_scenario_data'], **values)


@pytest.mark.parametrize('changes, shown', [
    ({'user_count': 'abc'}, "user_count 'abc'"),
    ({'user_count': True}, 'user_count True'),
    ({'name': [1]}, 'name [1]'),
    ({'delete_after': [1]}, 'delete_after [1]'),
    ({'rate': 'fast'}, "rate 'fast'"),
    ({'rate': True}, 'rate True'),
    ({'_scenario_data': [1]}, '_scenario_data [1]'),
    ({'_scenario_data': scenario_with(sizes='abc')},
     "sizes 'abc'"),
    ({'_scenario_data': scenario_with(sizes=[5])}, 'sizes [5]'),
    ({'_scenario_data': scenario_with(sizes=[{'name': 'a',
                                              'size_min': 'x'}])},
     "sizes: size_min 'x'"),
    ({'_scenario_data': scenario_with(initial_files=[1])},
     'initial_files [1]'),
    ({'_scenario_data': scenario_with(crud_profile='abc')},
     "crud_profile 'abc'"),
    ({'_scenario_data': scenario_with(crud_profile=[1, True, 1, 1])},
     'crud_profile [1, True, 1, 1]'),
])
def test_a_bad_header_value_refuses_the_file(tmp_path, changes, shown):
    path = str(tmp_path / 'bad.stat')
    write_bytes(path, protocol.pack(dict(HEADER, **changes)) +
                protocol.pack([ok(1)]))
    with pytest.raises(StatsFileError) as info:
        open_stats(path)
    assert str(info.value) == (
        '%s: not a valid ssbench stats file: the header has a bad value '
        '(%s)' % (path, shown))


def test_header_values_0_3_x_may_leave_out_pass(tmp_path):
    header = dict(HEADER, user_count=None, delete_after=None,
                  warmup='what', _scenario_data={'sizes': None})
    path = str(tmp_path / 'sparse.stat')
    write_bytes(path, protocol.pack(header) + protocol.pack([ok(1)]))
    assert results(path) == [ok(1)]


# --- results far outside the run --------------------------------------------

def test_a_result_far_outside_the_run_is_left_out_after_narrow(
        tmp_path, caplog):
    stray = dict(ok(7), completed_at=5.0)
    batches = [[ok(i) for i in range(1, 6)], [stray, ok(6)],
               [{'kind': 'worker_health', 'worker_id': 1}]]
    path = write_file(str(tmp_path / 'stray.stat'), batches)
    stats_file = open_stats(path)
    assert stats_file.narrow() is False         # no full pass yet
    assert len(list(stats_file.iter_results())) == 7
    assert stats_file.narrow() is True
    assert stats_file.narrow() is False         # once
    for raw in (False, True, False):
        got = [r for batch in stats_file.iter_batches(raw=raw)
               for r in batch]
        assert len(got) == 7
    assert stray not in list(stats_file.iter_results())
    # Seven results: the 1st percentile is the stray itself, so the
    # window is the widest one around the median.
    lo, hi = stats_file.window
    assert hi - lo == timewindow.MAX_WIDTH
    assert [r.getMessage() for r in caplog.records] == [
        "%s: left out 1 result completed far outside the run (before "
        "%s or after %s UTC: a worker's clock?)" % (
            path, utc(lo), utc(hi))]


def utc(seconds):
    return time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(seconds))


def test_a_run_without_strays_is_never_read_again(tmp_path, caplog):
    path = write_file(str(tmp_path / 'good.stat'))
    stats_file = open_stats(path)
    list(stats_file.iter_batches(raw=True))
    assert stats_file.narrow() is False
    assert stats_file.window is False
    assert results(path) == flat()
    assert not caplog.records


def test_a_pass_cut_short_profiles_nothing(tmp_path):
    path = write_file(str(tmp_path / 'stray.stat'),
                      [[dict(ok(1), completed_at=5.0)], [ok(2)], [ok(3)]])
    stats_file = open_stats(path)
    batches = stats_file.iter_batches()
    next(batches)
    batches.close()
    assert stats_file.narrow() is False and stats_file.window is None


# --- a run that ended early -------------------------------------------------

@pytest.mark.parametrize('header, count, span, words', [
    ({'operation_count': 10}, 4, 3.0,
     'holds 4 results of the 10 operations its run asked for: the run '
     'ended early (a master stopped before the end?); the report is of '
     'those results'),
    ({'operation_count': 10}, 1, 0.0, 'holds 1 result of the 10 '),
    ({'run_seconds': 60}, 50, 20.0,
     'its results span 20 s of the 60 s its run asked for: the run ended '
     'early'),
    ({'run_seconds': 600}, 50, 530.0, 'its results span 530 s of the 600'),
    ({'operation_count': 10}, 10, 3.0, None),
    ({'operation_count': 10}, 12, 3.0, None),
    ({'run_seconds': 60}, 50, 56.0, None),
    ({'run_seconds': 2}, 5, 0.0, None),          # within 5 s
    ({'run_seconds': 600}, 50, 541.0, None),     # within 10%
    ({'run_seconds': 60, 'rate': 0.1}, 2, 10.0, None),
    ({'operation_count': 'x'}, 1, 0.0, None),
    ({'operation_count': True}, 0, 0.0, None),
    ({}, 1, 0.0, None),
])
def test_ended_early(header, count, span, words):
    got = statscheck.ended_early(header, count, 1e9, 1e9 + span)
    if words is None:
        assert got is None
    else:
        assert got.startswith(words)


def test_a_file_cut_short_says_so_once(tmp_path, caplog):
    path = str(tmp_path / 'killed.stat')
    writer = StatsWriter(path, dict(HEADER, operation_count=10))
    writer.write_batch([ok(1), failed(2)])
    writer.write_batch([ok(3)])
    writer.close()
    stats_file = open_stats(path)
    for raw in (False, True):
        assert len(list(stats_file.iter_batches(raw=raw))) == 2
    assert [r.getMessage() for r in caplog.records] == [
        '%s: holds 3 results of the 10 operations its run asked for: the '
        'run ended early (a master stopped before the end?); the report '
        'is of those results' % (path,)]


def test_a_truncated_file_says_so_once(tmp_path, caplog):
    path = str(tmp_path / 'killed.stat')
    writer = StatsWriter(path, dict(HEADER, operation_count=10))
    writer.write_batch([ok(1), failed(2)])
    writer.write_batch([ok(3)])
    writer.close()
    truncate(path, os.path.getsize(path) - 3)
    assert len(results(path)) == 2
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1
    assert messages[0].startswith('%s: truncated (' % (path,))
    assert messages[0].endswith(
        'incomplete bytes at the end); using the results before it')

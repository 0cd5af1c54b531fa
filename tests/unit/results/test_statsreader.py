from __future__ import absolute_import, division, print_function

import gzip
import io
import logging
import os
import struct

import pytest

from ssbench.wire import protocol
from ssbench.results import statsreader
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


def test_growing_plain_file_ends_at_its_last_whole_batch(tmp_path, caplog):
    # A batch the master is still writing: the results before it, quietly.
    path = write_file(str(tmp_path / 'run.stat'))
    truncate(path, os.path.getsize(path) - 5)
    stats_file = open_stats(path, growing=True)
    assert list(stats_file.iter_results()) == flat(BATCHES[:2])
    assert not stats_file.truncated
    assert warnings_of(caplog) == []


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

"""ssbench.results.statswriter: the stats file as the master writes it."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import os
import time

import pytest

from ssbench.wire import protocol
from ssbench.results import statswriter
from ssbench.errors import StatsFileError
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter, default_stats_path
from tests.unit.results.test_statsreader import (BATCHES, HEADER, flat, ok,
                                                 results)


def test_a_directory_that_cannot_be_created_is_one_error(tmp_path):
    (tmp_path / 'file').write_bytes(b'')
    parent = str(tmp_path / 'file' / 'sub')
    with pytest.raises(StatsFileError) as info:
        StatsWriter(os.path.join(parent, 'run.stat'), HEADER)
    assert str(info.value).startswith(
        '%s: cannot create directory: ' % parent)


# --- default_stats_path ------------------------------------------------------

def test_default_stats_path_op_count():
    now = 1700000000.0
    stamp = time.strftime('%Y-%m-%d.%H%M%S', time.localtime(now))
    assert default_stats_path('Small test scenario', 4, 500, None, now) == (
        '/tmp/ssbench-results/Small_test_scenario.u4.o500.r-.%s.stat'
        % stamp)


def test_default_stats_path_run_seconds_and_odd_names():
    now = 1700000000.0
    stamp = time.strftime('%Y-%m-%d.%H%M%S', time.localtime(now))
    path = default_stats_path('a b/c\td', 16, None, 60, now)
    assert path == '/tmp/ssbench-results/a_b_c_d.u16.o-.r60.%s.stat' % stamp


def test_default_stats_path_uses_the_clock():
    path = default_stats_path('x', 1, 1, None)
    assert path.startswith('/tmp/ssbench-results/x.u1.o1.r-.')
    assert path.endswith('.stat')
    stamp = path.split('.r-.')[1][:-len('.stat')]
    time.strptime(stamp, '%Y-%m-%d.%H%M%S')


# --- round trips -------------------------------------------------------------

def test_round_trip_plain_then_gz(tmp_path):
    path = str(tmp_path / 'deep' / 'dir' / 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer.write_raw(protocol.pack(BATCHES[0]))
    writer.write_batch(BATCHES[1])
    writer.write_batch(BATCHES[2])
    writer.flush()
    stats_file = open_stats(path)
    assert stats_file.header == HEADER
    assert list(stats_file.iter_results()) == flat()
    # Re-iterable: every pass re-opens the file.
    assert list(stats_file.iter_results()) == flat()
    assert list(stats_file.iter_batches()) == BATCHES

    gz_path = writer.finalize()
    assert gz_path == path + '.gz'
    assert not os.path.exists(path)
    assert not os.path.exists(gz_path + '.tmp')
    with gzip.open(gz_path, 'rb') as fp:  # a standard gzip file
        assert fp.read(1)
    stats_file = open_stats(gz_path)
    assert stats_file.header == HEADER
    assert list(stats_file) == flat()


def test_finalize_returns_gz_and_removes_plain(tmp_path):
    path = str(tmp_path / 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer.write_batch([ok(1)])
    gz_path = writer.finalize()
    assert gz_path == path + '.gz'
    assert os.listdir(str(tmp_path)) == ['run.stat.gz']
    assert results(gz_path) == [ok(1)]


def test_finalize_writes_exactly_the_final_path(tmp_path):
    path = str(tmp_path / 'run.stat')
    writer = StatsWriter(path, HEADER, str(tmp_path / 'chosen.gz'))
    writer.write_batch([ok(1)])
    assert writer.finalize() == str(tmp_path / 'chosen.gz')
    assert os.listdir(str(tmp_path)) == ['chosen.gz']
    assert results(str(tmp_path / 'chosen.gz')) == [ok(1)]


def test_a_failed_finalize_keeps_the_plain_file(tmp_path, monkeypatch):
    path = str(tmp_path / 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer.write_batch([ok(1)])

    def full_disk(src, dst, level):
        raise IOError(28, 'No space left on device')
    monkeypatch.setattr(statswriter, 'gzip_file', full_disk)
    with pytest.raises(StatsFileError) as info:
        writer.finalize()
    assert 'No space left' in str(info.value)
    assert os.listdir(str(tmp_path)) == ['run.stat']
    assert results(path) == [ok(1)]


def test_the_writer_does_not_follow_a_planted_link(tmp_path):
    victim = tmp_path / 'victim'
    victim.write_text(u'precious')
    os.symlink(str(victim), str(tmp_path / 'run.stat'))
    with pytest.raises(StatsFileError):
        StatsWriter(str(tmp_path / 'run.stat'), HEADER)
    assert victim.read_text() == u'precious'


def test_write_raw_stores_bytes_verbatim(tmp_path):
    path = str(tmp_path / 'run.stat')
    raw = protocol.pack([ok(7)])
    writer = StatsWriter(path, HEADER)
    writer.write_raw(raw)
    writer.close()
    with io.open(path, 'rb') as fp:
        assert fp.read() == protocol.pack(HEADER) + raw


def test_data_reaches_the_file_without_close(tmp_path, monkeypatch):
    # A master that dies without closing leaves a readable file: the
    # header at once, batches within FLUSH_INTERVAL (0 here) or flush().
    path = str(tmp_path / 'run.stat')
    monkeypatch.setattr(statswriter, 'FLUSH_INTERVAL', 0)
    writer = StatsWriter(path, HEADER)
    assert open_stats(path).header == HEADER
    writer.write_raw(protocol.pack([ok(1)]))
    assert results(path) == [ok(1)]
    monkeypatch.setattr(statswriter, 'FLUSH_INTERVAL', 3600)
    writer.write_batch([ok(2)])
    writer.flush()
    assert results(path) == [ok(1), ok(2)]
    writer.close()


def test_writer_unwritable_path(tmp_path):
    blocker = tmp_path / 'file'
    blocker.write_text(u'x')
    with pytest.raises(StatsFileError) as info:
        StatsWriter(str(blocker / 'sub' / 'run.stat'), HEADER)
    assert '\n' not in str(info.value)


# --- a full disk while writing -----------------------------------------------

class FullDisk(object):
    """A file object that fails as a full disk does: `fail_at` is the call
    ('write', 'flush' or 'close') that raises ENOSPC."""

    def __init__(self, real, fail_at):
        self.real = real
        self.fail_at = fail_at

    def _maybe_fail(self, call):
        if call == self.fail_at:
            raise IOError(28, 'No space left on device')

    def write(self, data):
        self._maybe_fail('write')
        return self.real.write(data)

    def flush(self):
        self._maybe_fail('flush')
        self.real.flush()

    @property
    def closed(self):
        return self.real.closed

    def close(self):
        # As io's close: flush (which may fail), then close regardless.
        try:
            self._maybe_fail('close')
        finally:
            self.real.close()


@pytest.mark.parametrize('fail_at', ['write', 'flush', 'close'])
def test_a_full_disk_is_one_line_naming_the_file(tmp_path, fail_at):
    path = str(tmp_path / 'run.stat')
    writer = StatsWriter(path, HEADER)
    writer._fp = FullDisk(writer._fp, fail_at)
    with pytest.raises(StatsFileError) as info:
        writer.write_batch([ok(1)])
        writer.flush()
        writer.finalize()
    assert str(info.value) == '%s: cannot write: No space left on ' \
        'device' % path
    writer.close()      # closed all the same
    assert writer._fp.closed and os.listdir(str(tmp_path)) == ['run.stat']


def test_a_full_disk_at_close_through_the_cli(tmp_path, monkeypatch):
    # What run-scenario prints when finalizing fails: one line, status 1.
    from ssbench.cli.common import run_command

    def run(args):
        writer = StatsWriter(path, HEADER)
        writer.write_batch([ok(1)])
        writer._fp = FullDisk(writer._fp, 'close')
        writer.finalize()
    path = str(tmp_path / 'run.stat')
    records = []
    monkeypatch.setattr('ssbench.cli.common.log.error',
                        lambda *args: records.append(args[0] % args[1:]))
    assert run_command(run, None, False) == 1
    assert records == ['%s: cannot write: No space left on device' % path]


@pytest.mark.skipif(not os.path.exists('/dev/full'), reason='no /dev/full')
def test_a_real_full_device():
    # /dev/full answers every write with ENOSPC: here, the header's flush.
    with pytest.raises(StatsFileError) as info:
        StatsWriter('/dev/full', HEADER)
    assert str(info.value) == '/dev/full: cannot write: No space left on ' \
        'device'

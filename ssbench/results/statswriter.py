"""Stats files, the writing side: result batches appended as they
arrive, the file gzipped at the end of the run (docs/internals.rst, "The
stats file"; the reading side is ssbench.results.statsreader).
"""
from __future__ import absolute_import, division, print_function

import io
import os
import re
import tempfile
import time
import zlib

from ssbench.wire import protocol
from ssbench.compat import makedirs, monotonic
from ssbench.errors import StatsFileError

DEFAULT_RESULTS_DIR = '/tmp/ssbench-results'
# The original used gzip(1)'s default, 6; level 3 makes files some 14%
# larger (measured on 0.3.9's own stats files) for half the CPU, which the
# master spends per request of the run (docs/performance.rst).
GZIP_LEVEL = 3
# Buffered results reach the file at most this long after they arrived,
# so a crashed master loses well under a second of results.
FLUSH_INTERVAL = 0.1
# Bytes per read while compressing.
COPY_CHUNK = 1 << 18
# The plain file's buffer: a system call per this many bytes of results
# (or per FLUSH_INTERVAL, whichever comes first) instead of per 8 KiB.
WRITE_BUFFER = 1 << 18


def default_stats_path(scenario_name, user_count, operation_count,
                       run_seconds, now=None):
    """The default stats file path for a run (docs/usage.rst), local
    time."""
    name = re.sub(r'[\s/]', '_', scenario_name)
    stamp = time.strftime('%Y-%m-%d.%H%M%S',
                          time.localtime(time.time() if now is None else now))
    return os.path.join(DEFAULT_RESULTS_DIR, '%s.u%s.o%s.r%s.%s.stat' % (
        name, user_count, operation_count or '-', run_seconds or '-', stamp))


class StatsWriter(object):
    """Appends result batches to a plain stats file; gzips it at the end.

    The header is written at once.  Batches go through a buffer that is
    flushed at least every FLUSH_INTERVAL seconds (checked on each write,
    and whenever the owner calls flush()), which costs far less than a
    system call per batch while keeping the file readable after a crash.
    """

    def __init__(self, path, header, final_path=None):
        self.path = path
        self.final_path = final_path or path + '.gz'
        parent = os.path.dirname(path)
        if parent and not os.path.isdir(parent):
            try:
                makedirs(parent)
            except OSError as exc:
                raise StatsFileError('%s: cannot create directory: %s' % (
                    parent, exc.strerror))
        # O_NOFOLLOW: a link planted at our path can't redirect the write.
        flags = (os.O_WRONLY | os.O_CREAT | os.O_TRUNC |
                 getattr(os, 'O_NOFOLLOW', 0))
        try:
            self._fp = io.open(os.open(path, flags, 0o644), 'wb',
                               buffering=WRITE_BUFFER)
        except (IOError, OSError) as exc:
            raise StatsFileError('%s: %s' % (path, exc.strerror))
        self._flushed_at = monotonic()
        #: The first failure to write (a full disk), once there was one:
        #: what is in the file then is all that will be.
        self.error = None
        try:
            self.write_raw(protocol.pack(header))
            self.flush()
        except StatsFileError as error:
            try:
                self._fp.close()
            except (IOError, OSError):
                pass        # the same failure again
            raise error     # (a bare raise would re-raise that on 2.7)

    def write_raw(self, data):
        """Append one packed batch, byte for byte as a worker sent it."""
        try:
            self._fp.write(data)
        except (IOError, OSError) as exc:
            raise self._cannot_write(exc)
        if monotonic() - self._flushed_at >= FLUSH_INTERVAL:
            self.flush()

    def write_batch(self, results):
        """Pack a list of result maps and append it as one batch."""
        self.write_raw(protocol.pack(list(results)))

    def flush(self):
        """Push buffered bytes to the OS (the file is then crash-safe)."""
        try:
            self._fp.flush()
        except (IOError, OSError) as exc:
            raise self._cannot_write(exc)
        self._flushed_at = monotonic()

    def close(self):
        """Flush and close the plain file (idempotent); a failure (say a
        full disk) raises StatsFileError and still closes it."""
        if not self._fp.closed:
            try:
                self._fp.close()
            except (IOError, OSError) as exc:
                raise self._cannot_write(exc)

    def _cannot_write(self, exc):
        error = StatsFileError('%s: cannot write: %s' % (
            self.path, exc.strerror or exc))
        if self.error is None:
            self.error = error
        return error

    def finalize(self, level=GZIP_LEVEL):
        """Close, gzip to `final_path`, remove the plain file.

        Streams in chunks, so memory stays flat whatever the file size.
        The .gz is written under a fresh temporary name and renamed, so an
        interrupted finalize leaves the plain file intact.  Returns the
        path of the .gz file.
        """
        self.close()
        gz_path = self.final_path
        tmp_path = None
        try:
            fd, tmp_path = tempfile.mkstemp(
                dir=os.path.dirname(os.path.abspath(gz_path)),
                prefix='.%s.' % os.path.basename(gz_path)[:200],
                suffix='.tmp')
            os.close(fd)
            gzip_file(self.path, tmp_path, level)
            os.chmod(tmp_path, 0o644)
            os.rename(tmp_path, gz_path)
        except (IOError, OSError) as exc:
            if tmp_path is not None and os.path.exists(tmp_path):
                os.unlink(tmp_path)
            raise StatsFileError('%s: cannot compress: %s' % (
                self.path, exc.strerror or exc))
        os.remove(self.path)
        return gz_path

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()


def gzip_file(src, dst, level=GZIP_LEVEL):
    """Compress ``src`` into gzip file ``dst`` in bounded memory."""
    # wbits 16 + 15: zlib writes the gzip header and CRC trailer itself.
    comp = zlib.compressobj(level, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    with io.open(src, 'rb') as fin:
        with io.open(dst, 'wb') as fout:
            while True:
                chunk = fin.read(COPY_CHUNK)
                if not chunk:
                    break
                fout.write(comp.compress(chunk))
            fout.write(comp.flush())

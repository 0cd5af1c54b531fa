"""Stats files, the reading side.

A stats file is a msgpack stream: one header map (with ``_scenario_data``),
then result batches (arrays of result maps) exactly as workers sent them.
The master writes a plain file during the run and gzips it at the end
(docs/internals.rst, "The stats file"; ssbench.results.statswriter).
Readers accept gzip and plain files, from ssbench 0.3.x and from this
project, and read a truncated file up to its last complete object.  The
plain file of a master still running can be read too
(open_stats(growing=True)).  What the values in it must be is
ssbench.results.statscheck.
"""
from __future__ import absolute_import, division, print_function

import io
import logging
import os
import threading
import zlib

from ssbench.wire import protocol
from ssbench.compat import queue
from ssbench.results import statscheck, timewindow
from ssbench.errors import StatsFileError

log = logging.getLogger(__name__)

GZIP_MAGIC = b'\x1f\x8b'
# Decompressed bytes per chunk handed from the reader thread to the decoder.
READ_CHUNK = 1 << 18
# Chunks the reader thread may run ahead of the decoder (bounds memory).
READ_AHEAD = 4

_HEADER_KEY_RAW = statscheck.HEADER_KEY.encode('ascii')


class _Truncated(Exception):
    """Internal: the compressed stream ended early or went bad."""


def _member_ended(dec):
    """Whether a zlib decompressor has seen the end of its gzip member."""
    eof = getattr(dec, 'eof', None)
    if eof is not None:
        return eof
    # Python 2 has no .eof: after the end, input lands in unused_data.
    return bool(dec.unused_data)


def _iter_gunzip(fp, first):
    """Decompress (possibly multi-member) gzip data; _Truncated at a cut."""
    data = first
    while data:
        dec = zlib.decompressobj(16 + zlib.MAX_WBITS)
        while True:
            try:
                out = dec.decompress(data, READ_CHUNK)
                while out:
                    yield out
                    out = dec.decompress(dec.unconsumed_tail, READ_CHUNK)
            except zlib.error as exc:
                raise _Truncated(str(exc))
            if _member_ended(dec):
                data = dec.unused_data
                break
            data = fp.read(READ_CHUNK)
            if data:
                continue
            if not hasattr(dec, 'eof'):
                # Python 2: a finished stream puts a probe byte aside.
                try:
                    dec.decompress(b'\0')
                except zlib.error:
                    pass
                if dec.unused_data == b'\0':
                    break
            raise _Truncated('compressed data ends early')
        if not data:
            data = fp.read(READ_CHUNK)
        # Some writers pad a gzip file with NULs after the last member.
        if data and not data.strip(b'\0'):
            return


class _ChunkReader(object):
    """Reads and decompresses a file in a background thread.

    zlib releases the GIL, so inflating runs in parallel with msgpack
    decoding in the consumer.  The queue bounds the read-ahead.
    """

    def __init__(self, path):
        try:
            self._fp = io.open(path, 'rb')
        except (IOError, OSError) as exc:
            raise StatsFileError('%s: %s' % (path, exc.strerror or exc))
        self.path = path
        self._queue = queue.Queue(READ_AHEAD)
        self._stop = False
        self._thread = threading.Thread(target=self._run,
                                        name='ssbench-statsfile-reader')
        self._thread.daemon = True
        self._thread.start()

    def _run(self):
        try:
            first = self._fp.read(READ_CHUNK)
            if first[:2] == GZIP_MAGIC:
                chunks = _iter_gunzip(self._fp, first)
            else:
                if first:
                    self._put(('data', first))
                chunks = iter(lambda: self._fp.read(READ_CHUNK), b'')
            for chunk in chunks:
                if not self._put(('data', chunk)):
                    return
            self._put(('end', None))
        except _Truncated as exc:
            self._put(('truncated', str(exc)))
        except (IOError, OSError) as exc:
            self._put(('error', exc.strerror or str(exc)))
        except Exception as exc:  # never leave the consumer waiting
            self._put(('error', str(exc)))
        finally:
            self._fp.close()

    def _put(self, item):
        while not self._stop:
            try:
                self._queue.put(item, timeout=0.1)
                return True
            except queue.Full:
                continue
        return False

    def __iter__(self):
        """Yields ('data', bytes) ... then ('end'|'truncated'|'error', msg)."""
        try:
            while True:
                item = self._queue.get()
                yield item
                if item[0] != 'data':
                    return
        finally:
            self.close()

    def close(self):
        """Stop the reader thread (early: only the header was wanted)."""
        self._stop = True
        # Make room so a producer blocked on a full queue sees the flag now.
        try:
            while True:
                self._queue.get_nowait()
        except queue.Empty:
            pass
        self._thread.join()


def _is_header(obj):
    return isinstance(obj, dict) and (statscheck.HEADER_KEY in obj or
                                      _HEADER_KEY_RAW in obj)


class StatsFile(object):
    """A stats file opened for reading; see open_stats()."""

    def __init__(self, path, growing=False):
        self.path = path
        #: Whether a master may still be writing the file (open_stats()).
        self.growing = growing
        self._warned = set()
        # The completion times of the first full pass (profiled()), then
        # the window of them the reports keep (ssbench.results.timewindow):
        # None while unknown, False when every result is kept.
        self._profile = None
        self.window = None
        #: {worker id: seconds ahead} whose completion times later passes
        #: put on the master's clock (ssbench.results.clockrecords); None
        #: until a full pass found them.
        self.offsets = None
        #: The window of a small file's results on the master's clock
        #: (timewindow.idle_window()): None while unknown, False when
        #: every result is kept.
        self.idle_window = None
        self._spans = None
        #: Whether a full pass found the file cut short (and said so).
        self.truncated = False
        #: iter_batches(raw=True) leaves strings as bytes (other sources
        #: of batches, such as a RecordView, may not).
        self.raw_strings = True
        self.header = self._read_header()

    def _bad(self, why):
        return StatsFileError('%s: %s' % (self.path, why))

    def _read_header(self):
        if os.path.isdir(self.path):
            raise self._bad('is a directory')
        objects = self._objects(False)
        try:
            header = next(objects)
        finally:
            objects.close()
        problem = statscheck.header_problem(header)
        if problem:
            raise self._bad('not a valid ssbench stats file: the header '
                            'has a bad value (%s %s)' % problem)
        return header

    def _objects(self, raw):
        """Yield the header, then each result batch (a list of maps).

        The file is validated as it goes: anything wrong before the header
        is complete raises StatsFileError; a problem after it ends the
        stream with one warning (the rest is unreadable anyway).  Objects
        that are not arrays are skipped (one warning); a lone map is taken
        as a batch of one.
        """
        unpacker = protocol.unpacker(raw)
        fed = 0
        header = None
        problem = None
        skipped = 0
        for kind, payload in _ChunkReader(self.path):
            if kind == 'data':
                unpacker.feed(payload)
                fed += len(payload)
                try:
                    for obj in unpacker:
                        if type(obj) is list and header is not None:
                            yield obj
                        elif header is None:
                            if not _is_header(obj):
                                raise self._bad('not an ssbench stats file')
                            header = obj
                            yield header
                        elif isinstance(obj, (list, tuple)):
                            yield list(obj)
                        elif isinstance(obj, dict):
                            yield [obj]
                        else:
                            skipped += 1
                except StatsFileError:
                    raise
                except Exception as exc:  # msgpack raises many types
                    if header is None:
                        raise self._bad('not an ssbench stats file (%s)' % (
                            exc.__class__.__name__,))
                    problem = 'undecodable data (%s)' % (exc,)
                    break
                continue
            if kind == 'error':
                raise self._bad(payload)
            if kind == 'truncated':
                if header is None and fed == 0:
                    raise self._bad('not a valid gzip file (%s)' % (payload,))
                problem = 'truncated (%s)' % (payload,)
            elif unpacker.tell() < fed and not self.growing:
                problem = 'truncated (%d incomplete bytes at the end)' % (
                    fed - unpacker.tell(),)
            break
        if header is None:
            if fed == 0 and problem is None:
                raise self._bad('empty stats file')
            raise self._bad('not an ssbench stats file (no complete header)')
        if skipped:
            self.warn_once('skipped %d objects that are not result '
                           'batches' % (skipped,))
        if problem:
            self.truncated = True
            self.warn_once(problem + '; using the results before it')

    def profiled(self, profile, offsets=None, spans=None):
        """Keep the completion times a full pass profiled (a
        timewindow.TimeProfile), the workers' clock `offsets` it found
        (clockrecords.corrections()) and, for a small file, its results'
        (began, completed) `spans` on the master's clock, for narrow()."""
        self._profile = profile
        self._offsets = offsets
        self._spans = spans

    def narrow(self):
        """After a full pass: True when some results lie far outside the
        run (ssbench.results.timewindow) or some worker's clock was off
        (ssbench.results.clockrecords); every later pass leaves the former
        out and puts the latter's completion times on the master's clock,
        so what the last pass built must be built again."""
        if self.window is not None or self._profile is None:
            return False
        self.window = self._profile.window() or False
        self.idle_window = self._spans is not None and \
            timewindow.idle_window(self._spans) or False
        self._profile = self._spans = None
        self.offsets = self._offsets or None
        return bool(self.window) or bool(self.offsets) or \
            bool(self.idle_window)

    def warn_once(self, message):
        """Log `message` about this file once, however many passes read
        it."""
        if message not in self._warned:
            self._warned.add(message)
            log.warning('%s: %s', self.path, message)

    def iter_batches(self, raw=False):
        """Yield each result batch (a list of result maps), in file order.

        With ``raw=True`` strings (keys too) may be left as undecoded
        bytes, which is faster; ``raw_strings`` says whether they are.
        """
        objects = self._objects(raw)
        next(objects)  # the header
        return statscheck.measured(objects, raw, self)

    def iter_results(self):
        """Yield every result map in file order (re-opens the file); the
        control records (maps without ``completed_at``, such as worker
        health: docs/internals.rst, "Records") are left out, as 0.3.x
        leaves them out."""
        for batch in self.iter_batches():
            for result in batch:
                if not isinstance(result, dict) or 'completed_at' in result:
                    yield result

    __iter__ = iter_results


def open_stats(path, growing=False):
    """Open a stats file (.gz or plain); raises StatsFileError if unusable.

    The returned object has ``.header`` (a dict) and can be iterated any
    number of times with ``iter_results()`` or ``iter_batches()``.  With
    ``growing=True`` the file is the plain file of a master still running:
    a batch still being written at its end is left out, and neither that
    nor results spanning less than the run asked for is warned about
    (they are what such a file holds, not a run cut short).
    """
    return StatsFile(path, growing)

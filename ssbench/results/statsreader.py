"""Stats files, the reading side.

A stats file is a msgpack stream: one header map (with ``_scenario_data``),
then result batches (arrays of result maps) exactly as workers sent them.
The master writes a plain file during the run and gzips it at the end
(SPEC section 4; ssbench.results.statswriter).  Readers accept gzip and plain
files, from ssbench 0.3.x and from this project, and read a truncated file
up to its last complete object.
"""
from __future__ import absolute_import, division, print_function

import io
import logging
import os
import threading
import time
import zlib

from ssbench.wire import messagecheck, protocol
from ssbench.compat import queue
from ssbench.results import timewindow
from ssbench.errors import StatsFileError

log = logging.getLogger(__name__)

GZIP_MAGIC = b'\x1f\x8b'
# Decompressed bytes per chunk handed from the reader thread to the decoder.
READ_CHUNK = 1 << 18
# Chunks the reader thread may run ahead of the decoder (bounds memory).
READ_AHEAD = 4

_HEADER_KEY = u'_scenario_data'
_HEADER_KEY_RAW = b'_scenario_data'


class _Truncated(Exception):
    """Internal: the compressed stream ended early or went bad."""


def _iter_plain(fp):
    while True:
        chunk = fp.read(READ_CHUNK)
        if not chunk:
            return
        yield chunk


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
                chunks = _iter_plain(self._fp)
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
    return isinstance(obj, dict) and (_HEADER_KEY in obj or
                                      _HEADER_KEY_RAW in obj)


class StatsFile(object):
    """A stats file opened for reading; see open_stats()."""

    def __init__(self, path):
        self.path = path
        self._warned = set()
        # The completion times of the first full pass, then the window of
        # them the reports keep (ssbench.results.timewindow): None while
        # unknown, False when every result is kept.
        self._profile = None
        self.window = None
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
        problem = _header_problem(header)
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
            elif unpacker.tell() < fed:
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

    def narrow(self):
        """After a full pass: True when some results lie far outside the
        run (ssbench.results.timewindow); every later pass leaves them
        out, so what the last pass built must be built again."""
        if self.window is not None or self._profile is None:
            return False
        self.window = self._profile.window() or False
        self._profile = None
        return bool(self.window)

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
        return _measured(objects, raw, self)

    def iter_results(self):
        """Yield every result map in file order (re-opens the file); the
        control records (maps without ``completed_at``, such as worker
        health: SPEC section 4) are left out, as 0.3.x leaves them out."""
        for batch in self.iter_batches():
            for result in batch:
                if not isinstance(result, dict) or 'completed_at' in result:
                    yield result

    __iter__ = iter_results


_LATENCY_KEYS = ('first_byte_latency', 'last_byte_latency')
_CHECKED_KEYS = _LATENCY_KEYS + ('completed_at', 'retries', 'intended_start',
                                 'segments', 'time_to_failure', 'exception')
_CHECKED_KEYS_RAW = tuple(key.encode('ascii') for key in _CHECKED_KEYS)
_INF = float('inf')
# type(2 ** 64) is long on Python 2; a bool is no number.
_NUMBER_TYPES = frozenset((int, float, type(2 ** 64)))
_LATENCY_TYPES = _NUMBER_TYPES | frozenset((type(None),))
# No worker retries a request that often (ssbench-worker --retries is at
# most 99,999): a count beyond is a bad value, not a count to add up.
MAX_RETRIES = 10 ** 6
# A completed_at or intended_start (epoch seconds) before 0 or after this
# (the year 2286) is no time a run had.
MAX_EPOCH = 10 ** 10
# Completion times profiled at once (0.3.x stored one result per batch).
PROFILE_BATCH = 1 << 13
# Values in messages are cut to this many characters.
SHOWN = 60


def _measured(batches, raw, stats_file):
    """The batches less the results whose latencies are no measurement: a
    latency that is negative, NaN or infinite, a last byte before the
    first, or a first byte without a last.  0.3.x timed requests with the
    wall clock, so a clock stepped back during its run leaves such
    records in a real file: they are left out and counted (one warning),
    the rest of the file is still reported.  A value of the wrong type (a
    bool is no number), a completed_at that is no time from 0 to
    MAX_EPOCH, a retries count that is not a whole number from 0 to
    MAX_RETRIES, a time_to_failure that is no latency or is on a success
    and, in an open-loop file, an intended_start that is no time from 0
    to MAX_EPOCH are bad values and refuse the file.

    The first full pass also profiles the completion times (see narrow());
    once a window is set, the results outside it are left out and
    counted (one warning)."""
    keys = _CHECKED_KEYS_RAW if raw else _CHECKED_KEYS
    (k_first, k_last, k_completed, k_retries, k_intended, k_segments,
     k_failed_after, k_exception) = keys
    open_loop = _open_loop(stats_file.header)
    window = stats_file.window
    profile = timewindow.TimeProfile() if window is None else None
    # The completion times not yet profiled (appended by the check).
    stamps = []
    append = stamps.append if profile is not None else _ignore
    left_out = outside = 0
    for batch in batches:
        # The cheapest check of every record (None, as for a failure or a
        # PUT's first byte, is 0): a plain loop, as 0.3.x stored one
        # result per batch.  A control record (no completed_at) and
        # anything odd take the slow way.
        clean = True
        mark = len(stamps)
        try:
            for record in batch:
                first = record.get(k_first)
                last = record.get(k_last)
                completed = record[k_completed]
                retries = record.get(k_retries, 0)
                failed_after = record.get(k_failed_after)
                if not (0 <= (first or 0) <= (last or 0) < _INF and
                        0 <= completed <= MAX_EPOCH and
                        type(completed) is float and
                        0 <= retries <= MAX_RETRIES and
                        type(retries) is int and
                        type(last) in _LATENCY_TYPES and
                        type(first) in _LATENCY_TYPES and
                        k_segments not in record and
                        (failed_after is None or
                         _failed_after_ok(failed_after, record,
                                          k_exception))) or (
                            open_loop and not _intended_ok(
                                record.get(k_intended, 0.0))):
                    clean = False
                    break
                append(completed)
        except (AttributeError, TypeError, KeyError):
            clean = False
        if not clean:
            kept = [record for record in batch
                    if _measurement(record, keys, stats_file, open_loop)]
            left_out += len(batch) - len(kept)
            batch = kept
        if profile is not None:
            if not clean:
                del stamps[mark:]
                stamps.extend(_stamps(batch, k_completed))
            if len(stamps) > PROFILE_BATCH:
                profile.add_all(stamps)
                del stamps[:]
        elif window:
            kept = [record for record in batch
                    if _within(record, k_completed, window)]
            outside += len(batch) - len(kept)
            batch = kept
        yield batch
    if profile is not None and stats_file.window is None:
        profile.add_all(stamps)
        stats_file._profile = profile
        early = ended_early(stats_file.header, profile.count + left_out,
                            profile.first, profile.last)
        if early and not stats_file.truncated:   # said so already
            stats_file.warn_once(early)
    if outside:
        stats_file.warn_once(
            'left out %d result%s completed far outside the run (before '
            '%s or after %s UTC: a worker\'s clock?)' % (
                outside, '' if outside == 1 else 's',
                _utc(window[0]), _utc(window[1])))
    if left_out:
        stats_file.warn_once(
            'left out %d result%s whose latencies are no measurement '
            '(negative, NaN or infinite, or the last byte before the '
            'first)' % (left_out, '' if left_out == 1 else 's'))


def ended_early(header, count, first, last):
    """The warning for a file whose run ended before what its header
    asked for (a killed master leaves a file that reads as a shorter
    run), or None: fewer results than an operation count, or results
    over less than a run time, less 10% (at least 5 s: the first and
    last requests take time too).  An open-loop run's results follow its
    rate, not its run time: only its count is judged."""
    def number(key):
        value = header.get(key)
        if type(value) in _NUMBER_TYPES and 0 < value < _INF:
            return value
        return None

    operations = number('operation_count')
    seconds = number('run_seconds')
    if seconds is None and operations is not None and count < operations:
        return ('holds %d result%s of the %d operations its run asked for: '
                'the run ended early (a master stopped before the end?); '
                'the report is of those results' % (
                    count, '' if count == 1 else 's', operations))
    if seconds is not None and not _open_loop(header):
        span = last - first if count else 0
        if span < seconds - max(5, seconds / 10):
            return ('its results span %.0f s of the %g s its run asked '
                    'for: the run ended early (a master stopped before '
                    'the end?); the report is of those results' % (
                        span, seconds))
    return None


def _stamps(batch, k_completed):
    """The completion times of a batch checked by _measurement."""
    stamps = []
    for record in batch:
        try:
            stamps.append(record[k_completed])
        except (KeyError, TypeError, IndexError):
            continue
    return stamps


def _within(record, k_completed, window):
    try:
        return window[0] <= record[k_completed] < window[1]
    except (KeyError, TypeError, IndexError):
        return True


def _utc(seconds):
    return time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(seconds))


def _ignore(value):
    pass


def _intended_ok(value):
    return type(value) is float and 0 <= value <= MAX_EPOCH


def _failed_after_ok(value, record, k_exception):
    # A failure's time_to_failure: seconds, as a latency (the wire's
    # check, ssbench.wire.messagecheck), on a failure only.
    return k_exception in record and type(value) in _NUMBER_TYPES and \
        0 <= value < protocol.MAX_LATENCY


def _open_loop(header):
    rate = header.get('rate')
    return type(rate) in _NUMBER_TYPES and rate > 0


def _measurement(record, keys, stats_file, open_loop):
    """Whether to keep a record that failed the fast check: False for a
    result whose latencies are no measurement; StatsFileError for a bad
    value."""
    (k_first, k_last, k_completed, k_retries, k_intended, k_segments,
     k_failed_after, k_exception) = keys
    try:
        completed = record[k_completed]
    except (KeyError, TypeError, IndexError):
        return True     # not a map, or a control record: the scan's word
    if type(completed) not in _NUMBER_TYPES or not \
            0 <= completed <= MAX_EPOCH:
        raise _bad_value(stats_file, ('completed_at', completed))
    retries = record.get(k_retries, 0)
    if type(retries) not in (int, type(2 ** 64)) or \
            not 0 <= retries <= MAX_RETRIES:
        raise _bad_value(stats_file, ('retries', retries))
    failed_after = record.get(k_failed_after)
    if failed_after is not None and not _failed_after_ok(
            failed_after, record, k_exception):
        raise _bad_value(stats_file, ('time_to_failure', failed_after))
    if open_loop and k_intended in record:
        intended = record[k_intended]
        if type(intended) not in _NUMBER_TYPES or \
                not 0 <= intended <= MAX_EPOCH:
            raise _bad_value(stats_file, ('intended_start', intended))
    segments = record.get(k_segments)
    if segments is not None and not messagecheck.is_segments(
            _text_keys(segments)):
        raise _bad_value(stats_file, ('segments', segments))
    first, last = record.get(k_first), record.get(k_last)
    if type(first) in _LATENCY_TYPES and type(last) in _LATENCY_TYPES:
        return 0 <= (first or 0) <= (last or 0) < _INF
    raise _bad_value(stats_file, ('first_byte_latency', first),
                     ('last_byte_latency', last))


def _bad_value(stats_file, *pairs):
    return StatsFileError(
        '%s: not a valid ssbench stats file: a result has a bad value (%s)'
        % (stats_file.path, ', '.join('%s %s' % (name, shown(value))
                                      for name, value in pairs)))


def shown(value):
    """repr() of a value from a file, strings as text, cut to SHOWN
    characters: a message names the value, it does not echo a file."""
    value = _text(value)
    if type(value) in _NUMBER_TYPES and not isinstance(value, float):
        text = '%d' % (value,)      # no L of a Python 2 long
    elif isinstance(value, type(u'')) and str is bytes:
        text = repr(value.encode('utf-8'))   # 'x' as on Python 3, not u'x'
    else:
        text = '%r' % (value,)
    if len(text) > SHOWN:
        text = text[:SHOWN - 3] + '...'
    return text


def _text(value):
    # A raw read leaves a string as bytes: say it as the text it is.
    if isinstance(value, bytes):
        return value.decode('utf-8', 'replace')
    return value


def _text_keys(value):
    # A raw read's map has bytes keys.
    if isinstance(value, dict):
        return dict((_text(key), item) for key, item in value.items())
    return value


_TEXT_TYPES = (type(u''), bytes)


def _header_problem(header):
    """(key, value) of the first header value the reports cannot use, or
    None.  Only what they read is checked, each as loosely as 0.3.x
    wrote it; a missing value (or None) is always fine, and ``warmup``
    that is no number of seconds counts as none (recordview)."""
    def number(value):
        return type(value) in _NUMBER_TYPES and -_INF < value < _INF

    for key, good in (('name', lambda v: isinstance(v, _TEXT_TYPES)),
                      ('version', lambda v: isinstance(v, _TEXT_TYPES)),
                      ('user_count', lambda v: type(v) in (
                          int, type(2 ** 64))),
                      ('delete_after', number),
                      ('rate', number),
                      (_HEADER_KEY, lambda v: isinstance(v, dict))):
        value = header.get(key)
        if value is not None and not good(value):
            return key, shown(value)
    scenario = header.get(_HEADER_KEY) or {}

    def profile(value):
        return isinstance(value, list) and all(number(n) for n in value)

    sizes = scenario.get('sizes')
    if sizes is not None and not (isinstance(sizes, list) and all(
            isinstance(size, dict) for size in sizes)):
        return 'sizes', shown(sizes)
    for size in sizes or ():
        for key, good in (('size_min', number), ('size_max', number),
                          ('crud_profile', profile)):
            value = size.get(key)
            if value is not None and not good(value):
                return 'sizes: %s' % (key,), shown(value)
    initial = scenario.get('initial_files')
    if initial is not None and not (isinstance(initial, dict) and all(
            value is None or number(value) for value in initial.values())):
        return 'initial_files', shown(initial)
    crud = scenario.get('crud_profile')
    if crud is not None and not profile(crud):
        return 'crud_profile', shown(crud)
    return None


def open_stats(path):
    """Open a stats file (.gz or plain); raises StatsFileError if unusable.

    The returned object has ``.header`` (a dict) and can be iterated any
    number of times with ``iter_results()`` or ``iter_batches()``.
    """
    return StatsFile(path)

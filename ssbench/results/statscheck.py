"""Stats files, the values in them: what the reports can use.

A header value the reports read, or a result's time, count or latency of
the wrong type or out of bounds, refuses the file (StatsFileError, one
line naming the value); a result whose latencies are no measurement (a
clock stepped back under 0.3.x) is left out and counted.  A full pass
also profiles the completion times, so that results far outside the run
can be left out (ssbench.results.timewindow), and says when the run
ended early.  ssbench.results.statsreader reads the file and asks here.
"""
from __future__ import absolute_import, division, print_function

import time

from ssbench.wire import messagecheck, protocol
from ssbench.results import timewindow
from ssbench.errors import StatsFileError

HEADER_KEY = u'_scenario_data'

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


def measured(batches, raw, stats_file):
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

    The first full pass also profiles the completion times (see
    StatsFile.narrow(); `stats_file` is the statsreader.StatsFile read);
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
        stats_file.profiled(profile)
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
    rate, not its run time: only its count is judged.  A run that ended
    once it was steady (run-suite --until-steady) had its counts as a
    ceiling: nothing is judged."""
    if header.get('until_steady') is True:
        return None

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


def header_problem(header):
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
                      (HEADER_KEY, lambda v: isinstance(v, dict))):
        value = header.get(key)
        if value is not None and not good(value):
            return key, shown(value)
    scenario = header.get(HEADER_KEY) or {}

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

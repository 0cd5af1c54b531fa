"""Stats files, the values in them: what the reports can use.

A header value the reports read of the wrong type refuses the file
(StatsFileError, one line naming the value).  A result is held to the
record spec (ssbench.measure.record), as the master's wire check holds
it: a result with a value of the wrong type or out of range is left out
and counted, and so is a result whose latencies are no measurement (a
clock stepped back under 0.3.x); one warning each, naming the file, and
the rest of the run is reported.  A full pass also profiles the
completion times, so that results far outside the run can be left out
(ssbench.results.timewindow), finds the workers' clock offsets that the
later passes correct completion times by (ssbench.results.clockrecords),
and says when the run ended early.
ssbench.results.statsreader reads the file and asks here.
"""
from __future__ import absolute_import, division, print_function

import time

from ssbench.measure import record as spec
from ssbench.measure.finite import is_finite
from ssbench.measure.record import (
    HEADER_KEY, MAX_COUNT as _MAX_COUNT, MAX_EPOCH as _MAX_EPOCH,
    MAX_SECONDS as _MAX_SECONDS, MAX_SIZE as _MAX_SIZE, MAX_STATUS as
    _MAX_STATUS, NUMBERS as _NUMBER_TYPES)
from ssbench.measure.profile import weights
from ssbench.results import clockrecords, timewindow
from ssbench.results.recordview import as_text, as_text_keys

# The result values the reports read, in the order they are checked: the
# first bad one is the one a warning names.
_CHECKED_KEYS, _CHECKED_KEYS_RAW = spec.keys(
    'first_byte_latency', 'last_byte_latency', 'segments', 'exception',
    'completed_at', 'retries', 'time_to_failure', 'size', 'reconnects',
    'status', 'intended_start', 'send_lag', 'worker_time')
_VALUE_KEYS = _CHECKED_KEYS[4:]
# Read (so checked) in the file of an open-loop run only: response times.
_OPEN_LOOP_KEYS = frozenset(_VALUE_KEYS[-3:])
_INF = float('inf')
_LATENCY_TYPES = _NUMBER_TYPES | spec.NONE
# Completion times profiled at once (0.3.x stored one result per batch).
PROFILE_BATCH = 1 << 13
# Values in messages are cut to this many characters.
SHOWN = 60
# What _measurement() says of a result whose latencies are no measurement.
_NO_MEASUREMENT = ()


def measured(batches, raw, stats_file):
    """The batches less the results the reports cannot use, each left out
    and counted (one warning per reason, naming the file):

    - a value of the wrong type or out of the record spec's range (a bool
      is no number; ssbench.measure.record says the limits of each key):
      the warning names the first such value;
    - latencies that are no measurement: a latency that is negative, NaN
      or infinite, a last byte before the first, or a first byte without
      a last.  0.3.x timed requests with the wall clock, so a clock
      stepped back during its run leaves such records in a real file.

    An intended_start, send_lag and worker_time are read (and so checked)
    in an open-loop file only; a time_to_failure must be a failure's.
    The first full pass also profiles the completion times (see
    StatsFile.narrow(); `stats_file` is the statsreader.StatsFile read)
    and finds the clock offset records; once a window is set, the
    results outside it are left out and counted (one warning), and the
    completion times of a worker whose clock was off by more than
    clockrecords.OFFSET_LIMIT are put on the master's clock."""
    keys = _CHECKED_KEYS_RAW if raw else _CHECKED_KEYS
    (k_first, k_last, k_segments, k_exception, k_completed, k_retries,
     k_failed_after, k_size, k_reconnects, k_status, k_intended, k_lag,
     k_held) = keys
    values = tuple(zip(_VALUE_KEYS, keys[4:]))
    open_loop = _open_loop(stats_file.header)
    window = stats_file.window
    profile = timewindow.TimeProfile() if window is None else None
    offsets = stats_file.offsets if profile is None else None
    clockrecords.restart(offsets)
    k_worker = spec.keys('worker_id')[raw][0]
    clocks = []      # the clock offset records of a first pass
    # The completion times not yet profiled (appended by the check).
    stamps = []
    append = stamps.append if profile is not None else (lambda value: None)
    # (began, completed, worker) of a small file's results, in file order,
    # for timewindow.idle_window(): three values a result, not its record
    # (a suite's master analyses a step of 10,000 results; holding their
    # records grew it by megabytes a step on Python 2.7).
    small = [] if profile is not None else None
    seen = 0
    idle = stats_file.idle_window
    left_out = outside = bad = 0
    first_bad = None
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
                size = record.get(k_size)
                reconnects = record.get(k_reconnects)
                status = record.get(k_status)
                failed_after = record.get(k_failed_after)
                if not (0 <= (first or 0) <= (last or 0) < _MAX_SECONDS and
                        0 <= completed < _MAX_EPOCH and
                        type(completed) is float and
                        0 <= retries < _MAX_COUNT and
                        type(retries) is int and
                        type(last) in _LATENCY_TYPES and
                        type(first) in _LATENCY_TYPES and
                        (size is None or type(size) is int and
                         0 <= size < _MAX_SIZE) and
                        (reconnects is None or type(reconnects) is int and
                         0 <= reconnects < _MAX_COUNT) and
                        (status is None or type(status) is int and
                         0 <= status < _MAX_STATUS) and
                        k_segments not in record and
                        (failed_after is None or
                         _failed_after_ok(failed_after, record,
                                          k_exception))) or (
                            open_loop and not _open_loop_ok(
                                record, k_intended, k_lag, k_held)):
                    clean = False
                    break
                append(completed)
        except (AttributeError, TypeError, KeyError):
            clean = False
        if not clean:
            kept = []
            for record in batch:
                problem = _measurement(record, keys, values, open_loop)
                if problem is None:
                    kept.append(record)
                    if profile is not None and clockrecords.is_record(
                            record, raw):
                        clocks.append(record)
                elif problem is _NO_MEASUREMENT:
                    left_out += 1
                else:
                    bad += 1
                    first_bad = first_bad or problem
            batch = kept
        if profile is not None:
            if not clean:
                del stamps[mark:]
                stamps.extend(_stamps(batch, k_completed))
            if len(stamps) > PROFILE_BATCH:
                profile.add_all(stamps)
                del stamps[:]
            if small is not None:
                seen += len(batch)
                if seen <= timewindow.SMALL:
                    small.extend(_requests(batch, keys, k_worker))
                else:
                    small = None
        else:
            # On the master's clock first: a worker's results that its
            # offset (or a step of its clock) moved far away come back
            # into the window, kept; a stray stays out.
            if offsets:
                _on_master_clock(batch, k_completed, k_worker, offsets)
            if window:
                kept = [record for record in batch
                        if _within(record, k_completed, window)]
                outside += len(batch) - len(kept)
                batch = kept
            if idle:
                kept = [record for record in batch
                        if _within(record, k_completed, idle)]
                outside += len(batch) - len(kept)
                batch = kept
        yield batch
    if profile is not None and stats_file.window is None:
        profile.add_all(stamps)
        corrections = clockrecords.corrections(clocks)
        spans = None if small is None else _spans(small, corrections)
        stats_file.profiled(profile, corrections, spans)
        # A growing file holds the run so far, not a run that ended.
        early = None if stats_file.growing else ended_early(
            stats_file.header, profile.count + left_out + bad,
            profile.first, profile.last)
        if early and not stats_file.truncated:   # said so already
            stats_file.warn_once(early)
    if outside:
        bounds = window or idle
        stats_file.warn_once(
            'left out %d result%s completed far outside the run (before '
            '%s or after %s UTC: a worker\'s clock?)' % (
                outside, '' if outside == 1 else 's',
                _utc(bounds[0]), _utc(bounds[1])))
    if bad:
        stats_file.warn_once(
            'left out %d result%s with a bad value (the first: %s %s)' % (
                bad, '' if bad == 1 else 's', first_bad[0],
                shown(first_bad[1])))
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
    ceiling: nothing is judged.  `first` and `last` are the earliest and
    latest completion times kept (None when no result was)."""
    if header.get('until_steady') is True:
        return None

    def number(key):
        value = header.get(key)
        if is_finite(value) and value > 0:
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
        # No completion time at all when every result was left out.
        span = last - first if first is not None else 0
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


def _requests(batch, keys, k_worker):
    """(began, completed, worker id) of each result of `batch` (checked),
    on the worker's clock: a request began at its completion less its
    latency (its time to failure), or at its intended start if earlier
    (an open-loop job that waited)."""
    k_last, k_completed, k_failed_after, k_intended = (
        keys[1], keys[4], keys[6], keys[10])
    out = []
    for record in batch:
        try:
            completed = record[k_completed]
            took = record.get(k_last) or record.get(k_failed_after) or 0
            began = completed - took
            intended = record.get(k_intended)
            if intended is not None and intended < began:
                began = intended
        except (KeyError, TypeError, AttributeError):
            continue
        out.append((began, completed, record.get(k_worker)))
    return out


def _spans(requests, offsets):
    """(began, completed) of each of _requests()' `requests`, on the
    master's clock by `offsets` (as _on_master_clock())."""
    clockrecords.restart(offsets)
    spans = []
    for began, completed, worker in requests:
        try:
            offset = _offset_of(worker, offsets, completed)
        except (TypeError, AttributeError):
            continue
        spans.append((began - offset, completed - offset))
    return spans


def _offset_of(worker, offsets, stamped):
    """Seconds the clock of `worker` (its id as text or int, or a raw
    read's bytes) was ahead at `stamped` by `offsets` ({worker id:
    corrections() value}), 0 when it has none."""
    if not offsets:
        return 0
    offset = offsets.get(worker)
    if offset is None and isinstance(worker, bytes):
        offset = offsets.get(as_text(worker))
    return clockrecords.offset_at(offset, stamped) or 0


def _on_master_clock(batch, k_completed, k_worker, offsets):
    """Subtract from each result's completed_at its worker's offset in
    `offsets` (as _offset_of())."""
    for record in batch:
        try:
            record[k_completed] -= _offset_of(
                record[k_worker], offsets, record[k_completed])
        except (KeyError, TypeError, IndexError, AttributeError):
            continue


def _within(record, k_completed, window):
    try:
        return window[0] <= record[k_completed] < window[1]
    except (KeyError, TypeError, IndexError):
        return True


def _utc(seconds):
    return time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(seconds))


def _open_loop_ok(record, k_intended, k_lag, k_held):
    # The fast check of what an open-loop run's results add.
    intended = record.get(k_intended, 0.0)
    lag = record.get(k_lag)
    held = record.get(k_held)
    return type(intended) is float and 0 <= intended < _MAX_EPOCH and (
        lag is None or type(lag) is float and 0 <= lag < _MAX_SECONDS) and (
        held is None or type(held) is float and 0 <= held < _MAX_SECONDS)


def _failed_after_ok(value, record, k_exception):
    # A failure's time_to_failure: seconds, as a latency, on a failure
    # only.
    return k_exception in record and \
        not spec.value_problem(spec.TIME_TO_FAILURE, value)


def _open_loop(header):
    rate = header.get('rate')
    return type(rate) in _NUMBER_TYPES and rate > 0


def _measurement(record, keys, values, open_loop):
    """None to keep a record that failed the fast check; _NO_MEASUREMENT
    for a result whose latencies are no measurement; else (key, value) of
    its first bad value.  `values` pairs each of _VALUE_KEYS with its key
    in the record (bytes in a raw read)."""
    k_first, k_last, k_segments, k_exception = keys[:4]
    try:
        if keys[4] not in record:
            return None  # a control record: the scan's word
    except TypeError:
        return None      # not a map: the scan's word
    get = record.get
    for name, key in values:
        value = get(key)
        if value is None and key not in record:
            continue
        if name in _OPEN_LOOP_KEYS and not open_loop:
            continue
        if spec.value_problem(name, value) or (
                name == 'time_to_failure' and k_exception not in record):
            return name, value
    segments = get(k_segments)
    if segments is not None and not spec.is_segments(as_text_keys(segments)):
        return 'segments', segments
    first, last = get(k_first), get(k_last)
    for name, value in (('first_byte_latency', first),
                        ('last_byte_latency', last)):
        if type(value) not in _LATENCY_TYPES:
            return name, value
        if value is not None and _MAX_SECONDS <= value < _INF:
            return name, value
    if not 0 <= (first or 0) <= (last or 0) < _INF:
        return _NO_MEASUREMENT
    return None


def shown(value):
    """repr() of a value from a file, strings as text, cut to SHOWN
    characters: a message names the value, it does not echo a file."""
    value = as_text(value)   # a raw read's string: say it as text
    if type(value) in _NUMBER_TYPES and not isinstance(value, float):
        text = '%d' % (value,)      # no L of a Python 2 long
    elif isinstance(value, type(u'')) and str is bytes:
        text = repr(value.encode('utf-8'))   # 'x' as on Python 3, not u'x'
    else:
        text = '%r' % (value,)
    if len(text) > SHOWN:
        text = text[:SHOWN - 3] + '...'
    return text


_TEXT_TYPES = (type(u''), bytes)


def header_problem(header):
    """(key, value) of the first header value the reports cannot use, or
    None.  Only what they read is checked, each as loosely as 0.3.x
    wrote it; a missing value (or None) is always fine, and ``warmup``
    that is no number of seconds counts as none (recordview)."""
    for key, good in (('name', lambda v: isinstance(v, _TEXT_TYPES)),
                      ('version', lambda v: isinstance(v, _TEXT_TYPES)),
                      ('user_count', lambda v: type(v) in (
                          int, type(2 ** 64))),
                      ('delete_after', is_finite),
                      ('rate', is_finite),
                      (HEADER_KEY, lambda v: isinstance(v, dict))):
        value = header.get(key)
        if value is not None and not good(value):
            return key, shown(value)
    scenario = header.get(HEADER_KEY) or {}

    def profile(value):
        # A list of numbers (0.3.9's), or the object form of
        # ssbench.measure.profile.
        if isinstance(value, dict):
            return weights(value) is not None
        return isinstance(value, list) and all(is_finite(n) for n in value)

    sizes = scenario.get('sizes')
    if sizes is not None and not (isinstance(sizes, list) and all(
            isinstance(size, dict) for size in sizes)):
        return 'sizes', shown(sizes)
    for size in sizes or ():
        for key, good in (('size_min', is_finite), ('size_max', is_finite),
                          ('crud_profile', profile)):
            value = size.get(key)
            if value is not None and not good(value):
                return 'sizes: %s' % (key,), shown(value)
    initial = scenario.get('initial_files')
    if initial is not None and not (isinstance(initial, dict) and all(
            value is None or is_finite(value) for value in initial.values())):
        return 'initial_files', shown(initial)
    crud = scenario.get('crud_profile')
    if crud is not None and not profile(crud):
        return 'crud_profile', shown(crud)
    return None

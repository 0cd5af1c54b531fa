"""The result record: one map per request, sent by a worker, stored by
the master, read by the reports (docs/internals.rst, "The result
record").  The one definition of its keys, their types, whether the
wire requires them, and their limits.

Every number a result carries lies in a half-open range [0, bound): the
master's wire check (ssbench.wire.messagecheck and, on the bytes,
ssbench.wire.resultbytes), the stats reader (ssbench.results.statscheck)
and the reports hold a record to the same bounds, so that a result the
wire takes is one the reports can render, and a result out of range is
left out the same way everywhere.
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import PY2, text_type

# Epoch seconds (completed_at, intended_start): from 1970 to the year
# 2286; a worker clock beyond is no time a run had.
MAX_EPOCH = 1e10
# Seconds of a latency or of any other span a record measures: finite,
# under some 31 years.
MAX_SECONDS = 1e9
# Bytes (size, segment_size): whole numbers below 2**53, so that the sums
# and rates the reports work out in floats stay exact.
MAX_SIZE = 1 << 53
# Retries and reconnects of one request (ssbench-worker --retries is at
# most 1000): a count beyond is a bad value, not a count to add up.
MAX_COUNT = 10 ** 6
# An HTTP status has three digits.
MAX_STATUS = 1000
# Characters of a retry cause's name (an HTTP status or an error class).
MAX_CAUSE = 200

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    INTEGERS = frozenset((int, long))  # noqa: F821
else:
    INTEGERS = frozenset((int,))
# Allowed types are matched by type(value), so a bool is no number.
NUMBERS = INTEGERS | frozenset((float,))
TEXT = frozenset((text_type,))
NONE = frozenset((type(None),))


class Kind(object):
    """What one kind of value is: its types and the bound of a number
    (None: any integer msgpack carries, or no number at all)."""

    __slots__ = ('types', 'bound')

    def __init__(self, types, bound=None):
        self.types = types
        self.bound = bound


TIME = Kind(NUMBERS, MAX_EPOCH)
SECONDS = Kind(NUMBERS, MAX_SECONDS)
BYTES = Kind(INTEGERS, MAX_SIZE)
COUNT = Kind(INTEGERS, MAX_COUNT)
STATUS = Kind(INTEGERS, MAX_STATUS)
ID = Kind(INTEGERS)
WORKER = Kind(INTEGERS | TEXT)
WORDS = Kind(TEXT)

# (key, kind, required on the wire, may be None) of every plain value a
# result may carry, in the order the wire check reads them.  `type` is the
# job type (ssbench.OPERATION_TYPES: upload_object, get_object,
# update_object, delete_object, head_object, list_container); a
# list_container result has the `name` '' and the page's `limit` and
# `prefix` (when the scenario gives one).  A scenario that weighs neither
# HEAD nor LIST makes no such result, so its files are 0.3.9's.  A success
# has a last_byte_latency, a failure an `exception`; the maps of
# RETRY_CAUSES and SEGMENTS have rules of their own (problem()).  With
# several storage URLs, `endpoint` is the index, in the stats header's
# ENDPOINTS list, of the one the job's (last) request went to; with one,
# a result has no such key, as in 0.3.9.
FIELDS = tuple((text_type(key), kind, required, nullable) for (
    key, kind, required, nullable) in (
        ('job_id', ID, True, False),
        ('completed_at', TIME, True, False),
        ('retries', COUNT, True, False),
        ('worker_id', WORKER, True, False),
        ('type', WORDS, True, False),
        ('size_str', WORDS, True, False),
        ('container', WORDS, True, False),
        ('name', WORDS, True, False),
        ('trans_id', WORDS, True, True),
        ('first_byte_latency', SECONDS, False, True),
        ('last_byte_latency', SECONDS, False, True),
        ('size', BYTES, False, True),
        ('intended_start', TIME, False, True),
        ('exception', WORDS, False, False),
        ('status', STATUS, False, True),
        ('reconnects', COUNT, False, True),
        ('error_class', WORDS, False, True),
        ('send_lag', SECONDS, False, True),
        ('worker_time', SECONDS, False, True),
        ('segment_size', BYTES, False, True),
        ('large_object', WORDS, False, True),
        ('time_to_failure', SECONDS, False, True),
        ('limit', COUNT, False, True),
        ('prefix', WORDS, False, True),
        ('endpoint', COUNT, False, True)))
KINDS = dict((key, kind) for key, kind, _, _ in FIELDS)
# The allowed types of each key, None included where it may be None.
TYPES = dict((key, kind.types | NONE if nullable else kind.types)
             for key, kind, _, nullable in FIELDS)
REQUIRED = tuple(key for key, _, required, _ in FIELDS if required)
EXCEPTION = text_type('exception')
LAST_BYTE_LATENCY = text_type('last_byte_latency')
TIME_TO_FAILURE = text_type('time_to_failure')
RETRIES = text_type('retries')
ENDPOINT = text_type('endpoint')
# The stats header's list of the run's storage URLs, when several.
ENDPOINTS = text_type('endpoints')
# {cause: count} of a request's retries, the counts adding up to
# `retries`; a cause is 1 to MAX_CAUSE characters.
RETRY_CAUSES = text_type('retry_causes')
# A large object's segments: exactly these figures, (key, kind).
SEGMENTS = text_type('segments')
SEGMENT_FIGURES = tuple((text_type(key), kind) for key, kind in (
    ('count', COUNT), ('retries', COUNT), ('seconds', SECONDS),
    ('slowest', SECONDS)))


def within(kind, value):
    """True for a number of `kind` (type and range); None is no number."""
    return type(value) in kind.types and (
        kind.bound is None or type(value) not in NUMBERS or
        0 <= value < kind.bound)


def response_wait(spent, completed, intended, lag, held):
    """Seconds an open-loop request waited before its measured part began
    (`spent`: its last-byte latency, or a failure's time to failure), so
    that spent + wait is its response time, from its intended start.
    The master's `lag` (how late the job left it) plus the worker's
    `held` (from the job's receipt to the result) measure it on one
    clock each; without them, `completed` less `spent` less `intended`
    mixes the two hosts' clocks.  Not above 0: no wait."""
    if within(SECONDS, lag) and within(SECONDS, held):
        return lag + held - spent
    return completed - spent - intended


def value_problem(key, value):
    """True when `value` is no value of `key` (one of FIELDS; None is
    fine where the key may be None)."""
    if value is None:
        return type(None) not in TYPES[key]
    return not within(KINDS[key], value)


def is_segments(value):
    """True for a result's `segments` map: SEGMENT_FIGURES, nothing
    else."""
    return type(value) is dict and len(value) == len(SEGMENT_FIGURES) and \
        all(within(kind, value.get(key)) for key, kind in SEGMENT_FIGURES)


def is_retry_causes(value, retries):
    """True for a result's `retry_causes` adding up to `retries`."""
    return type(value) is dict and all(
        type(cause) in TEXT and 0 < len(cause) <= MAX_CAUSE and
        type(count) in INTEGERS and 0 < count < MAX_COUNT
        for cause, count in value.items()) and \
        sum(value.values()) == retries


def problem(record):
    """(key, value) of the first thing wrong with a result map `record`
    (a key missing, when the key is not in it), or None.

    A failure (with `exception`) may leave out its latencies; a success
    needs a last_byte_latency and has no time_to_failure."""
    get = record.get
    for key, kind, required, nullable in FIELDS:
        value = get(key)
        if value is None and key not in record:
            if required:
                return key, None
            continue
        if value is None and nullable:
            continue
        if not within(kind, value):
            return key, value
    failed = EXCEPTION in record
    if not failed and get(LAST_BYTE_LATENCY) is None:
        return LAST_BYTE_LATENCY, None
    if get(TIME_TO_FAILURE) is not None and not failed:
        return TIME_TO_FAILURE, get(TIME_TO_FAILURE)
    segments = get(SEGMENTS)
    if segments is not None and not is_segments(segments):
        return SEGMENTS, segments
    causes = get(RETRY_CAUSES)
    if causes is not None and not is_retry_causes(causes, get(RETRIES)):
        return RETRY_CAUSES, causes
    return None

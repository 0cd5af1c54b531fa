"""The result record: one map per request, sent by a worker, stored by
the master, read by the reports (docs/internals.rst, "The result
record").  The one definition of its keys, their types, whether the
wire requires them, and their limits.

Every number a result carries lies in a half-open range [0, bound), and
the wire, stats and report checks are made from SCHEMA: a result the wire
takes is one the reports can render.
"""
from __future__ import absolute_import, division, print_function

import collections

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
# The longest run (run_seconds, and so --warmup): about 16 weeks.
MAX_RUN_SECONDS = 10 ** 7
# The largest user count (concurrency) of a scenario, and so the most jobs
# a worker holds at once: the scenario's bound and the wire's.
MAX_USER_COUNT = 100000
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
    """What one kind of value is: its types (None: a rule of its own, or
    none), the bound of a number (None: any integer, or no number), its
    words in docs/internals.rst, whether the wire check reads it."""

    __slots__ = ('types', 'bound', 'words', 'checked')

    def __init__(self, types, bound=None, words='', checked=True):
        self.types = types
        self.bound = bound
        self.words = words
        self.checked = checked


TIME = Kind(NUMBERS, MAX_EPOCH, 'epoch seconds, below 1e10')
SECONDS = Kind(NUMBERS, MAX_SECONDS, 'seconds, below 1e9')
BYTES = Kind(INTEGERS, MAX_SIZE, 'bytes, below 2**53')
COUNT = Kind(INTEGERS, MAX_COUNT, 'integer, below 1e6')
STATUS = Kind(INTEGERS, MAX_STATUS, 'HTTP status')
ID = Kind(INTEGERS, None, 'integer')
WORKER = Kind(INTEGERS | TEXT, None, 'integer or string')
WORDS = Kind(TEXT, None, 'string')
OPERATION = Kind(TEXT, None, 'job type')
# A job's value its result echoes: the worker checked it, no reader does.
ECHOED_INT = Kind(INTEGERS, None, 'integer, echoed', False)
ECHOED_FLAG = Kind(frozenset((bool,)), None, 'true or false, echoed', False)
FREE = Kind(None, None, 'string, not checked')
SEGMENTS_MAP = Kind(None, None, 'map: count, retries, seconds, slowest')
CAUSES_MAP = Kind(None, None, '{cause: count}')

# Whose results carry a field: every result (the wire requires it), a
# success (required of one), a failure (only), or any result (optional).
ALL, SUCCESS, FAILURE, OPTIONAL = 'all', 'success', 'failure', 'optional'
# Who sets it: echoed from the job the master made, or the worker's own.
JOB, WORKER_SET = 'job', 'worker'


Field = collections.namedtuple(
    'Field', 'name kind presence nullable source legacy')
# The result record (docs/internals.rst, "The keys"): every key a result
# may carry, in the order the wire check reads them; every key tuple and
# rule table of the wire, master, stats and report checks is made from
# it.  `type` is one of ssbench.OPERATION_TYPES.
SCHEMA = tuple(Field(text_type(row[0]), *row[1:]) for row in (
    ('job_id', ID, ALL, False, JOB, False),
    ('completed_at', TIME, ALL, False, WORKER_SET, True),
    ('retries', COUNT, ALL, False, WORKER_SET, True),
    ('worker_id', WORKER, ALL, False, WORKER_SET, True),
    ('type', OPERATION, ALL, False, JOB, True),
    ('size_str', WORDS, ALL, False, JOB, True),
    ('container', WORDS, ALL, False, JOB, True),
    ('name', WORDS, ALL, False, JOB, True),
    ('trans_id', WORDS, ALL, True, WORKER_SET, True),
    ('first_byte_latency', SECONDS, OPTIONAL, True, WORKER_SET, True),
    ('last_byte_latency', SECONDS, SUCCESS, True, WORKER_SET, True),
    ('size', BYTES, OPTIONAL, True, JOB, True),
    ('intended_start', TIME, OPTIONAL, True, JOB, False),
    ('exception', WORDS, FAILURE, False, WORKER_SET, True),
    ('status', STATUS, OPTIONAL, True, WORKER_SET, False),
    ('reconnects', COUNT, OPTIONAL, True, WORKER_SET, False),
    ('error_class', WORDS, FAILURE, True, WORKER_SET, False),
    ('send_lag', SECONDS, OPTIONAL, True, JOB, False),
    ('worker_time', SECONDS, OPTIONAL, True, WORKER_SET, False),
    ('segment_size', BYTES, OPTIONAL, True, JOB, False),
    ('large_object', WORDS, OPTIONAL, True, JOB, False),
    ('time_to_failure', SECONDS, FAILURE, True, WORKER_SET, False),
    ('limit', COUNT, OPTIONAL, True, JOB, False),
    ('prefix', WORDS, OPTIONAL, True, JOB, False),
    ('endpoint', COUNT, OPTIONAL, True, WORKER_SET, False),
    ('block_size', ECHOED_INT, OPTIONAL, True, JOB, True),
    ('delete_after', ECHOED_INT, OPTIONAL, True, JOB, True),
    ('noop', ECHOED_FLAG, OPTIONAL, True, JOB, True),
    ('head_first', ECHOED_FLAG, OPTIONAL, True, JOB, True),
    ('traceback', FREE, FAILURE, True, WORKER_SET, True),
    ('segments', SEGMENTS_MAP, OPTIONAL, True, WORKER_SET, False),
    ('retry_causes', CAUSES_MAP, OPTIONAL, True, WORKER_SET, False)))
NAMES = frozenset(field.name for field in SCHEMA)
# (key, kind, required, may be None) of what problem()'s loop checks.
FIELDS = tuple((field.name, field.kind, field.presence == ALL,
                field.nullable) for field in SCHEMA
               if field.kind.types is not None and field.kind.checked)
KINDS = dict((field.name, field.kind) for field in SCHEMA)
# The allowed types of each key, None included where it may be None.
TYPES = dict((key, kind.types | NONE if nullable else kind.types)
             for key, kind, _, nullable in FIELDS)
REQUIRED = tuple(key for key, _, required, _ in FIELDS if required)


def keys(*names):
    """(text keys, raw keys) of `names`, fields of SCHEMA: text for
    decoded maps (a native str is a slow compare on Python 2), bytes for
    raw ones."""
    unknown = [name for name in names if name not in NAMES]
    if unknown:
        raise ValueError('not a field of the result record: %s' % unknown)
    return (tuple(text_type(name) for name in names),
            tuple(name.encode('ascii') for name in names))


EXCEPTION = text_type('exception')
LAST_BYTE_LATENCY = text_type('last_byte_latency')
TIME_TO_FAILURE = text_type('time_to_failure')
RETRIES = text_type('retries')
ENDPOINT = text_type('endpoint')
# The stats header's list of the run's storage URLs, when several.
ENDPOINTS = text_type('endpoints')
# The stats header's scenario: its JSON, exactly as read.
HEADER_KEY = text_type('_scenario_data')
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

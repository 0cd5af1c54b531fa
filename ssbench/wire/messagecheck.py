"""What a master or a worker accepts from the wire: see protocol.decode().

check_from_worker() (the master) and check_from_master() (a worker) say
why one decoded record is unusable, or None: a record must be a map with
the keys its receiver relies on, of sane types and values.  A no-op
request costs the master and a worker only some 10-15 microseconds of CPU
each, so the usual records cost little: a success's values are checked by
their tuple of types, in a few C calls, and a worker only echoes a no-op
job, whose result the master checks.
"""
from __future__ import absolute_import, division, print_function

import operator
import re

from ssbench import LARGE_OBJECT_KINDS, OPERATION_TYPES
from ssbench.compat import text_type
from ssbench.measure import record as spec
from ssbench.measure.finite import is_finite
from ssbench.measure.record import (MAX_EPOCH, MAX_SECONDS, MAX_SIZE,
                                    NUMBERS as _NUMS, INTEGERS as _INTS,
                                    TEXT as _TEXT)
from ssbench.wire.protocol import (CLOCK, CONFIGURE, HEALTH_KEYS, HEARTBEAT,
                                   INT64, JOB_KEYS, PING, REFUSED,
                                   S3_ADDRESSING, S3_KEYS, SUICIDE)


def _key(name):
    # Decoded maps have text keys: on Python 2 a native str key would take
    # a slow compare in every lookup.
    return text_type(name)


# Sets of allowed types; bool is not an int here (type(True) is bool).
_NONE = type(None)
_IDS = _INTS | _TEXT
_TEXT_OR_NONE = _TEXT | frozenset((_NONE,))
_INT_OR_NONE = _INTS | frozenset((_NONE,))
_FLAG = frozenset((bool, _NONE))
_NOT_A_MAP = 'record that is not a map'

_K_TYPE, _K_WORKER_ID, _K_NOOP = spec.keys('type', 'worker_id', 'noop')[0]
_K_EXCEPTION = spec.EXCEPTION


def _product(choices):
    """Every tuple taking one item from each of `choices`, in order."""
    tuples = [()]
    for items in choices:
        tuples = [head + (item,) for head in tuples for item in items]
    return tuples


_K_TIME_TO_FAILURE = spec.TIME_TO_FAILURE
_K_RETRY_CAUSES = spec.RETRY_CAUSES
_K_SEGMENTS = spec.SEGMENTS
_CONTROL_KINDS = frozenset((_key(HEARTBEAT), _key(PING)))


# The fast path: a success with the usual types, without the keys of
# errors and of Swift requests (a no-op result's `size` is its job's):
# the record spec's first keys, job_id to last_byte_latency.
_FAST_KEYS = tuple(entry[0] for entry in spec.FIELDS[:11])
assert _FAST_KEYS[1:3] == ('completed_at', 'retries') and \
    _FAST_KEYS[9:] == ('first_byte_latency', 'last_byte_latency')
_get_fast = operator.itemgetter(*_FAST_KEYS)
_FAST_TYPES = frozenset(_product(
    [spec.TYPES[key] for key in _FAST_KEYS[:10]] + [_NUMS]))
(_K_STATUS, _K_RECONNECTS, _K_ERROR_CLASS, _K_SIZE, _K_INTENDED,
 _K_SEND_LAG, _K_WORKER_TIME) = spec.keys(
    'status', 'reconnects', 'error_class', 'size', 'intended_start',
    'send_lag', 'worker_time')[0]
_MAX_COUNT = spec.COUNT.bound


def check_from_worker(record):
    """None if `record` (received by the master) is a result, a HEARTBEAT
    or a PING answer with the keys the master and the stats readers rely
    on, of the types and within the limits of the record spec
    (ssbench.measure.record); else (fault kind, offending value)."""
    if type(record) is not dict:
        return _NOT_A_MAP, record
    # The usual no-op success, checked in a few C calls.
    try:
        values = _get_fast(record)
    except KeyError:
        return _check_record(record)
    if (tuple(map(type, values)) in _FAST_TYPES and
            _K_EXCEPTION not in record and _K_STATUS not in record and
            _K_RECONNECTS not in record and _K_ERROR_CLASS not in record and
            _K_RETRY_CAUSES not in record and
            _K_TIME_TO_FAILURE not in record and
            _K_SEGMENTS not in record and
            values[4] not in _CONTROL_KINDS):
        size = record.get(_K_SIZE)
        intended = record.get(_K_INTENDED)
        first = values[9]
        if (0 <= values[1] < MAX_EPOCH and
                0 <= values[2] < _MAX_COUNT and
                0 <= values[10] < MAX_SECONDS and
                (first is None or 0 <= first < MAX_SECONDS) and
                (size is None or type(size) in _INTS and
                 0 <= size < MAX_SIZE) and
                (intended is None or type(intended) in _NUMS and
                 0 <= intended < MAX_EPOCH) and
                _is_latency(record.get(_K_SEND_LAG)) and
                _is_latency(record.get(_K_WORKER_TIME))):
            return None
    return _check_record(record)


def _is_latency(value):
    """True for None or a number of seconds a latency may be."""
    return value is None or type(value) in _NUMS and \
        0 <= value < MAX_SECONDS


def _check_record(record):
    """check_from_worker() of a map, key by key."""
    get = record.get
    kind = get(_K_TYPE)
    if kind == HEARTBEAT:
        return _check_heartbeat(record)
    if kind == PING:
        if type(get(_K_WORKER_ID)) not in _IDS:
            return 'bad worker_id', get(_K_WORKER_ID)
        return None
    found = spec.problem(record)
    if found is None:
        return None
    key, value = found
    if value is None and (key not in record or
                          key == spec.LAST_BYTE_LATENCY):
        return 'missing ' + key, None
    return 'bad ' + key, value


def _check_heartbeat(record):
    get = record.get
    worker_id = get(_K_WORKER_ID)
    if type(worker_id) not in _IDS:
        return 'bad worker_id', worker_id
    in_flight = get(_key('in_flight'))
    # The ids of the jobs the worker holds (a bare count says less).
    if type(in_flight) in _INTS:
        if in_flight < 0:
            return 'bad in_flight', in_flight
    elif type(in_flight) is not list or not all(
            type(job_id) in _INTS for job_id in in_flight):
        return 'bad in_flight', in_flight
    configured = get(_key('configured'))
    if type(configured) not in _FLAG:
        return 'bad configured', configured
    for key in _HEALTH_KEYS:
        value = get(key)
        if value is not None and (type(value) not in _NUMS or
                                  not 0 <= value < MAX_SECONDS):
            return 'bad ' + key, value
    probe = get(_K_CLOCK_PROBE)
    if probe is not None:
        fault = _check_clock_probe(probe, get(_key('completed_at')))
        if fault is not None:
            return fault
    for key, types, bound in _IDENTITY_SPEC:
        value = get(key)
        if value is not None and (
                type(value) not in types or
                (type(value) in _INTS and not 0 <= value < INT64) or
                (type(value) in _TEXT and len(value) > bound)):
            return 'bad ' + key, value
    local_run = get(_K_LOCAL_RUN)
    if local_run is not None and (type(local_run) not in _TEXT or
                                  not 0 < len(local_run) <= MAX_LOCAL_RUN):
        return 'bad local_run', local_run
    refusal = get(_K_CONFIG_REFUSED)
    if refusal is not None and (type(refusal) not in _TEXT or
                                not 0 < len(refusal) <= MAX_REASON):
        return 'bad config_refused', refusal
    return _check_token_keys(get, ())


_K_CONFIG_REFUSED = _key('config_refused')
# A local worker's run token (protocol.heartbeat): its longest.
_K_LOCAL_RUN = _key('local_run')
MAX_LOCAL_RUN = 64


def refusal_reason(fault):
    """The `config_refused` of a heartbeat (protocol.heartbeat()) for a
    CONFIGURE that check_from_master() found at `fault` ((kind, value)):
    one line with the fault's kind, and its value only when that is a
    number, so that no token, signing key or key name goes back."""
    kind, value = fault
    if type(value) in _NUMS:
        return '%s (%r)' % (kind, value)
    return kind


# What a worker says of itself (protocol.IDENTITY_KEYS): (key, types,
# longest text).  Absent in the heartbeats of earlier workers.
_IDENTITY_SPEC = tuple((_key(k), types, bound) for k, types, bound in (
    ('protocol', _INTS, None), ('host', _TEXT, 255), ('pid', _INTS, None),
    ('version', _TEXT, 64), ('concurrency', _INTS, None)))


# The figures ssbench.worker.health adds to a heartbeat: finite, at least 0.
_HEALTH_KEYS = tuple(_key(k) for k in HEALTH_KEYS)
_K_CLOCK_PROBE = _key('clock_probe')


def _check_clock_probe(probe, sent_at):
    """A heartbeat's clock_probe: [the master's `sent` (a finite
    number), seconds held (a latency)], and a wall-clock time of
    sending."""
    if type(probe) is not list or len(probe) != 2 or \
            not is_finite(probe[0]) or \
            type(probe[1]) not in _NUMS or \
            not 0 <= probe[1] < MAX_SECONDS:
        return 'bad clock_probe', probe
    if type(sent_at) not in _NUMS or not 0 <= sent_at < MAX_EPOCH:
        return 'bad completed_at', sent_at
    return None


def _check_token_keys(get, more):
    """The keys ssbench.swift.tokens adds to a HEARTBEAT (and, with `more`
    ((key, types)...), to a CONFIGURE)."""
    generation = get(_key('token_generation'))
    if generation is not None and (type(generation) not in _INTS or
                                   not 0 < generation < INT64):
        return 'bad token_generation', generation
    for key, types in (('token_rejected', _FLAG),) + more:
        if type(get(_key(key))) not in types:
            return 'bad ' + key, get(_key(key))
    return None


# (key, allowed types) of a job, in JOB_KEYS order: those of the field of
# its result (ssbench.measure.record), any but its type may be nil.
_JOB_SPEC = tuple((_key(k), spec.KINDS[k].types if k == _K_TYPE else
                   spec.KINDS[k].types | spec.NONE) for k in JOB_KEYS)
_JOB_TYPES = dict(_JOB_SPEC)
_JOB_STRINGS = tuple(_key(k) for k in ('size_str', 'container', 'name'))
_K_JOB_ID = _key('job_id')
_K_BLOCK_SIZE = _key('block_size')
# (key, bound) of a job's whole numbers; its result echoes the sizes,
# which the record spec bounds.
_JOB_COUNTS = tuple((_key(k), bound) for k, bound in (
    ('size', MAX_SIZE), ('job_id', INT64), ('delete_after', INT64),
    ('block_size', INT64), ('segment_size', MAX_SIZE),
    ('limit', spec.MAX_COUNT)))
_K_SEGMENT_SIZE = _key('segment_size')
_K_LARGE_OBJECT = _key('large_object')
_LARGE_OBJECT_KINDS = frozenset(_key(k) for k in LARGE_OBJECT_KINDS)
_OBJECT_JOBS = frozenset(_key(k) for k in OPERATION_TYPES)
_JOB_KEY_SET = frozenset(_JOB_TYPES)
# {key: (types, lowest, bound)} of the fast pass over a job's items:
# (None, None) for a key that is not a whole number; a block_size is
# at least 1.
_JOB_ITEMS = dict((key, (types, None, None)) for key, types in _JOB_SPEC)
_JOB_ITEMS.update((key, (_JOB_TYPES[key], 1 if key == _K_BLOCK_SIZE else 0,
                         bound)) for key, bound in _JOB_COUNTS)
_K_SIZE_STR, _K_CONTAINER, _K_NAME = _JOB_STRINGS


def check_from_master(job):
    """None if `job` (received by a worker) is a control job or a job with
    the keys the worker relies on; else (fault kind, offending value).

    A no-op job (`noop` true) is only echoed back: the master checks its
    result, and a result that cannot be sent back costs only itself (see
    Worker._flush).  Any other job asks for a request: it may only have
    JOB_KEYS, with values of the types and ranges the request needs.
    """
    if type(job) is not dict:
        return _NOT_A_MAP, job
    kind = job.get(_K_TYPE)
    if type(kind) not in _TEXT:
        return 'bad type', kind
    if kind in _CONTROL_CHECKS:
        return _CONTROL_CHECKS[kind](job)
    if _K_NOOP in job and job[_K_NOOP] is True:
        return None
    get = job.get
    # The usual job in one pass over its items, with no call per key (a
    # worker checks every job it gets); anything else, or a large
    # object's, takes the checks below, which name the fault.
    if _JOB_KEY_SET.issuperset(job):
        for key, value in job.items():
            types, lowest, bound = _JOB_ITEMS[key]
            if type(value) not in types or (
                    bound is not None and value is not None and
                    not lowest <= value < bound):
                break
        else:
            if _K_SEGMENT_SIZE not in job and (
                    kind not in _OBJECT_JOBS or None not in (
                        get(_K_CONTAINER), get(_K_NAME), get(_K_SIZE_STR))):
                return None
    return _check_job(job, kind, get)


def _check_job(job, kind, get):
    """check_from_master() of a job that asks for a request, key by key:
    the first fault found."""
    if not _JOB_KEY_SET.issuperset(job):
        return 'unknown key', sorted(set(job) - _JOB_KEY_SET, key=repr)[0]
    for key, types in _JOB_SPEC:
        if type(get(key)) not in types:
            return 'bad ' + key, get(key)
    if kind in _OBJECT_JOBS:
        for key in _JOB_STRINGS:
            if get(key) is None:
                return 'missing ' + key, None
    for key, bound in _JOB_COUNTS:
        value = get(key)
        if value is not None and not 0 <= value < bound:
            return 'bad ' + key, value
    if get(_K_BLOCK_SIZE) == 0:
        return 'bad block_size', 0
    if get(_K_SEGMENT_SIZE) is not None and (
            get(_K_SEGMENT_SIZE) == 0 or
            get(_K_LARGE_OBJECT) not in _LARGE_OBJECT_KINDS):
        return 'bad large object', (get(_K_SEGMENT_SIZE),
                                    get(_K_LARGE_OBJECT))
    return None


_PING_KEYS = frozenset((_K_TYPE, _K_JOB_ID))


def _check_ping(job):
    # A PING is answered with a record echoing it: nothing but an id.
    extra = set(job) - _PING_KEYS
    if extra:
        return 'unknown key', sorted(extra, key=repr)[0]
    if type(job.get(_K_JOB_ID)) not in _INT_OR_NONE:
        return 'bad job_id', job.get(_K_JOB_ID)
    return None


def _check_configure(job):
    # Not echoed: keys a worker does not know are ignored.
    get = job.get
    for key in ('connect_timeout', 'network_timeout'):
        value = get(_key(key))
        if value is not None and (type(value) not in _NUMS or
                                  not 0 < value < MAX_SECONDS):
            return 'bad ' + key, value
    # Every CONFIGURE names its protocol version: one without is no
    # master's word (a worker refuses only a version that is named).
    value = get(_key('protocol'))
    if value is None:
        return 'missing protocol', value
    if type(value) not in _INTS or value < 1:
        return 'bad protocol', value
    value = get(_K_BLOCK_SIZE)
    if value is not None and (type(value) not in _INTS or
                              not 0 < value < INT64):
        return 'bad block_size', value
    value = get(_key('retry_backoff'))
    if value is not None and (
            type(value) is not list or len(value) != 2 or
            not all(type(v) in _NUMS and 0 < v < MAX_SECONDS
                    for v in value) or value[0] > value[1]):
        return 'bad retry_backoff', value
    value = get(_key('s3'))
    if value is not None:
        fault = _check_s3(value)
        if fault is not None:
            return fault
    urls = get(_key('storage_urls'))
    if urls is not None and (type(urls) is not list or not urls or not all(
            type(url) in _TEXT for url in urls)):
        return 'bad storage_urls', urls
    value = get(_key('token_expires_in'))
    if value is not None and (type(value) not in _NUMS or
                              not -MAX_SECONDS < value < MAX_SECONDS):
        return 'bad token_expires_in', value
    return _check_token_keys(get, (
        ('token', _TEXT_OR_NONE), ('cacert', _TEXT_OR_NONE),
        ('renewable', _FLAG), ('insecure', _FLAG)))


# A signing key's date and the key itself in hex; the texts of an S3
# map (an endpoint URL, an access key, a region or a service name) are at
# most MAX_S3_TEXT characters.
_S3_DATE = re.compile(r'[0-9]{8}\Z')
_S3_HEX_KEY = re.compile(r'[0-9a-f]{64}\Z')
MAX_S3_TEXT = 2000
_S3_TEXTS = tuple(_key(k) for k in S3_KEYS[3:6]) + (_key(S3_KEYS[0]),)
_S3_KEY_SET = frozenset(_key(k) for k in S3_KEYS)
_S3_ADDRESSING = frozenset(_key(k) for k in S3_ADDRESSING)
# A CONFIGURE holds the keys of the dates a request may carry: two at
# most (ssbench.s3.keyring.key_dates).
MAX_S3_DATES = 2


def _check_s3(value):
    """A CONFIGURE's `s3` map: exactly protocol.S3_KEYS, of sane values."""
    if type(value) is not dict or set(value) != _S3_KEY_SET:
        # Its names only: a fault is logged, and a signing key signs.
        return 'bad s3', (sorted(value, key=repr) if type(value) is dict
                          else type(value).__name__)
    for key in _S3_TEXTS:
        text = value[key]
        if type(text) not in _TEXT or not 0 < len(text) <= MAX_S3_TEXT:
            return 'bad s3 ' + key, text
    if value[_key('addressing')] not in _S3_ADDRESSING:
        return 'bad s3 addressing', value[_key('addressing')]
    if type(value[_key('signed_payload')]) is not bool:
        return 'bad s3 signed_payload', value[_key('signed_payload')]
    keys = value[_key('keys')]
    if type(keys) is not dict or not 0 < len(keys) <= MAX_S3_DATES or \
            not all(type(date) in _TEXT and _S3_DATE.match(date) and
                    type(key) in _TEXT and _S3_HEX_KEY.match(key)
                    for date, key in keys.items()):
        return 'bad s3 keys', sorted(keys) if type(keys) is dict else keys
    return None


def _check_nothing(job):
    return None


_CLOCK_KEYS = frozenset((_K_TYPE, _key('sent')))


def _check_clock(job):
    # Returned in a heartbeat: nothing but a finite number.
    extra = set(job) - _CLOCK_KEYS
    if extra:
        return 'unknown key', sorted(extra, key=repr)[0]
    sent = job.get(_key('sent'))
    if not is_finite(sent):
        return 'bad sent', sent
    return None


def _check_refused(job):
    # Logged by the worker: text of a sane length.
    reason = job.get(_key('reason'))
    if type(reason) not in _TEXT or len(reason) > MAX_REASON:
        return 'bad reason', reason
    return None


# The longest reason of a REFUSED a worker takes.
MAX_REASON = 1000

# The control jobs a worker accepts; any other type is a job.
_CONTROL_CHECKS = {
    _key(REFUSED): _check_refused,
    _key(PING): _check_ping,
    _key(SUICIDE): _check_nothing,
    _key(CONFIGURE): _check_configure,
    _key(HEARTBEAT): _check_nothing,       # ignored by workers
    _key(CLOCK): _check_clock,
}

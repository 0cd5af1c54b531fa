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

from ssbench import CRUD_TYPES
from ssbench.compat import PY2, text_type
from ssbench.wire.protocol import (CLOCK, CONFIGURE, HEALTH_KEYS, HEARTBEAT,
                                   INT64, JOB_KEYS, LARGE_OBJECT_KINDS,
                                   MAX_LATENCY, MAX_TIMESTAMP, PING,
                                   SEGMENTS_KEYS, SUICIDE)


def _key(name):
    # Decoded maps have text keys: on Python 2 a native str key would take
    # a slow compare in every lookup.
    return text_type(name)


if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    _INTS = frozenset((int, long))  # noqa: F821
else:
    _INTS = frozenset((int,))
# Sets of allowed types; bool is not an int here (type(True) is bool).
_NONE = type(None)
_TEXT = frozenset((text_type,))
_NUMS = _INTS | frozenset((float,))
_IDS = _INTS | _TEXT
_TEXT_OR_NONE = _TEXT | frozenset((_NONE,))
_INT_OR_NONE = _INTS | frozenset((_NONE,))
_NUM_OR_NONE = _NUMS | frozenset((_NONE,))
_FLAG = frozenset((bool, _NONE))
_NOT_A_MAP = 'record that is not a map'

_K_TYPE = _key('type')
_K_WORKER_ID = _key('worker_id')
_K_EXCEPTION = _key('exception')
_K_NOOP = _key('noop')


def _product(choices):
    """Every tuple taking one item from each of `choices`, in order."""
    tuples = [()]
    for items in choices:
        tuples = [head + (item,) for head in tuples for item in items]
    return tuples


# (key, allowed types, required, (lowest, bound) of a number) of the keys
# of a result that the master and the stats readers use.  Any integer
# msgpack carries is a fine id (it is stored as it came).
_COUNT = (0, float('inf'))
_LATENCY = (0, MAX_LATENCY)
_RESULT_SPEC = tuple((_key(k), types, required, limits) for (
    k, types, required, limits) in (
        ('job_id', _INTS, True, None),
        ('completed_at', _NUMS, True, (0, MAX_TIMESTAMP)),
        ('retries', _INTS, True, _COUNT),
        ('worker_id', _IDS, True, None),
        ('type', _TEXT, True, None),
        ('size_str', _TEXT, True, None),
        ('container', _TEXT, True, None),
        ('name', _TEXT, True, None),
        ('trans_id', _TEXT_OR_NONE, True, None),
        ('first_byte_latency', _NUM_OR_NONE, False, _LATENCY),
        ('last_byte_latency', _NUM_OR_NONE, False, _LATENCY),
        ('size', _INT_OR_NONE, False, _COUNT),
        ('intended_start', _NUM_OR_NONE, False, (0, MAX_TIMESTAMP)),
        ('exception', _TEXT, False, None),
        ('status', _INT_OR_NONE, False, _COUNT),
        ('reconnects', _INT_OR_NONE, False, _COUNT),
        ('error_class', _TEXT_OR_NONE, False, None),
        ('send_lag', _NUM_OR_NONE, False, _LATENCY),
        ('worker_time', _NUM_OR_NONE, False, _LATENCY),
        ('segment_size', _INT_OR_NONE, False, _COUNT),
        ('large_object', _TEXT_OR_NONE, False, None)))
_K_LAST = _RESULT_SPEC[10][0]
# What ssbench.swift.outcome says of a retried or failed request: seconds
# from its first send to giving up (failures only), and {cause: count} of
# its retries, at most one cause per retry.
_K_TIME_TO_FAILURE = _key('time_to_failure')
_K_RETRY_CAUSES = _key('retry_causes')
_K_RETRIES = _key('retries')
MAX_CAUSE = 200           # characters of a cause's name
_CONTROL_KINDS = frozenset((_key(HEARTBEAT), _key(PING)))


# The fast path: a success with the usual types, without the keys of
# errors and of Swift requests (a no-op result's `size` is its job's).
_get_fast = operator.itemgetter(*(entry[0] for entry in _RESULT_SPEC[:11]))
_FAST_TYPES = frozenset(_product(
    [entry[1] for entry in _RESULT_SPEC[:10]] + [_NUMS]))
_K_STATUS, _K_RECONNECTS, _K_ERROR_CLASS = (
    entry[0] for entry in _RESULT_SPEC[14:17])
_K_SIZE = _RESULT_SPEC[11][0]
_K_INTENDED = _RESULT_SPEC[12][0]
_K_SEND_LAG, _K_WORKER_TIME = (entry[0] for entry in _RESULT_SPEC[17:19])


def check_from_worker(record):
    """None if `record` (received by the master) is a result, a HEARTBEAT
    or a PING answer with the keys the master and the stats readers rely
    on, of sane types and ranges; else (fault kind, offending value)."""
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
        if (0 <= values[1] < MAX_TIMESTAMP and values[2] >= 0 and
                0 <= values[10] < MAX_LATENCY and
                (first is None or 0 <= first < MAX_LATENCY) and
                (size is None or type(size) in _INTS and size >= 0) and
                (intended is None or type(intended) in _NUMS and
                 0 <= intended < MAX_TIMESTAMP) and
                _is_latency(record.get(_K_SEND_LAG)) and
                _is_latency(record.get(_K_WORKER_TIME))):
            return None
    return _check_record(record)


def _is_latency(value):
    """True for None or a number of seconds a latency may be."""
    return value is None or type(value) in _NUMS and \
        0 <= value < MAX_LATENCY


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
    for key, types, required, limits in _RESULT_SPEC:
        value = get(key)
        if value is None and key not in record:
            if required:
                return 'missing ' + key, None
            continue
        if type(value) not in types:
            return 'bad ' + key, value
        if limits is not None and type(value) in _NUMS and \
                not limits[0] <= value < limits[1]:
            return 'bad ' + key, value
    if _K_EXCEPTION not in record and get(_K_LAST) is None:
        return 'missing last_byte_latency', None
    segments = get(_K_SEGMENTS)
    if segments is not None and not is_segments(segments):
        return 'bad segments', segments
    return _check_retry_keys(record)


_K_SEGMENTS = _key('segments')
_SEGMENT_FIGURES = tuple(zip(
    [_key(k) for k in SEGMENTS_KEYS], (_INTS, _INTS, _NUMS, _NUMS)))


def is_segments(value):
    """True for a result's `segments` map: the counts (integers) and
    the seconds (latencies) of protocol.SEGMENTS_KEYS, nothing else."""
    return type(value) is dict and len(value) == len(_SEGMENT_FIGURES) and \
        all(type(value.get(key)) in types and
            0 <= value[key] < MAX_LATENCY
            for key, types in _SEGMENT_FIGURES)


def _check_retry_keys(record):
    """time_to_failure (a failure's latency) and retry_causes, which
    must add up to the record's retries."""
    get = record.get
    time_to_failure = get(_K_TIME_TO_FAILURE)
    if time_to_failure is not None and (
            _K_EXCEPTION not in record or
            type(time_to_failure) not in _NUMS or
            not 0 <= time_to_failure < MAX_LATENCY):
        return 'bad time_to_failure', time_to_failure
    causes = get(_K_RETRY_CAUSES)
    if causes is None:
        return None
    if type(causes) is not dict or not all(
            type(cause) in _TEXT and 0 < len(cause) <= MAX_CAUSE and
            type(count) in _INTS and count > 0
            for cause, count in causes.items()) or \
            sum(causes.values()) != get(_K_RETRIES):
        return 'bad retry_causes', causes
    return None


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
                                  not 0 <= value < MAX_LATENCY):
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
    return _check_token_keys(get, ())


# What a worker says of itself (protocol.IDENTITY_KEYS): (key, types,
# longest text).  Absent in the heartbeats of earlier workers.
_IDENTITY_SPEC = tuple((_key(k), types, bound) for k, types, bound in (
    ('protocol', _INTS, None), ('host', _TEXT, 255), ('pid', _INTS, None),
    ('version', _TEXT, 64), ('concurrency', _INTS, None)))


# The figures ssbench.worker.health adds to a heartbeat: finite, at least 0.
_HEALTH_KEYS = tuple(_key(k) for k in HEALTH_KEYS)
_K_CLOCK_PROBE = _key('clock_probe')
_FINITE = float('inf')


def _check_clock_probe(probe, sent_at):
    """A heartbeat's clock_probe: [the master's `sent` (a finite
    number), seconds held (a latency)], and a wall-clock time of
    sending."""
    if type(probe) is not list or len(probe) != 2 or \
            type(probe[0]) not in _NUMS or \
            not -_FINITE < probe[0] < _FINITE or \
            type(probe[1]) not in _NUMS or \
            not 0 <= probe[1] < MAX_LATENCY:
        return 'bad clock_probe', probe
    if type(sent_at) not in _NUMS or not 0 <= sent_at < MAX_TIMESTAMP:
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


# (key, allowed types) of a job, in JOB_KEYS order.
_JOB_SPEC = tuple(zip([_key(k) for k in JOB_KEYS], (
    _TEXT, _TEXT_OR_NONE, _TEXT_OR_NONE, _TEXT_OR_NONE, _INT_OR_NONE,
    _INT_OR_NONE, _INT_OR_NONE, _FLAG, _INT_OR_NONE, _FLAG,
    _NUM_OR_NONE, _NUM_OR_NONE, _INT_OR_NONE, _TEXT_OR_NONE)))
_JOB_TYPES = dict(_JOB_SPEC)
_JOB_STRINGS = tuple(_key(k) for k in ('size_str', 'container', 'name'))
_K_JOB_ID = _key('job_id')
_K_BLOCK_SIZE = _key('block_size')
_JOB_COUNTS = tuple(_key(k) for k in (
    'size', 'job_id', 'delete_after', 'block_size', 'segment_size'))
_K_SEGMENT_SIZE = _key('segment_size')
_K_LARGE_OBJECT = _key('large_object')
_LARGE_OBJECT_KINDS = frozenset(_key(k) for k in LARGE_OBJECT_KINDS)
_OBJECT_JOBS = frozenset(_key(k) for k in CRUD_TYPES)
_JOB_KEY_SET = frozenset(_JOB_TYPES)


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
    control = _CONTROL_CHECKS.get(kind)
    if control is not None:
        return control(job)
    get = job.get
    if get(_K_NOOP) is True:
        return None
    if not _JOB_KEY_SET.issuperset(job):
        return 'unknown key', sorted(set(job) - _JOB_KEY_SET, key=repr)[0]
    for key, types in _JOB_SPEC:
        if type(get(key)) not in types:
            return 'bad ' + key, get(key)
    if kind in _OBJECT_JOBS:
        for key in _JOB_STRINGS:
            if get(key) is None:
                return 'missing ' + key, None
    for key in _JOB_COUNTS:
        value = get(key)
        if value is not None and not 0 <= value < INT64:
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
                                  not 0 < value < MAX_LATENCY):
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
            not all(type(v) in _NUMS and 0 < v < MAX_LATENCY
                    for v in value) or value[0] > value[1]):
        return 'bad retry_backoff', value
    urls = get(_key('storage_urls'))
    if urls is not None and (type(urls) is not list or not urls or not all(
            type(url) in _TEXT for url in urls)):
        return 'bad storage_urls', urls
    return _check_token_keys(get, (
        ('token', _TEXT_OR_NONE), ('cacert', _TEXT_OR_NONE),
        ('renewable', _FLAG), ('insecure', _FLAG)))


def _check_nothing(job):
    return None


_CLOCK_KEYS = frozenset((_K_TYPE, _key('sent')))


def _check_clock(job):
    # Returned in a heartbeat: nothing but a finite number.
    extra = set(job) - _CLOCK_KEYS
    if extra:
        return 'unknown key', sorted(extra, key=repr)[0]
    sent = job.get(_key('sent'))
    if type(sent) not in _NUMS or not -_FINITE < sent < _FINITE:
        return 'bad sent', sent
    return None


# The control jobs a worker accepts; any other type is a job.
_CONTROL_CHECKS = {
    _key(PING): _check_ping,
    _key(SUICIDE): _check_nothing,
    _key(CONFIGURE): _check_configure,
    _key(HEARTBEAT): _check_nothing,       # ignored by workers
    _key(CLOCK): _check_clock,
}

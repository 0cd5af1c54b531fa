"""The wire and record format: the only module that knows msgpack.

Every ZeroMQ message, and every object in a stats file after the header, is
one msgpack-encoded array of maps.  Strings are packed as msgpack raw
(``use_bin_type=False``) so ssbench 0.3.x under Python 2 reads them as str.

Every message a master or a worker receives goes through decode(), which
keeps the records of the expected shape (check_from_worker() on the master,
check_from_master() on a worker) and drops anything else: a frame that is
not msgpack, not a list, a record that is not a map, or a key the receiver
relies on missing or of the wrong type.  Drops are counted and logged by
an ssbench.faults.Faults; the run goes on.
"""
from __future__ import absolute_import, division, print_function

import operator
import time

import msgpack

from ssbench import CRUD_TYPES
from ssbench.compat import PY2, text_type
from ssbench.errors import SsbenchError

# Control messages between master and workers.  PING is answered like a
# no-op job; SUICIDE makes a worker exit; CONFIGURE hands a worker its
# settings; a worker sends a HEARTBEAT record about once a second.
PING = 'PING'
SUICIDE = 'SUICIDE'
HEARTBEAT = 'HEARTBEAT'
CONFIGURE = 'CONFIGURE'
# Container jobs, for a master that creates or deletes containers through
# its workers (HEAD first, PUT with X-Storage-Policy only if missing).
CREATE_CONTAINER = 'create_container'
DELETE_CONTAINER = 'delete_container'

# Keys a job map may carry from master to worker; the result echoes them.
JOB_KEYS = ('type', 'size_str', 'container', 'name', 'size', 'block_size',
            'delete_after', 'noop', 'job_id', 'head_first', 'policy',
            'intended_start')

# Bounds of sane values: job ids and sizes fit in int64; times are Unix
# seconds before the year 5000; a latency is under 30 years.
INT64 = 1 << 63
MAX_TIMESTAMP = 1e11
MAX_LATENCY = 1e9


class MessageError(SsbenchError):
    """A message that is not msgpack (see unpack())."""


def pack(obj):
    """Encode one message (usually a list of maps) to bytes."""
    return msgpack.packb(obj, use_bin_type=False)


def pack_records(records, faults):
    """(pack(records), records), leaving out any received record msgpack
    cannot encode again (nested deeper than the packer allows, in a key
    nobody reads); each is counted in `faults` (an ssbench.faults.Faults).
    """
    try:
        return pack(records), records
    except (ValueError, TypeError, OverflowError):
        pass
    kept = []
    for record in records:
        try:
            pack(record)
        except (ValueError, TypeError, OverflowError) as exc:
            faults.add('record that cannot be stored', record, exc,
                       claimed=_claimed_id(record))
            continue
        kept.append(record)
    return pack(kept), kept


def unpack(data):
    """Decode one message of a trusted source (a test, a stats file);
    raises MessageError on garbage.  Received messages go through
    decode()."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise MessageError('undecodable message: %s: %s' % (
            type(exc).__name__, exc))


def unpacker(stream=None, max_buffer_size=0, raw=False):
    """A streaming decoder with the same options as unpack(); `raw=True`
    leaves strings as bytes, which decodes faster (for readers that only
    need a few of them as text)."""
    kwargs = {'raw': raw, 'strict_map_key': False}
    if max_buffer_size:
        kwargs['max_buffer_size'] = max_buffer_size
    if stream is None:
        return msgpack.Unpacker(**kwargs)
    return msgpack.Unpacker(stream, **kwargs)


# -- receiving -----------------------------------------------------------

def decode(data, check, faults):
    """The valid records of one received message, and True when that was
    all of it (nothing dropped).

    `check(record)` (check_from_worker on the master, check_from_master
    on a worker) returns None for a valid record, else (fault kind,
    offending value); each dropped frame or record is counted and logged
    through `faults` (an ssbench.faults.Faults).
    """
    try:
        records = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as exc:  # garbage: msgpack raises several types
        faults.add('undecodable message', data, exc)
        return [], False
    if type(records) is not list:
        faults.add('message that is not a list', records)
        return [], False
    for record in records:
        if check(record) is not None:
            break
    else:
        return records, True
    valid = []
    for record in records:
        fault = check(record)
        if fault is None:
            valid.append(record)
        else:
            faults.add(fault[0], fault[1], claimed=_claimed_id(record))
    return valid, False


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


def _claimed_id(record):
    """The worker id a bad record claims, if it is a plausible one."""
    if type(record) is dict:
        worker_id = record.get(_K_WORKER_ID)
        if type(worker_id) in _IDS:
            return worker_id
    return None


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
        ('error_class', _TEXT_OR_NONE, False, None)))
_K_LAST = _RESULT_SPEC[10][0]
_K_SIZE = _RESULT_SPEC[11][0]
_K_INTENDED = _RESULT_SPEC[12][0]
# The fast path: a success with the usual types, without the keys of
# errors and of Swift requests (a no-op result's `size` is its job's).
_get_fast = operator.itemgetter(*(entry[0] for entry in _RESULT_SPEC[:11]))
_FAST_TYPES = frozenset(_product(
    [entry[1] for entry in _RESULT_SPEC[:10]] + [_NUMS]))
_SLOW_KEYS = frozenset(entry[0] for entry in _RESULT_SPEC[13:])


def check_from_worker(record):
    """None if `record` (received by the master) is a result, a HEARTBEAT
    or a PING answer with the keys the master and the stats readers rely
    on, of sane types and ranges; else (fault kind, offending value)."""
    if type(record) is not dict:
        return _NOT_A_MAP, record
    # The usual no-op or Swift success, checked in a few C calls.
    try:
        values = _get_fast(record)
    except KeyError:
        return _check_record(record)
    if (tuple(map(type, values)) in _FAST_TYPES and
            _SLOW_KEYS.isdisjoint(record)):
        size = record.get(_K_SIZE)
        intended = record.get(_K_INTENDED)
        first = values[9]
        if (0 <= values[1] < MAX_TIMESTAMP and values[2] >= 0 and
                0 <= values[10] < MAX_LATENCY and
                (first is None or 0 <= first < MAX_LATENCY) and
                (size is None or type(size) in _INTS and size >= 0) and
                (intended is None or type(intended) in _NUMS and
                 0 <= intended < MAX_TIMESTAMP)):
            return None
    return _check_record(record)


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
    return _check_token_keys(get, ())


def _check_token_keys(get, more):
    """The keys ssbench.tokens adds to a HEARTBEAT (and, with `more`
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
    _TEXT_OR_NONE, _NUM_OR_NONE)))
_JOB_TYPES = dict(_JOB_SPEC)
_JOB_STRINGS = tuple(_key(k) for k in ('size_str', 'container', 'name'))
_K_CONTAINER = _JOB_STRINGS[1]
_K_JOB_ID = _key('job_id')
_K_BLOCK_SIZE = _key('block_size')
_JOB_COUNTS = tuple(_key(k) for k in (
    'size', 'job_id', 'delete_after', 'block_size'))
_OBJECT_JOBS = frozenset(_key(k) for k in CRUD_TYPES)
_CONTAINER_JOBS = frozenset(_key(k) for k in (CREATE_CONTAINER,
                                              DELETE_CONTAINER))
# Verdicts on the shapes (keys and the types of their values) of the jobs
# seen: a real master sends a few shapes; garbage may bring many, so only
# so many are kept.
_job_verdicts = {}
_JOB_VERDICTS_KEPT = 1024
_UNSEEN = object()


def _job_shape_fault(keys, types):
    """(fault kind, key at fault) of a job's keys and value types, or
    None when they are all of JOB_KEYS with allowed types."""
    for key, found in zip(keys, types):
        allowed = _JOB_TYPES.get(key)
        if allowed is None:
            return 'unknown key', key
        if found not in allowed:
            return 'bad ' + key, key
    return None


def check_from_master(job):
    """None if `job` (received by a worker) is a control job or a job with
    the keys the worker relies on, of sane types (a job has JOB_KEYS only,
    so that its result can always be sent back); else (fault kind,
    offending value)."""
    if type(job) is not dict:
        return _NOT_A_MAP, job
    kind = job.get(_K_TYPE)
    if type(kind) not in _TEXT:
        return 'bad type', kind
    control = _CONTROL_CHECKS.get(kind)
    if control is not None:
        return control(job)
    shape = (tuple(job), tuple(map(type, job.values())))
    fault = _job_verdicts.get(shape, _UNSEEN)
    if fault is _UNSEEN:
        fault = _job_shape_fault(*shape)
        if len(_job_verdicts) < _JOB_VERDICTS_KEPT and \
                len(job) <= len(_JOB_TYPES):
            _job_verdicts[shape] = fault
    if fault is not None:
        if fault[0] == 'unknown key':
            return fault
        return fault[0], job[fault[1]]
    get = job.get
    if get(_K_NOOP):
        return None      # answered without a request: types are enough
    if kind in _OBJECT_JOBS:
        for key in _JOB_STRINGS:
            if get(key) is None:
                return 'missing ' + key, None
    elif kind in _CONTAINER_JOBS and get(_K_CONTAINER) is None:
        return 'missing container', None
    for key in _JOB_COUNTS:
        value = get(key)
        if value is not None and not 0 <= value < INT64:
            return 'bad ' + key, value
    if get(_K_BLOCK_SIZE) == 0:
        return 'bad block_size', 0
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
    value = get(_K_BLOCK_SIZE)
    if value is not None and (type(value) not in _INTS or
                              not 0 < value < INT64):
        return 'bad block_size', value
    urls = get(_key('storage_urls'))
    if urls is not None and (type(urls) is not list or not urls or not all(
            type(url) in _TEXT for url in urls)):
        return 'bad storage_urls', urls
    return _check_token_keys(get, (
        ('token', _TEXT_OR_NONE), ('cacert', _TEXT_OR_NONE),
        ('renewable', _FLAG), ('insecure', _FLAG)))


def _check_nothing(job):
    return None


# The control jobs a worker accepts; any other type is a job.
_CONTROL_CHECKS = {
    _key(PING): _check_ping,
    _key(SUICIDE): _check_nothing,
    _key(CONFIGURE): _check_configure,
    _key(HEARTBEAT): _check_nothing,       # ignored by workers
}


# -- building messages ---------------------------------------------------

def ping_job():
    return {'type': PING}


def suicide_job():
    return {'type': SUICIDE}


def configure_job(connect_timeout=None, network_timeout=None,
                  block_size=None, grant=None, renewable=False,
                  insecure=False, cacert=None):
    """A CONFIGURE job: timeouts, block size and, with a Grant
    (ssbench.swiftauth), its storage URLs, token and generation, whether
    the master can renew it, and the TLS options to use it with.  Never a
    key or password."""
    job = {'type': CONFIGURE}
    for key, value in (('connect_timeout', connect_timeout),
                       ('network_timeout', network_timeout),
                       ('block_size', block_size)):
        if value is not None:
            job[key] = value
    if grant is not None:
        job['storage_urls'] = list(grant.storage_urls)
        job['token'] = grant.token
        job['token_generation'] = grant.generation
        job['renewable'] = bool(renewable)
        job['insecure'] = bool(insecure)
        job['cacert'] = cacert
    return job


def heartbeat(worker_id, in_flight, configured=None, token_generation=None,
              token_rejected=False):
    """A control record a worker sends periodically; never stored.

    A worker using its master's token gives the `token_generation` it
    holds, and `token_rejected` once Swift answered 401 to that token (see
    ssbench.tokens).
    """
    record = {'type': HEARTBEAT, 'worker_id': worker_id,
              'in_flight': in_flight, 'completed_at': time.time()}
    if configured is not None:
        record['configured'] = configured
    if token_generation is not None:
        record['token_generation'] = token_generation
        if token_rejected:
            record['token_rejected'] = True
    return record


def result_ok(job, worker_id, first_byte_latency, last_byte_latency,
              trans_id, retries, completed_at=None, status=None,
              reconnects=None, size=None):
    """The record of a job that succeeded (SPEC section 3).

    Jobs that reached Swift also give the final HTTP `status` and the
    `reconnects`, and reads the body bytes as `size`; each is left out
    when None (no-op and PING answers stay as they were).
    """
    result = dict(job)
    result['worker_id'] = worker_id
    result['first_byte_latency'] = first_byte_latency
    result['last_byte_latency'] = last_byte_latency
    result['trans_id'] = trans_id
    result['retries'] = retries
    result['completed_at'] = (time.time() if completed_at is None
                              else completed_at)
    if status is not None:
        result['status'] = status
    if reconnects is not None:
        result['reconnects'] = reconnects
    if size is not None:
        result['size'] = size
    return result


def result_error(job, worker_id, exception, traceback_text, retries,
                 trans_id=None, completed_at=None, status=None,
                 error_class=None, reconnects=None):
    """The record of a job that failed: no latencies, an exception string.

    Its cause: the final HTTP `status`, or without a response the
    `error_class` (see ssbench.swift.error_class); both keys are always
    there, `reconnects` when given.
    """
    result = dict(job)
    result['worker_id'] = worker_id
    result['exception'] = exception
    result['traceback'] = traceback_text
    result['retries'] = retries
    result['trans_id'] = trans_id
    result['completed_at'] = (time.time() if completed_at is None
                              else completed_at)
    result['status'] = status
    result['error_class'] = error_class
    if reconnects is not None:
        result['reconnects'] = reconnects
    return result


def is_control(record):
    """True for heartbeats, which are not results and never stored."""
    return record.get('type') == HEARTBEAT

"""The wire and record format: the only module that knows msgpack.

Every ZeroMQ message, and every object in a stats file after the header, is
one msgpack-encoded array of maps.  Strings are packed as msgpack raw
(``use_bin_type=False``) so ssbench 0.3.x under Python 2 reads them as str.

Every message a master or a worker receives goes through decode(), which
keeps the records of the expected shape (ssbench.wire.messagecheck says which)
and drops anything else: a frame that is not msgpack, not a list, a record that
is not a map, or a key the receiver relies on missing or of the wrong type.
Drops are counted and logged by an ssbench.wire.faultlog.Faults; the run goes
on.
"""
from __future__ import absolute_import, division, print_function

import time

import msgpack

from ssbench.compat import string_types
from ssbench.wire.wirelimits import HELD_IDS

# Control messages between master and workers.  PING is answered like a
# no-op job; SUICIDE makes a worker exit; CONFIGURE hands a worker its
# settings; a worker sends a HEARTBEAT record about once a second on the
# work connection, the first one asking to be admitted; REFUSED tells a
# worker the master will not admit it, and why (it exits).
PING = 'PING'
SUICIDE = 'SUICIDE'
HEARTBEAT = 'HEARTBEAT'
REFUSED = 'REFUSED'
# A master adds a CLOCK record (clock_probe) to a message of jobs now and
# then; the worker that gets it returns it in its next heartbeat, which
# makes a round trip that tells the worker's clock offset (see
# ssbench.master.clockoffset).
CLOCK = 'CLOCK'
CONFIGURE = 'CONFIGURE'
# The wire protocol's version: a worker announces it in every heartbeat
# and a master in every CONFIGURE; a master refuses a worker announcing
# another one (or none), and a worker told another one exits.  Raise it
# whenever a message changes in a way the other side would misread.
# Version 2: work over ROUTER/DEALER, heartbeats on the work connection,
# REFUSED.
PROTOCOL_VERSION = 2
# What a worker says of itself in every heartbeat (besides its id): the
# protocol version, its host name, process id, ssbench version and
# concurrency; the master lists them in the stats file's header.
IDENTITY_KEYS = ('protocol', 'host', 'pid', 'version', 'concurrency')
# Health keys a worker's heartbeat carries (ssbench.worker.health says
# what each measures).
HEALTH_KEYS = ('window', 'cpu', 'loop_lag', 'waiting')
# Health keys a heartbeat adds where the worker's system tells them: what
# tells the client's own limit from a busy host.
HOST_KEYS = ('host_cpu', 'cores', 'run_delay')
# Keys a job map may carry from master to worker; the result echoes them.
# A --rate run's jobs carry `intended_start` (epoch seconds) and
# `send_lag` (seconds from then to leaving the master, on its clock).
# Jobs of a segmented size class carry `segment_size` (bytes) and
# `large_object` ('slo' or 'dlo'); their successes add `segments`
# (ssbench.store.segments.Operation.segment_stats()).
JOB_KEYS = ('type', 'size_str', 'container', 'name', 'size', 'block_size',
            'delete_after', 'noop', 'job_id', 'head_first', 'intended_start',
            'send_lag', 'segment_size', 'large_object', 'limit', 'prefix')
# A CONFIGURE's `s3` map (an S3 run): the endpoint URL, 'path' or
# 'virtual' addressing, whether payloads are signed, and the signing keys
# (ssbench.s3.keyring.KeyMaker.wire_form(): access key, region, service,
# {YYYYMMDD: 64 hex digits}).
S3_KEYS = ('endpoint_url', 'addressing', 'signed_payload', 'access_key',
           'region', 'service', 'keys')
S3_ADDRESSING = ('path', 'virtual')
SEGMENTS_KEYS = ('count', 'retries', 'seconds', 'slowest')


# Job ids (and other whole numbers of the wire that are no part of a
# result record, whose limits ssbench.measure.record sets) fit in int64.
INT64 = 1 << 63


def pack(obj):
    """Encode one message (usually a list of maps) to bytes."""
    return msgpack.packb(obj, use_bin_type=False)


def pack_records(records, faults):
    """(pack(records), records), leaving out any received record msgpack
    cannot encode again (nested deeper than the packer allows, in a key
    nobody reads); each is counted in `faults` (an
    ssbench.wire.faultlog.Faults).
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
            faults.add('record msgpack cannot encode', record, exc,
                       claimed=_claimed_id(record))
            continue
        kept.append(record)
    return pack(kept), kept


def pack_prefix(records, largest, faults):
    """(message, used): the longest prefix of `records` packed into at
    most `largest` bytes (message None when none of it can be sent), and
    how many records that prefix covers.  A record msgpack cannot encode,
    or larger than `largest` alone, is left out and counted in `faults`
    (an ssbench.wire.faultlog.Faults), costing only itself."""
    try:
        data = pack(records)
    except (ValueError, TypeError, OverflowError):
        data = None
    if data is not None and len(data) <= largest:
        return (data if records else None), len(records)
    # An array is its header and its items back to back: pack the items
    # one by one, as far as they fit (each fault counted once: here).
    parts = []
    size = 5                        # the longest array header
    used = 0
    for record in records:
        try:
            part = pack(record)
        except (ValueError, TypeError, OverflowError) as exc:
            faults.add('record msgpack cannot encode', record, exc,
                       claimed=_claimed_id(record))
            part = None
        if part is not None and len(part) + 5 > largest:
            faults.add('record too large to send', len(part),
                       claimed=_claimed_id(record))
            part = None
        if part is not None:
            if size + len(part) > largest:
                break
            parts.append(part)
            size += len(part)
        used += 1
    if not parts:
        return None, used
    header = msgpack.Packer(use_bin_type=False).pack_array_header(
        len(parts))
    return header + b''.join(parts), used


def unpack(data):
    """Decode one message of a trusted source, such as what a test sent;
    received messages go through decode()."""
    return msgpack.unpackb(data, raw=False, strict_map_key=False)


def unpacker(raw=False):
    """A streaming decoder (feed() it bytes) with the same options as
    unpack(); `raw=True` leaves strings as bytes, which decodes faster
    (for readers that only need a few of them as text)."""
    return msgpack.Unpacker(raw=raw, strict_map_key=False)


# -- receiving -----------------------------------------------------------

# Maps and arrays a received message may decode to: one per
# CONTAINER_BYTES of it, and CONTAINERS_FREE more.  Each costs the
# receiver 56 to 280 bytes of memory (by type and interpreter) however
# short it is on the wire (one byte when empty): a message of empty maps
# must not cost 60 to 280 times its size.  Our records and jobs pack
# into 40 bytes or more with at most three maps or arrays per hundred
# bytes, a PING or SUICIDE into 11 (in messages far shorter than
# CONTAINERS_FREE).  Messages of up to CONTAINERS_FREE bytes (at most as
# many maps and arrays, about a megabyte) are not counted: the count
# costs a microsecond a message, a tenth of what a master spends on a
# job.  No array is longer than the ids a heartbeat lists at most, no
# map has more than MAX_MAP_KEYS keys (a CONFIGURE's S3 signing keys,
# one a day, are the most).
CONTAINER_BYTES = 32
CONTAINERS_FREE = 4096
MAX_MAP_KEYS = 4096


class _Allowance(object):
    """Counts the maps and arrays of one decoding (msgpack's object_hook
    and list_hook); past the allowance of its size, each is freed at
    once (None in its place) and the message is undecodable.  Raising
    in a hook would stop the decoding sooner, but msgpack 0.6 (Python
    2.7) then leaks all it had built."""

    __slots__ = ('left',)

    def __init__(self, size):
        self.left = CONTAINERS_FREE + size // CONTAINER_BYTES

    def take(self, value):
        self.left -= 1
        return value if self.left >= 0 else None


def _unpack_received(data, **options):
    if len(data) <= CONTAINERS_FREE:
        return msgpack.unpackb(data, raw=False, strict_map_key=False,
                               **options)
    allowance = _Allowance(len(data))
    decoded = msgpack.unpackb(data, raw=False, strict_map_key=False,
                              object_hook=allowance.take,
                              list_hook=allowance.take,
                              max_array_len=HELD_IDS,
                              max_map_len=MAX_MAP_KEYS, **options)
    if allowance.left < 0:
        raise ValueError('more maps and arrays than its size allows')
    return decoded


def decode(data, check, faults, dropped=None):
    """The valid records of one received message, and True when that was
    all of it (nothing dropped).

    `check(record)` (ssbench.wire.messagecheck.check_from_worker on the master,
    check_from_master on a worker) is None for a valid record, else (fault
    kind, offending value); each dropped frame or record is counted and
    logged through `faults` (an ssbench.wire.faultlog.Faults), and each
    dropped record also given to `dropped(record, fault)` when given.
    """
    intact = True
    try:
        try:
            records = _unpack_received(data)
        except UnicodeDecodeError:
            # A string that is not UTF-8 (say, a worker echoing the bytes
            # of a bad job): read as U+FFFD, so that the rest of the
            # message is kept, and packed again.
            records = _unpack_received(data, unicode_errors='replace')
            intact = False
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
        return records, intact
    valid = []
    for record in records:
        fault = check(record)
        if fault is None:
            valid.append(record)
        else:
            faults.add(fault[0], fault[1], claimed=_claimed_id(record))
            if dropped is not None:
                dropped(record, fault)
    return valid, False


def _claimed_id(record):
    """The worker id a bad record claims, if it has a plausible one."""
    worker_id = record.get('worker_id') if isinstance(record, dict) \
        else None
    if isinstance(worker_id, string_types + (int,)) and \
            not isinstance(worker_id, bool):
        return worker_id
    return None


# -- building messages ---------------------------------------------------

def ping_job():
    return {'type': PING}


def suicide_job():
    return {'type': SUICIDE}


def refused(reason):
    """The message a master sends a worker it does not admit."""
    return {'type': REFUSED, 'reason': reason}


def configure_job(connect_timeout=None, network_timeout=None,
                  block_size=None, grant=None, renewable=False,
                  insecure=False, cacert=None, retry_backoff=None,
                  s3=None, token_expires_in=None):
    """A CONFIGURE job: timeouts, block size, the retry back-off ([base,
    cap] seconds, see ssbench.store.backoff.backoff_delay) and, with a Grant
    (ssbench.swift.auth), its storage URLs, token and generation, whether
    the master can renew it, the seconds until it may expire (when the
    auth server said) and the TLS options to use it with; or, with
    `s3` (a dict of S3_KEYS), the S3 endpoint and the SigV4 signing keys
    (ssbench.s3.keyring.KeyMaker.wire_form()).  Never a key or password:
    a signing key signs only the requests of one day."""
    job = {'type': CONFIGURE, 'protocol': PROTOCOL_VERSION}
    for key, value in (('connect_timeout', connect_timeout),
                       ('network_timeout', network_timeout),
                       ('block_size', block_size)):
        if value is not None:
            job[key] = value
    if retry_backoff is not None:
        job['retry_backoff'] = list(retry_backoff)
    if s3 is not None:
        job['s3'] = s3
    if grant is not None:
        job['storage_urls'] = list(grant.storage_urls)
        job['token'] = grant.token
        job['token_generation'] = grant.generation
        job['renewable'] = bool(renewable)
        job['insecure'] = bool(insecure)
        job['cacert'] = cacert
        if token_expires_in is not None:
            job['token_expires_in'] = token_expires_in
    return job


def clock_probe(sent):
    """A CLOCK record: `sent` is the master's monotonic clock as it goes
    out."""
    return {'type': CLOCK, 'sent': sent}


def identity(concurrency):
    """The IDENTITY_KEYS of this process but the protocol version, which
    heartbeat() adds."""
    import os
    import socket
    from ssbench import version
    return {'host': socket.gethostname(),
            'pid': os.getpid(), 'version': version,
            'concurrency': concurrency}


def heartbeat(worker_id, in_flight, configured=None, token_generation=None,
              token_rejected=False, config_refused=None):
    """A control record a worker sends periodically; never stored.

    A worker using its master's token gives the `token_generation` it
    holds, and `token_rejected` once Swift answered 401 to that token (see
    ssbench.swift.tokens).  A worker whose latest CONFIGURE it could not
    take says why in `config_refused` (one line, no secret in it; see
    ssbench.wire.messagecheck.refusal_reason); a master of before this
    key ignores it.  A worker that got a CLOCK record since its last
    heartbeat adds `clock_probe`: [its `sent`, the seconds the worker held
    it], `completed_at` being the worker's wall clock as it goes out.
    """
    record = {'type': HEARTBEAT, 'worker_id': worker_id,
              'in_flight': in_flight, 'completed_at': time.time(),
              'protocol': PROTOCOL_VERSION}
    if configured is not None:
        record['configured'] = configured
    if token_generation is not None:
        record['token_generation'] = token_generation
        if token_rejected:
            record['token_rejected'] = True
    if config_refused is not None:
        record['config_refused'] = config_refused
    return record


def result_head(job, worker_id):
    """A result's start: its job id and the worker id first, then the
    job's own keys (the master finds the two ids at the front when it
    checks results on their bytes, see ssbench.wire.resultbytes)."""
    if 'job_id' in job:
        result = {'job_id': job['job_id'], 'worker_id': worker_id}
    else:
        result = {'worker_id': worker_id}
    result.update(job)
    result['worker_id'] = worker_id
    return result


def _add_optional(result, completed_at, reconnects, time_to_failure,
                  retry_causes):
    """The keys of result_ok() and result_error() that may be left out."""
    result['completed_at'] = (time.time() if completed_at is None
                              else completed_at)
    if reconnects is not None:
        result['reconnects'] = reconnects
    if time_to_failure is not None:
        result['time_to_failure'] = time_to_failure
    if retry_causes:
        result['retry_causes'] = retry_causes
    return result


def result_ok(job, worker_id, first_byte_latency, last_byte_latency,
              trans_id, retries, completed_at=None, status=None,
              reconnects=None, size=None, retry_causes=None):
    """The record of a job that succeeded (docs/internals.rst, "The result
    record").

    Jobs that reached Swift also give the final HTTP `status` and the
    `reconnects`, reads the body bytes as `size`, and retried jobs their
    `retry_causes` ({HTTP status or error class: count}); each is left
    out when None (no-op and PING answers stay as they were).
    """
    result = result_head(job, worker_id)
    result['first_byte_latency'] = first_byte_latency
    result['last_byte_latency'] = last_byte_latency
    result['trans_id'] = trans_id
    result['retries'] = retries
    if status is not None:
        result['status'] = status
    if size is not None:
        result['size'] = size
    # _add_optional() written out (a success has no time_to_failure): a
    # call fewer per request.
    result['completed_at'] = (time.time() if completed_at is None
                              else completed_at)
    if reconnects is not None:
        result['reconnects'] = reconnects
    if retry_causes:
        result['retry_causes'] = retry_causes
    return result


def result_error(job, worker_id, exception, traceback_text, retries,
                 trans_id=None, completed_at=None, status=None,
                 error_class=None, reconnects=None, time_to_failure=None,
                 retry_causes=None):
    """The record of a job that failed: no latencies, an exception string.

    Its cause: the final HTTP `status`, or without a response the
    `error_class` (see ssbench.store.outcome.error_class); both keys are
    always there, `reconnects` when given, and `time_to_failure` (seconds
    from the job's first send to giving up, retries included) and
    `retry_causes` (as in result_ok()) when not None.
    """
    result = result_head(job, worker_id)
    result['exception'] = exception
    result['traceback'] = traceback_text
    result['retries'] = retries
    result['trans_id'] = trans_id
    result['status'] = status
    result['error_class'] = error_class
    return _add_optional(result, completed_at, reconnects, time_to_failure,
                         retry_causes)

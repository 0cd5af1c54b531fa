"""The wire and record format: the only module that knows msgpack.

Every ZeroMQ message, and every object in a stats file after the header, is
one msgpack-encoded array of maps.  Strings are packed as msgpack raw
(``use_bin_type=False``) so ssbench 0.3.x under Python 2 reads them as str.
"""
from __future__ import absolute_import, division, print_function

import time

import msgpack

from ssbench import HEARTBEAT, PING, SUICIDE
from ssbench.errors import SsbenchError

# Keys a job map may carry from master to worker; the result echoes them.
JOB_KEYS = ('type', 'size_str', 'container', 'name', 'size', 'block_size',
            'delete_after', 'noop', 'job_id')


class ProtocolError(SsbenchError):
    """A message or stream that is not valid msgpack of the expected shape."""


def pack(obj):
    """Encode one message (usually a list of maps) to bytes."""
    return msgpack.packb(obj, use_bin_type=False)


def unpack(data):
    """Decode one message; raises ProtocolError on garbage."""
    try:
        return msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception as exc:  # msgpack raises several unrelated types
        raise ProtocolError('undecodable message: %s' % (exc,))


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


def ping_job():
    return {'type': PING}


def suicide_job():
    return {'type': SUICIDE}


def heartbeat(worker_id, in_flight):
    """A control record a worker sends periodically; never stored."""
    return {'type': HEARTBEAT, 'worker_id': worker_id,
            'in_flight': in_flight, 'completed_at': time.time()}


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

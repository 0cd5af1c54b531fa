"""The wire bounded in bytes: the largest message each socket takes
(ZMQ_MAXMSGSIZE) and how many libzmq may queue for it per connection (its
receive high-water mark), both derived from what a legitimate peer sends.

libzmq disconnects a peer whose frame is larger than the socket's maximum
before reading it, and stops reading a connection whose queue is full, so
what one connection can make the receiver hold is at most
`queued_bytes(largest, marks)`.  The receiver drops (and logs, through
ssbench.wire.faultlog) a message larger than a legitimate peer sends but
within the margin, or one of more records than a legitimate peer sends.

Each bound is OVERSTEP times the largest legitimate message, plus
MARGIN: CURVE adds CURVE_OVERHEAD bytes to each frame on the wire, which
libzmq counts.  A frame up to the bound is read, dropped and logged; a
larger one only ends its connection, which libzmq does not say why.
docs/reliability.rst ("The wire in bytes") gives the figures.
"""
from __future__ import absolute_import, division, print_function

import struct

from ssbench.measure.record import MAX_USER_COUNT

KIB = 1024
MIB = 1024 * KIB
# msgpack's longest integer (uint64, int64), as job ids may be.
INT_BYTES = 9
# A CURVE MESSAGE command: its name and nonce (16 bytes), the box's MAC
# (16) and the flags byte.
CURVE_OVERHEAD = 33
# What every bound allows beyond the largest legitimate message.
MARGIN = 64 * KIB

# -- the work connection, worker to master: heartbeats -------------------
# The most jobs a worker holds: the largest user count a scenario allows,
# twice over after a stall (the jobs it held leave room for others).
HELD_IDS = 2 * MAX_USER_COUNT
# A heartbeat's other keys: its identity (a host name of at most 255
# bytes, a version), health figures, a clock probe and a config_refused
# line of at most 1000 characters (4 bytes each in UTF-8 at most).
HEARTBEAT_REST = 16 * KIB
LARGEST_HEARTBEAT = HELD_IDS * INT_BYTES + HEARTBEAT_REST
# Records in a message of the work connection: a worker sends one
# heartbeat a message.
CONTROL_RECORDS = 16

# -- the results connection, worker to master ----------------------------
# A worker packs its results into messages of at most this many bytes
# (ssbench.worker.outbox): a full batch of 1000 results of typical size
# (200-500 bytes) fits, and larger results or batches go out as several
# messages back to back.  A single result larger than this is dropped by
# the worker and counted (its job counted lost by the master).
RESULTS_SPLIT = 1 * MIB
# Records in a results message: at most a --batch-size batch (at most
# MAX_USER_COUNT) or a coalesced batch of 1000, whichever is more.
RESULT_RECORDS = MAX_USER_COUNT

# -- the work connection, master to worker: jobs and control --------------
# The master packs a message of jobs into at most this many bytes, unless
# a single job is larger (ssbench.master.phase); a clock probe adds a few
# dozen bytes.
JOBS_SPLIT = 1 * MIB
# One job's text comes from the scenario file (at most 1 MiB, a size
# class's name three times at most: `size_str`, `name`, a listing's
# `prefix`) and the command line (a policy in `container`, at most 128
# KiB an argument on Linux); its numbers take a few hundred bytes.  A
# CONFIGURE carries a token, storage URLs and S3 signing keys: a few KiB.
LARGEST_JOB = 4 * MIB

# How many times the largest legitimate message the master reads (and
# drops, and logs) before it cuts a peer off: heartbeats of 2 MiB and
# results messages of 8 MiB, what it took before (and what a worker of
# an earlier build of this protocol version may send), are logged.
OVERSTEP = {'heartbeat': 2, 'results': 8, 'jobs': 1}

# The receive high-water marks: messages queued per connection.  A
# worker sends a heartbeat a second (two while it asks for a token) and
# the master looks every 50 ms; a worker's results wait in its own send
# queue (and the kernel's buffers) while the master's is full, and go
# out coalesced, so nothing is lost.  A worker takes its jobs as they
# come; the master's send queue holds what it has not taken yet.
CONTROL_RCVHWM = 2
RESULTS_RCVHWM = 2
WORKER_RCVHWM = 16


def bound(largest, overstep=1):
    """The ZMQ_MAXMSGSIZE of a socket whose peers send messages of at
    most `largest` bytes: `overstep` times that, and room for CURVE and
    the margin."""
    return largest * overstep + CURVE_OVERHEAD + MARGIN


def queued_bytes(largest, marks):
    """The most bytes one connection can make libzmq queue at a socket of
    maximum `largest` (ZMQ_MAXMSGSIZE) and receive high-water mark
    `marks`: its full queue, and the frame it is reading."""
    return largest * (marks + 1)


def excess(data, largest, records):
    """Why a received message is more than a legitimate peer sends (a
    kind of fault, see ssbench.wire.faultlog), or None: longer than
    `largest` bytes, or a msgpack array of more than `records` items
    (at least 16), which would cost the receiver a Python object each."""
    if len(data) > largest:
        return 'message larger than a worker sends'
    head = data[:1]
    if head == b'\xdc' and len(data) >= 3:
        count = struct.unpack_from('>H', data, 1)[0]
    elif head == b'\xdd' and len(data) >= 5:
        count = struct.unpack_from('>I', data, 1)[0]
    else:
        return None
    if count > records:
        return 'message of more records than a worker sends'
    return None


MAX_CONTROL_MESSAGE = bound(LARGEST_HEARTBEAT, OVERSTEP['heartbeat'])
MAX_RESULTS_MESSAGE = bound(RESULTS_SPLIT, OVERSTEP['results'])
MAX_MASTER_MESSAGE = bound(max(JOBS_SPLIT, LARGEST_JOB), OVERSTEP['jobs'])
# A socket that receives no message (a worker's PUSH) still reads ZMTP
# commands: heartbeats and CURVE's handshake, a few hundred bytes.
COMMANDS_ONLY = bound(0)

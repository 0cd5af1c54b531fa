"""Which security mechanism a ZeroMQ peer announces, read from its greeting.

A CURVE worker pointed at a master without CURVE usually hears so from
libzmq as a protocol error.  But the master hangs up as soon as it reads
the worker's CURVE greeting, and when its reset reaches the worker before
the worker has read the master's greeting, libzmq reports a failure with
no detail, the same as for a wrong master.key; that can happen on every
try.  A plain TCP connection that announces NULL settles it: a master
without CURVE answers with a greeting that names NULL.  The probe never
sends the READY command, so no ZeroMQ connection is made (no job can go
to it).
"""
from __future__ import absolute_import, division, print_function

import socket

# ZMTP 3.0 (rfc.zeromq.org/spec/23): a 10-byte signature, the version,
# a 20-byte mechanism name padded with NULs, as-server, 31 bytes filler.
GREETING_SIZE = 64
_SIGNATURE = b'\xff' + b'\x00' * 8 + b'\x7f'
_MECHANISM = slice(12, 32)
_NULL_GREETING = (_SIGNATURE + b'\x03\x00' + b'NULL'.ljust(20, b'\x00') +
                  b'\x00' + b'\x00' * 31)


def tcp_address(endpoint):
    """(host, port) of a 'tcp://HOST:PORT' endpoint ('[::1]' for IPv6);
    None for another transport."""
    if not endpoint.startswith('tcp://'):
        return None
    host, _, port = endpoint[len('tcp://'):].rpartition(':')
    return host.strip('[]'), int(port)


def peer_mechanism(endpoint, timeout=1.0):
    """The mechanism ('NULL', 'CURVE', ...) the ZeroMQ peer bound at
    `endpoint` announces; None when it could not be read (no peer, not
    ZMTP 3, or it hung up first)."""
    address = tcp_address(endpoint)
    if address is None:
        return None
    try:
        conn = socket.create_connection(address, timeout)
    except (socket.error, ValueError):    # socket.timeout is one
        return None
    try:
        conn.sendall(_NULL_GREETING)
        data = b''
        while len(data) < GREETING_SIZE:
            chunk = conn.recv(GREETING_SIZE - len(data))
            if not chunk:
                break
            data += chunk
    except socket.error:
        return None
    finally:
        conn.close()
    if len(data) < GREETING_SIZE or data[:1] != b'\xff' or \
            data[9:10] != b'\x7f' or data[10:11] < b'\x03':
        return None
    return data[_MECHANISM].rstrip(b'\x00').decode('ascii', 'replace')

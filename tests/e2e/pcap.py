"""Capture loopback TCP traffic with tcpdump and read it back as streams.

    with Capture(path, [port1, port2]) as capture:
        ... traffic ...
    streams = capture.streams()   # {(src port, dst port): bytes}

Only what the test needs of the pcap format: the classic file format (not
pcapng), Ethernet or Linux cooked link layers, IPv4/IPv6, TCP.  Each
direction's payloads are joined in sequence order, so a secret split over
two segments is still found.  Python 2.7 and 3.
"""
from __future__ import absolute_import, division, print_function

import os
import struct
import subprocess
import time

# Bytes before the IP header, by pcap link type.
_LINK_HEADERS = {1: 14, 113: 16, 276: 20}


def tcpdump_usable():
    """True when tcpdump exists and we may capture (root)."""
    if os.geteuid() != 0:
        return False
    for directory in os.environ.get('PATH', '').split(os.pathsep) + [
            '/usr/sbin', '/usr/bin']:
        if os.access(os.path.join(directory, 'tcpdump'), os.X_OK):
            return True
    return False


class Capture(object):
    """tcpdump on `lo` of the TCP traffic to and from `ports`, into
    `path`, between __enter__ and __exit__."""

    def __init__(self, path, ports, timeout=10):
        self.path = path
        self.ports = list(ports)
        self.timeout = timeout
        self.proc = None
        self.err_path = path + '.err'

    def __enter__(self):
        expression = ' or '.join('tcp port %d' % p for p in self.ports)
        with open(self.err_path, 'wb') as err:
            with open(os.devnull, 'wb') as null:
                self.proc = subprocess.Popen(
                    ['tcpdump', '-i', 'lo', '-n', '-U', '-s', '0', '-w',
                     self.path, expression], stdout=null, stderr=err)
        deadline = time.time() + self.timeout
        while b'listening on' not in self._err():
            if self.proc.poll() is not None or time.time() > deadline:
                self._stop()
                raise RuntimeError('tcpdump did not start: %s'
                                   % self._err().decode('utf-8', 'replace'))
            time.sleep(0.05)
        return self

    def _err(self):
        with open(self.err_path, 'rb') as fp:
            return fp.read()

    def _stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            deadline = time.time() + self.timeout
            while self.proc.poll() is None and time.time() < deadline:
                time.sleep(0.05)
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()

    def __exit__(self, *exc_info):
        # A moment for the last segments to reach tcpdump.
        time.sleep(0.5)
        self._stop()
        return False

    def streams(self):
        with open(self.path, 'rb') as fp:
            return tcp_streams(fp.read())


def tcp_streams(data):
    """{(src port, dst port): payload bytes in sequence order}."""
    magic = data[:4]
    if magic == b'\xd4\xc3\xb2\xa1':
        order = '<'
    elif magic == b'\xa1\xb2\xc3\xd4':
        order = '>'
    else:
        raise ValueError('not a classic pcap file')
    link_type = struct.unpack(order + 'I', data[20:24])[0]
    skip = _LINK_HEADERS[link_type]
    segments = {}
    first = {}
    offset = 24
    while offset + 16 <= len(data):
        captured = struct.unpack(order + 'I', data[offset + 8:offset + 12])[0]
        packet = data[offset + 16:offset + 16 + captured]
        offset += 16 + captured
        found = _tcp_segment(packet[skip:])
        if found is not None:
            key, seq, payload = found
            # Relative to the first segment: sequence numbers wrap.
            seq = (seq - first.setdefault(key, seq)) % (1 << 32)
            segments.setdefault(key, {})[seq] = payload
    return dict((key, b''.join(by_seq[seq] for seq in sorted(by_seq)))
                for key, by_seq in segments.items())


def _tcp_segment(ip):
    """((src port, dst port), seq, payload) of a TCP packet, else None."""
    if not ip:
        return None
    version = ord(ip[:1]) >> 4
    if version == 4:
        header = (ord(ip[:1]) & 0x0f) * 4
        total = struct.unpack('>H', ip[2:4])[0]
        protocol = ord(ip[9:10])
        ip = ip[:total]
    elif version == 6:
        header = 40
        protocol = ord(ip[6:7])
    else:
        return None
    if protocol != 6:
        return None
    tcp = ip[header:]
    sport, dport, seq = struct.unpack('>HHI', tcp[:8])
    data_offset = (ord(tcp[12:13]) >> 4) * 4
    payload = tcp[data_offset:]
    if not payload:
        return None
    return (sport, dport), seq, payload

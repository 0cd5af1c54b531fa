"""A reader of HdrHistogram interval logs for the tests of --hdr-log,
written from the format's description (not from ssbench's writer): the
log's lines, each histogram's compressed V2 encoding decoded, and the
values its counts stand for."""
from __future__ import absolute_import, division, print_function

import base64
import collections
import struct
import zlib

V2_COOKIE = 0x1c849313
V2_COMPRESSED_COOKIE = 0x1c849314

Decoded = collections.namedtuple(
    'Decoded', 'digits lowest highest ratio offset counts')
Line = collections.namedtuple('Line', 'tag start length max hist')


def _varints(data):
    """The ZigZag LEB128-64b9B numbers of `data` (9th byte: 8 bits)."""
    i = 0
    while i < len(data):
        value = shift = 0
        for n in range(9):
            byte = bytearray(data[i:i + 1])[0]
            i += 1
            if n == 8:
                value |= byte << 56
                break
            value |= (byte & 0x7f) << shift
            shift += 7
            if not byte & 0x80:
                break
        yield (value >> 1) ^ -(value & 1)


def decode(text):
    """A Decoded of a base64 compressed V2 histogram; `counts` is the
    counts array as encoded (up to the largest value's bucket)."""
    blob = base64.b64decode(text)
    cookie, length = struct.unpack('>ii', blob[:8])
    assert cookie == V2_COMPRESSED_COOKIE, hex(cookie)
    assert length == len(blob) - 8
    raw = zlib.decompress(blob[8:])
    (cookie, payload, offset, digits, lowest, highest,
     ratio) = struct.unpack('>iiiiqqd', raw[:40])
    assert cookie == V2_COOKIE, hex(cookie)
    assert payload == len(raw) - 40
    counts = []
    for number in _varints(raw[40:]):
        counts.extend([0] * -number if number < 0 else [number])
    return Decoded(digits, lowest, highest, ratio, offset, counts)


def bucket_values(decoded):
    """[(lowest, highest) value of each counts index] of a Decoded's
    layout."""
    unit = decoded.lowest.bit_length() - 1
    half_magnitude = (2 * 10 ** decoded.digits - 1).bit_length() - 1
    half = 1 << half_magnitude
    out = []
    for index in range(len(decoded.counts)):
        bucket = (index >> half_magnitude) - 1
        sub = (index & (half - 1)) + half
        if bucket < 0:
            sub -= half
            bucket = 0
        low = sub << (bucket + unit)
        out.append((low, low + (1 << (bucket + unit)) - 1))
    return out


def read_log(text):
    """(the comment lines, [Line] of the interval lines) of a log."""
    comments, lines = [], []
    for row in text.splitlines():
        if row.startswith('#'):
            comments.append(row)
            continue
        if row.startswith('"StartTimestamp"'):
            continue
        fields = row.split(',')
        tag = None
        if fields[0].startswith('Tag='):
            tag = fields.pop(0)[len('Tag='):]
        start, length, top, hist = fields
        lines.append(Line(tag, float(start), float(length), float(top),
                          decode(hist)))
    return comments, lines

"""The HdrHistogram interval log of report-scenario --hdr-log
(docs/live-view.rst, "HdrHistogram interval log"): the text format that
HdrHistogram's HistogramLogReader and HistogramLogProcessor read, log
format 1.3, each interval's histogram in its compressed V2 encoding.

A line per tag for every interval that holds a value, an empty
histogram where the interval holds none of that tag's:
untagged for every operation (what HistogramLogProcessor reads without
-tag), then ``Tag=LABEL`` for each operation.  Values are nanoseconds;
Interval_Max is in milliseconds, as HdrHistogram's writer puts it by
default.
"""
from __future__ import absolute_import, division, print_function

import base64
import struct
import time
import zlib

from ssbench.compat import write_text
from ssbench.report.compute.hdrintervals import HIGHEST, Histogram

# The V2 encoding's cookies, with 0x10: its counts are ZigZag LEB128.
V2_COOKIE = 0x1c849303 | 0x10
V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10
# Nanoseconds in the unit of Interval_Max (ms).
MAX_UNIT = 10 ** 6
FORMAT_VERSION = '1.3'
LEGEND = ('"StartTimestamp","Interval_Length","Interval_Max",'
          '"Interval_Compressed_Histogram"')


def _varint(out, value):
    """LEB128 of a value >= 0; below 2**56, as every count and run of
    zeros here, HdrHistogram's 9-byte variant writes the same bytes."""
    while value > 0x7f:
        out.append(0x80 | (value & 0x7f))
        value >>= 7
    out.append(value)


def encode(hist, layout):
    """The base64 text of a Histogram's compressed V2 encoding: the
    counts up to the largest value's, each as ZigZag LEB128, a run of
    zeros as its negated length (a lone zero as 0)."""
    payload = bytearray()
    written = -1
    for i in sorted(hist.counts):
        gap = i - written - 1
        if gap:
            _varint(payload, 2 * gap - 1 if gap > 1 else 0)
        _varint(payload, 2 * hist.counts[i])
        written = i
    if written < 0:
        payload.append(0)       # an empty histogram: its one count, 0
    header = struct.pack('>iiiiqqd', V2_COOKIE, len(payload), 0,
                         layout.digits, layout.lowest,
                         max(HIGHEST, hist.max), 1.0)
    packed = zlib.compress(header + bytes(payload), 9)
    blob = struct.pack('>ii', V2_COMPRESSED_COOKIE, len(packed)) + packed
    return base64.b64encode(blob).decode('ascii')


def write_hdr_log(intervals, out, generator):
    """Write the log of an hdrintervals.Intervals to a text stream;
    `generator` names the writer in its first comment."""
    seconds = intervals.seconds
    first = intervals.ks[0] if intervals.ks else 0
    start = first * seconds
    write_text(out, u''.join(line + u'\n' for line in (
        u'#[%s; values in nanoseconds, Interval_Max in milliseconds]'
        % (generator,),
        u'#[Histogram log format version %s]' % (FORMAT_VERSION,),
        u'#[StartTime: %.3f (seconds since epoch), %s]' % (
            start, time.strftime('%Y-%m-%d %H:%M:%S UTC',
                                 time.gmtime(start))),
        u'#[BaseTime: %.3f (seconds since epoch)]' % (start,),
        LEGEND)))
    empty = Histogram()
    empty_text = encode(empty, intervals.layout)
    for k in intervals.ks:
        for tag in intervals.tags:
            hist = intervals.hists.get((k, tag), empty)
            write_text(out, u'%s%.3f,%.3f,%.3f,%s\n' % (
                u'' if tag is None else u'Tag=%s,' % (tag,),
                (k - first) * seconds, seconds,
                hist.max / MAX_UNIT,
                empty_text if hist is empty else
                encode(hist, intervals.layout)))

"""The HdrHistogram interval log (--hdr-log): histograms encoded as
HdrHistogram's own writer encodes them, read back by the tests' reader
(tests/hdrlogs.py), and the log's text."""
from __future__ import absolute_import, division, print_function

import io
import random

import pytest

from ssbench.report.compute.hdrintervals import (HIGHEST, Histogram,
                                                 Intervals, Layout)
from ssbench.report.render.hdrlog import encode, write_hdr_log
from tests import hdrlogs

# Two intervals of a log written by jHiccup (HdrHistogram's
# src/test/resources/org/HdrHistogram/jHiccup-2.0.7S.logV2.hlog, public
# domain): 2 significant digits, lowest discernible value 20000, highest
# trackable value an hour, as (Interval_Max in ms, histogram).
JHICCUP = (
    (2.769, 'HISTFAAAAEV42pNpmSzMwMCgyAABTBDKT4GBgdnNYMcCBvsPEBEJISEuATEZMQ4u'
            'ASkhIR4nrxg9v2lMaxhvMekILGZkKmcCAEf2CsI='),
    (0.442, 'HISTFAAAAEJ42pNpmSzMwMAgxwABTBDKT4GBgdnNYMcCBvsPEBEWLj45FTExAT4p'
            'BSEBKa6UkAgBi1uM7xjfMMlwMDABAC0CCjM='),
)


def histogram(layout, nanos):
    hist = Histogram()
    for value in nanos:
        i = layout.index(value)
        hist.counts[i] = hist.counts.get(i, 0) + 1
        hist.max = max(hist.max, value)
    return hist


@pytest.mark.parametrize('top, text', JHICCUP)
def test_encodes_a_histogram_as_hdrhistogram_does(top, text):
    decoded = hdrlogs.decode(text)
    assert (decoded.digits, decoded.lowest, decoded.highest) == (
        2, 20000, HIGHEST)
    spans = hdrlogs.bucket_values(decoded)
    # Interval_Max is the top bucket's highest value, in ms.
    assert spans[-1][0] <= top * 1e6 <= spans[-1][1] + 1000
    hist = Histogram()
    hist.counts = dict((i, n) for i, n in enumerate(decoded.counts) if n)
    hist.max = spans[-1][0]
    assert encode(hist, Layout(2, 20000)) == text


@pytest.mark.parametrize('digits, lowest', [(3, 1), (2, 20000), (1, 1000)])
def test_each_value_is_counted_in_its_bucket(digits, lowest):
    rng = random.Random(digits)
    layout = Layout(digits, lowest)
    nanos = [0, 1, lowest, 2047, 2048, 4095, 4096, 10 ** 9, 3 * 10 ** 12,
             10 ** 18] + [int(rng.lognormvariate(17, 3)) for _ in range(500)]
    decoded = hdrlogs.decode(encode(histogram(layout, nanos), layout))
    spans = hdrlogs.bucket_values(decoded)
    for value in nanos:
        low, high = spans[layout.index(value)]
        assert low <= value <= high
        # The precision the digits promise.
        assert high - low < max(lowest, 2 * value / 10 ** digits)
    assert sum(decoded.counts) == len(nanos)
    assert decoded.highest == max(HIGHEST, 10 ** 18)


def test_counts_and_runs_of_zeros_round_trip():
    layout = Layout()
    # Adjacent buckets, a lone empty bucket, long and short gaps, a
    # count past one LEB128 byte.
    nanos = [5, 6, 8] + [3000] * 300 + [3002, 10 ** 6, 10 ** 6 + 1000]
    hist = histogram(layout, nanos)
    decoded = hdrlogs.decode(encode(hist, layout))
    assert dict((i, n) for i, n in enumerate(decoded.counts) if n) == \
        hist.counts
    assert len(decoded.counts) == layout.index(max(nanos)) + 1
    assert (decoded.digits, decoded.lowest, decoded.highest, decoded.ratio,
            decoded.offset) == (3, 1, HIGHEST, 1.0, 0)


def test_an_empty_histogram_has_one_empty_bucket():
    assert hdrlogs.decode(encode(Histogram(), Layout())).counts == [0]


def test_the_log():
    intervals = Intervals(2.5)
    layout = intervals.layout
    intervals.ks = [680000000, 680000003]
    intervals.tags = [None, 'READ', 'READ-first-byte']
    intervals.hists = {
        (680000000, None): histogram(layout, [10 ** 6, 3 * 10 ** 6]),
        (680000000, 'READ'): histogram(layout, [10 ** 6]),
        (680000003, None): histogram(layout, [2500000]),
        (680000003, 'READ-first-byte'): histogram(layout, [1234567]),
    }
    out = io.StringIO()
    write_hdr_log(intervals, out, u'ssbench test')
    comments, lines = hdrlogs.read_log(out.getvalue())
    assert comments == [
        '#[ssbench test; values in nanoseconds, Interval_Max in '
        'milliseconds]',
        '#[Histogram log format version 1.3]',
        '#[StartTime: 1700000000.000 (seconds since epoch), '
        '2023-11-14 22:13:20 UTC]',
        '#[BaseTime: 1700000000.000 (seconds since epoch)]']
    assert out.getvalue().splitlines()[4] == (
        '"StartTimestamp","Interval_Length","Interval_Max",'
        '"Interval_Compressed_Histogram"')
    assert [(line.tag, line.start, line.length, line.max,
             sum(line.hist.counts)) for line in lines] == [
        (None, 0.0, 2.5, 3.0, 2), ('READ', 0.0, 2.5, 1.0, 1),
        ('READ-first-byte', 0.0, 2.5, 0.0, 0),
        (None, 7.5, 2.5, 2.5, 1), ('READ', 7.5, 2.5, 0.0, 0),
        ('READ-first-byte', 7.5, 2.5, 1.235, 1)]


def test_a_log_without_values_has_its_header_only():
    out = io.StringIO()
    write_hdr_log(Intervals(1), out, u'ssbench test')
    assert len(out.getvalue().splitlines()) == 5
    assert hdrlogs.read_log(out.getvalue())[1] == []

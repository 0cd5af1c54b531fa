"""The --hdr-log intervals: the latencies the report reads, cut by
completion time and counted in HdrHistogram's buckets, against the
obvious computation and against the analysis's counts."""
from __future__ import absolute_import, division, print_function

import collections
import math
import os
import random

import pytest

from ssbench.errors import StatsFileError
from ssbench.report.compute import hdrintervals
from ssbench.report.compute.analyze import analyze
from ssbench.report.compute.cells import GROUPS
from ssbench.results.statsreader import open_stats
from tests import analysis_naive as naive, paths
from tests.analysis_naive import FakeStatsFile, err, res

LABELS = dict((job, label) for label, _, job in GROUPS if job)
GOLDEN_SWIFT = os.path.join(paths.GOLDEN, 'swift_u8_o2000_c10.stat.gz')


def expected(results, seconds):
    """({(k, tag): Counter of bucket indexes}, {(k, tag): max}), the
    obvious way."""
    layout = hdrintervals.Layout()
    counts = collections.defaultdict(collections.Counter)
    maxes = collections.defaultdict(int)
    for result in results:
        last = result.get('last_byte_latency')
        if 'exception' in result or not last:
            continue
        k = int(math.floor(result['completed_at'] / seconds))
        label = LABELS.get(result['type'])
        found = [(None, last)]
        if label:
            found.append((label, last))
            if result.get('first_byte_latency'):
                found.append((label + '-first-byte',
                              result['first_byte_latency']))
        for tag, value in found:
            nanos = int(value * 1e9 + 0.5)
            counts[k, tag][layout.index(nanos)] += 1
            maxes[k, tag] = max(maxes[k, tag], nanos)
    return counts, maxes


def counted(intervals):
    return dict((key, collections.Counter(hist.counts))
                for key, hist in intervals.hists.items())


@pytest.mark.parametrize('seconds', [1, 2.5, 0.1])
def test_intervals_equal_the_obvious_computation(seconds):
    results = naive.random_results(random.Random(7), 3000)
    intervals = hdrintervals.cut(FakeStatsFile(results), seconds)
    counts, maxes = expected(results, seconds)
    assert counted(intervals) == counts
    assert dict((key, hist.max) for key, hist in
                intervals.hists.items()) == maxes
    assert intervals.ks == sorted(set(k for k, _ in counts))
    # Unknown job types (copy_object) count only in the untagged lines.
    assert intervals.tags == [None, 'CREATE', 'READ', 'UPDATE', 'DELETE',
                              'READ-first-byte']


@pytest.mark.parametrize('skip', [0, 40])
def test_counts_are_the_analysis_counts(skip):
    results = naive.random_results(random.Random(3), 2000,
                                   types=naive.CRUD_TYPES +
                                   ('head_object', 'list_container'))
    intervals = hdrintervals.cut(FakeStatsFile(results), 1, skip)
    doc = analyze(FakeStatsFile(results), skip=skip)
    for op in doc['operations']:
        tag = None if op['operation'] == 'total' else \
            op['operation'].upper()
        for kind, suffix in (('last_byte', ''),
                             ('first_byte', '-first-byte')):
            want = op['latency'][kind][0]['count']
            if tag is None and suffix:
                continue
            got = sum(sum(hist.counts.values())
                      for (_, t), hist in intervals.hists.items()
                      if t == (tag if tag is None else tag + suffix))
            assert got == want, (tag, kind)
    assert 'HEAD' in intervals.tags and 'LIST' in intervals.tags


def test_failures_and_zero_latencies_are_left_out():
    results = [res(at=10.2, last=0.5, first=0.25), err(at=10.3),
               res(at=10.4, last=0.0, first=0.0),
               res(at=11.0, last=None, first=None),
               res('upload_object', at=12.9, last=1.5, first=None)]
    intervals = hdrintervals.cut(FakeStatsFile(results), 1)
    assert intervals.ks == [10, 12]
    assert intervals.tags == [None, 'CREATE', 'READ', 'READ-first-byte']
    assert dict((key, hist.max) for key, hist in
                intervals.hists.items()) == {
        (10, None): 5 * 10 ** 8, (10, 'READ'): 5 * 10 ** 8,
        (10, 'READ-first-byte'): 25 * 10 ** 7,
        (12, None): 15 * 10 ** 8, (12, 'CREATE'): 15 * 10 ** 8}


def test_an_open_loop_run_logs_response_times():
    header = dict(naive.HEADER, rate=10.0)
    results = [res(at=100.0, last=0.2, first=0.1, intended_start=99.3)]
    intervals = hdrintervals.cut(FakeStatsFile(results, header=header), 1)
    # Sent 0.5 s late: 0.7 s from the intended start to the last byte.
    assert intervals.hists[100, 'READ'].max == 7 * 10 ** 8
    assert intervals.hists[100, 'READ-first-byte'].max == 6 * 10 ** 8


def test_a_bad_value_is_a_stats_file_error():
    with pytest.raises(StatsFileError) as caught:
        hdrintervals.cut(FakeStatsFile([res(at='late')]), 1)
    assert str(caught.value).startswith('fake.stat: not a valid ssbench')


def test_a_stats_file_of_ssbench_0_3_9():
    stats = open_stats(GOLDEN_SWIFT)
    intervals = hdrintervals.cut(stats, 1)
    values = []
    for batch in open_stats(GOLDEN_SWIFT).iter_batches():
        values.extend(batch)
    assert counted(intervals) == expected(values, 1)[0]
    doc = analyze(GOLDEN_SWIFT)
    counts = dict((op['operation'], op['latency']['last_byte'][0]['count'])
                  for op in doc['operations'])
    assert counts['total'] == 2000
    for tag in intervals.tags:
        key = 'total' if tag is None else tag.lower()
        if key.endswith('-first-byte'):
            continue
        assert sum(sum(hist.counts.values()) for (_, t), hist in
                   intervals.hists.items() if t == tag) == counts[key]
    assert len(intervals.ks) == 14

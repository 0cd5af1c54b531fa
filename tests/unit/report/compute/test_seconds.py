from __future__ import absolute_import, division, print_function

from ssbench.report.compute import seconds
from ssbench.report.compute.seconds import SecondCounts
from ssbench.results import timewindow


def test_add_zeroes_the_counts_and_items_sum_slots():
    counts = SecondCounts(3)
    pending = [2, 0, 1]
    counts.add(100, pending)
    assert pending == [0, 0, 0]
    counts.add(99, [0, 4, 0])
    counts.add(100, [1, 0, 0])
    assert list(counts.items([0])) == [(100, 3)]
    assert list(counts.items([1])) == [(99, 4)]
    assert list(counts.items([0, 1, 2])) == [(99, 4), (100, 4)]
    assert list(counts.items([2])) == [(100, 1)]


def test_far_apart_seconds_cost_one_chunk_each():
    counts = SecondCounts(2)
    far = 1795317877
    for second in (far, 3, -5, far + seconds.CHUNK):
        counts.add(second, [1, 0])
    assert list(counts.items([0])) == [(-5, 1), (3, 1), (far, 1),
                                       (far + seconds.CHUNK, 1)]
    assert len(counts._chunks) == 4
    # A slot never used has no arrays at all.
    assert all(chunk[1] is None for chunk in counts._chunks.values())
    assert list(counts.items([1])) == []


def test_seconds_beyond_the_widest_window_are_not_kept(monkeypatch):
    # Wider than any window a report keeps: the pass is read again
    # without the strays (ssbench.results.statsreader.StatsFile.narrow).
    monkeypatch.setattr(seconds, 'MAX_CHUNKS', 3)
    counts = SecondCounts(1)
    pending = [1]
    for i in range(5):
        counts.add(i * seconds.CHUNK, pending)
        assert pending == [0]
        pending[0] = 1
    assert len(counts._chunks) == 3
    assert list(counts.items([0])) == [(0, 1), (seconds.CHUNK, 1),
                                       (2 * seconds.CHUNK, 1)]


def test_the_chunk_limit_fits_the_widest_window():
    # A window of MAX_WIDTH seconds touches at most this many chunks.
    assert seconds.MAX_CHUNKS >= \
        timewindow.MAX_WIDTH // seconds.CHUNK + 2

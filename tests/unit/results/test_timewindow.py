from __future__ import absolute_import, division, print_function

import random

from ssbench.results import timewindow
from ssbench.results.timewindow import DAY, TimeProfile

START = 1795317000.25


def profile_of(stamps, batch=1000, **kwargs):
    profile = TimeProfile(**kwargs)
    for i in range(0, len(stamps), batch):
        profile.add_all(stamps[i:i + batch])
    return profile


def run(seconds, count, start=START):
    return [start + seconds * i / count for i in range(count)]


def test_every_result_of_a_run_is_kept():
    assert profile_of(run(600, 5000)).window() is None
    assert profile_of(run(3 * DAY, 5000)).window() is None
    assert profile_of([START]).window() is None
    assert TimeProfile().window() is None


def test_an_uneven_run_is_kept_whole():
    # 98% in ten minutes, then a slow tail over two days.
    stamps = run(600, 9800) + run(2 * DAY, 200, start=START + 600)
    assert profile_of(stamps).window() is None


def test_workers_hours_apart_are_kept():
    stamps = run(600, 3000) + run(600, 1000, start=START + 5 * 3600)
    assert profile_of(stamps).window() is None


def test_a_stray_result_is_outside():
    for stray in (5.0, 0.0, START + 365 * DAY, START - 3 * DAY):
        stamps = run(600, 2000)
        stamps.insert(700, stray)
        lo, hi = profile_of(stamps).window()
        assert not lo <= stray < hi
        assert all(lo <= t < hi for t in stamps if t != stray)
        assert hi - lo < 4 * DAY


def test_a_stray_a_day_after_a_short_run_is_outside():
    # Within a day and a half of the run, but 100,000 s after a 4 s run.
    stamps = run(4, 400)
    stray = START + 100000
    lo, hi = profile_of(stamps + [stray]).window()
    assert not lo <= stray < hi
    assert all(lo <= t < hi for t in stamps)
    # The margin is an hour plus ten times the bulk's span (in bins of
    # 64 s): a request that ended half an hour late is still the run's.
    assert hi - lo < 3 * timewindow.MARGIN
    assert profile_of(stamps + [START + 1800]).window() is None


def test_a_whole_worker_at_1970_is_cut_around_the_median():
    # A quarter of the results: too many for the percentiles, not for
    # the cap around the median.
    stamps = run(600, 3000) + [100.0 + i for i in range(1000)]
    lo, hi = profile_of(stamps).window()
    assert lo > 1000 and hi - lo <= timewindow.MAX_WIDTH
    assert all(lo <= t < hi for t in run(600, 3000))


def test_the_window_is_never_wider_than_the_longest_run():
    rng = random.Random(5)
    stamps = [rng.uniform(0, 1e10) for _ in range(20000)]
    profile = profile_of(stamps)
    lo, hi = profile.window()
    assert 0 < hi - lo <= timewindow.MAX_WIDTH
    # The bins stay bounded however far apart the times are.
    assert len(profile.bins) <= timewindow.MAX_BINS


def test_coarser_bins_count_every_result():
    stamps = run(100 * DAY, 3000)
    profile = profile_of(stamps, max_bins=16)
    assert len(profile.bins) <= 16
    assert sum(profile.bins.values()) == 3000
    assert profile.window() is None


# --- a small file: the requests' idle hours (idle_window) ------------------

def spans_of(stamps, took=0.05):
    return [(t - took, t) for t in stamps]


def test_a_stray_after_a_small_run_is_outside_the_idle_window():
    for count in (2, 3, 50, 100, 101):
        stamps = run(4, count)
        stray = START + 100000
        lo, hi = timewindow.idle_window(spans_of(stamps + [stray]))
        assert not lo <= stray < hi
        assert all(lo <= t < hi for t in stamps)


def test_a_stray_before_a_small_run_is_outside_the_idle_window():
    stamps = run(4, 10)
    lo, hi = timewindow.idle_window(spans_of([5.0] + stamps))
    assert (lo, hi) == (stamps[0], stamps[-1] + 1e-6)


def test_no_legitimate_result_is_outside_the_idle_window():
    # Every result of a small run is kept: a request of two hours after
    # a run of seconds is in flight all along, an open loop whose jobs
    # are two hours apart makes groups of one, two results a day apart
    # are a tie, and so are two workers hours apart.
    long_request = spans_of(run(4, 10)) + [(START + 3, START + 7203)]
    sparse = spans_of(run(10 * 7200, 10))
    tie = spans_of([START, START + DAY])
    workers = spans_of(run(600, 30) + run(600, 30, start=START + 5 * 3600))
    for spans in (long_request, sparse, tie, workers, spans_of([START]),
                  []):
        assert timewindow.idle_window(spans) is None

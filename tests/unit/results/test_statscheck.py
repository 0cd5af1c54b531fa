"""ssbench.results.statscheck: what the values of a stats file must be,
through open_stats() as the reports read them: a bad header value
refuses the file in one line, a result with a bad value or with latencies
that are no measurement is left out and counted (one warning each),
results far outside the run are left out after narrow(), and a run that
ended early says so once."""
from __future__ import absolute_import, division, print_function

import os
import time

import pytest

from ssbench.wire import protocol
from ssbench.results import statscheck, timewindow
from ssbench.errors import StatsFileError
from ssbench.results.statsreader import open_stats
from ssbench.results.statswriter import StatsWriter
from tests.unit.results.test_statsreader import (HEADER, failed, flat, ok,
                                                 results, truncate,
                                                 write_bytes, write_file)


# --- latencies that are no measurement ---------------------------------------

NAN, INF = float('nan'), float('inf')


@pytest.mark.parametrize('first, last', [
    (0.01, -0.5), (-0.01, 0.02), (0.01, NAN), (NAN, 0.02), (None, NAN),
    (INF, INF), (0.01, INF), (0.5, 0.1), (0.01, None), (None, -1)])
@pytest.mark.parametrize('raw', [False, True])
def test_a_bad_latency_is_left_out_and_counted(tmp_path, caplog, first,
                                               last, raw):
    bad = dict(ok(2), first_byte_latency=first, last_byte_latency=last)
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[ok(1)], [failed(3), bad, ok(4)], [ok(5), bad, ok(6)]])
    stats_file = open_stats(path)
    for _ in range(2):   # two passes (text and JSON reports), one warning
        batches = list(stats_file.iter_batches(raw=raw))
        assert [len(batch) for batch in batches] == [1, 2, 2]
        if not raw:
            assert batches == [[ok(1)], [failed(3), ok(4)], [ok(5), ok(6)]]
    assert [r.getMessage() for r in caplog.records] == [
        '%s: left out 2 results whose latencies are no measurement '
        '(negative, NaN or infinite, or the last byte before the first)'
        % (path,)]


def test_good_latencies_and_other_records_pass(tmp_path):
    batches = [[dict(ok(1), first_byte_latency=None, last_byte_latency=0),
                dict(ok(2), first_byte_latency=0.5, last_byte_latency=0.5),
                dict(ok(3), first_byte_latency=0, last_byte_latency=None),
                failed(4)],
               [{'kind': 'worker_health', 'worker_id': 1}],
               [dict(ok(5), last_byte_latency=3600.0)]]
    path = write_file(str(tmp_path / 'good.stat'), batches)
    assert list(open_stats(path).iter_batches()) == batches
    assert len(list(open_stats(path).iter_batches(raw=True))) == 3


def left_out_warning(path, shown, count=1):
    return '%s: left out %d result%s with a bad value (the first: %s)' % (
        path, count, '' if count == 1 else 's', shown)


def test_a_latency_that_is_not_a_number_is_left_out(tmp_path, caplog):
    # A batch item that is not a map is left to the reports.
    path = write_file(str(tmp_path / 'odd.stat'),
                      [[ok(1), 7], [dict(ok(2), last_byte_latency='x')]])
    assert list(open_stats(path).iter_batches()) == [[ok(1), 7], []]
    assert [r.getMessage() for r in caplog.records] == [
        left_out_warning(path, "last_byte_latency 'x'")]


# --- bad values are left out, one warning ------------------------------------

@pytest.mark.parametrize('key, value, shown', [
    ('retries', 'x', "retries 'x'"),
    ('retries', 2 ** 64 - 1, 'retries 18446744073709551615'),
    ('retries', -1, 'retries -1'),
    ('retries', True, 'retries True'),
    ('retries', NAN, 'retries nan'),
    ('retries', 1.5, 'retries 1.5'),
    ('retries', None, 'retries None'),
    ('retries', 10 ** 6, 'retries 1000000'),
    ('completed_at', True, 'completed_at True'),
    ('completed_at', 1e300, 'completed_at 1e+300'),
    ('completed_at', 5e10, 'completed_at 50000000000.0'),
    ('completed_at', -5.0, 'completed_at -5.0'),
    ('completed_at', NAN, 'completed_at nan'),
    ('completed_at', None, 'completed_at None'),
    ('completed_at', 'x' * 200, 'completed_at %s...' % (
        "'" + 'x' * 56,)),
    ('last_byte_latency', True, 'last_byte_latency True'),
    ('last_byte_latency', 1e308, 'last_byte_latency 1e+308'),
    ('first_byte_latency', False, 'first_byte_latency False'),
    ('size', -5, 'size -5'),
    ('size', 1e308, 'size 1e+308'),
    ('size', 2 ** 63, 'size 9223372036854775808'),
    ('size', 2 ** 53, 'size 9007199254740992'),
    ('reconnects', -1, 'reconnects -1'),
    ('status', 1000, 'status 1000'),
])
@pytest.mark.parametrize('raw', [False, True])
def test_a_bad_value_is_left_out_with_one_warning(tmp_path, caplog, key,
                                                  value, shown, raw):
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[ok(1)], [ok(2), dict(ok(3), **{key: value}),
                                 dict(ok(4), **{key: value})]])
    stats_file = open_stats(path)
    for _ in range(2):   # two passes (text and JSON reports), one warning
        batches = list(stats_file.iter_batches(raw=raw))
        assert [len(batch) for batch in batches] == [1, 1]
    assert [r.getMessage() for r in caplog.records] == [
        left_out_warning(path, shown, 2)]


@pytest.mark.parametrize('value, shown', [
    ('x', "'x'"), (-0.5, '-0.5'), (1e9, '1000000000.0'), (True, 'True'),
    (NAN, 'nan'), ([1], '[1]')])
@pytest.mark.parametrize('raw', [False, True])
def test_a_bad_time_to_failure_is_left_out(tmp_path, caplog, value, shown,
                                           raw):
    # As the wire checks it: a latency (record.MAX_SECONDS) of a failure.
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[ok(1), dict(failed(2), time_to_failure=2.5)],
                       [dict(failed(3), time_to_failure=value)]])
    batches = list(open_stats(path).iter_batches(raw=raw))
    assert [len(batch) for batch in batches] == [2, 0]
    assert [r.getMessage() for r in caplog.records] == [
        left_out_warning(path, 'time_to_failure %s' % (shown,))]


@pytest.mark.parametrize('raw', [False, True])
def test_a_time_to_failure_is_for_failures_only(tmp_path, caplog, raw):
    good = write_file(str(tmp_path / 'good.stat'), [[
        dict(failed(1), time_to_failure=0), dict(failed(2),
                                                 time_to_failure=None),
        dict(failed(3), time_to_failure=999999999.9)]])
    assert len(list(open_stats(good).iter_results())) == 3
    path = write_file(str(tmp_path / 'bad.stat'),
                      [[dict(ok(1), time_to_failure=0.5), ok(2)]])
    assert list(open_stats(path).iter_batches()) == [[ok(2)]]
    assert caplog.records[-1].getMessage() == left_out_warning(
        path, 'time_to_failure 0.5')


@pytest.mark.parametrize('value', [1e300, 1e10, -1.0, 'soon', True, [1]])
def test_a_bad_intended_start_of_an_open_loop_file_is_left_out(
        tmp_path, caplog, value):
    path = str(tmp_path / 'rate.stat')
    writer = StatsWriter(path, dict(HEADER, rate=10.0))
    writer.write_batch([dict(ok(1), intended_start=1700000000.0),
                        dict(ok(2), intended_start=value)])
    writer.close()
    assert len(results(path)) == 1
    assert caplog.records[-1].getMessage().startswith(left_out_warning(
        path, 'intended_start ')[:-1])
    # A file of a closed-loop run does not read intended_start.
    plain = write_file(str(tmp_path / 'plain.stat'),
                       [[dict(ok(1), intended_start=value)]])
    assert len(results(plain)) == 1


def scenario_with(**values):
    return dict(HEADER['_scenario_data'], **values)


@pytest.mark.parametrize('changes, shown', [
    ({'user_count': 'abc'}, "user_count 'abc'"),
    ({'user_count': True}, 'user_count True'),
    ({'name': [1]}, 'name [1]'),
    ({'delete_after': [1]}, 'delete_after [1]'),
    ({'rate': 'fast'}, "rate 'fast'"),
    ({'rate': True}, 'rate True'),
    ({'_scenario_data': [1]}, '_scenario_data [1]'),
    ({'_scenario_data': scenario_with(sizes='abc')},
     "sizes 'abc'"),
    ({'_scenario_data': scenario_with(sizes=[5])}, 'sizes [5]'),
    ({'_scenario_data': scenario_with(sizes=[{'name': 'a',
                                              'size_min': 'x'}])},
     "sizes: size_min 'x'"),
    ({'_scenario_data': scenario_with(initial_files=[1])},
     'initial_files [1]'),
    ({'_scenario_data': scenario_with(crud_profile='abc')},
     "crud_profile 'abc'"),
    ({'_scenario_data': scenario_with(crud_profile=[1, True, 1, 1])},
     'crud_profile [1, True, 1, 1]'),
    # (Keys that are no text: shown alike on Python 2 and 3.)
    ({'_scenario_data': scenario_with(crud_profile={1: 1})},
     'crud_profile {1: 1}'),
    ({'_scenario_data': scenario_with(sizes=[{'name': 'a', 'crud_profile': {
        2: 0}}])}, 'sizes: crud_profile {2: 0}'),
])
def test_a_bad_header_value_refuses_the_file(tmp_path, changes, shown):
    path = str(tmp_path / 'bad.stat')
    write_bytes(path, protocol.pack(dict(HEADER, **changes)) +
                protocol.pack([ok(1)]))
    with pytest.raises(StatsFileError) as info:
        open_stats(path)
    assert str(info.value) == (
        '%s: not a valid ssbench stats file: the header has a bad value '
        '(%s)' % (path, shown))


def test_a_profile_of_head_and_list_passes(tmp_path):
    mix = {'READ': 5, 'HEAD': 3, 'LIST': 2}
    header = dict(HEADER, _scenario_data=scenario_with(
        crud_profile=mix, sizes=[{'name': 'a', 'crud_profile': mix}]))
    path = str(tmp_path / 'mixed.stat')
    write_bytes(path, protocol.pack(header) + protocol.pack([ok(1)]))
    assert results(path) == [ok(1)]


def test_header_values_0_3_x_may_leave_out_pass(tmp_path):
    header = dict(HEADER, user_count=None, delete_after=None,
                  warmup='what', _scenario_data={'sizes': None})
    path = str(tmp_path / 'sparse.stat')
    write_bytes(path, protocol.pack(header) + protocol.pack([ok(1)]))
    assert results(path) == [ok(1)]


# --- results far outside the run --------------------------------------------

def test_a_result_far_outside_the_run_is_left_out_after_narrow(
        tmp_path, caplog):
    stray = dict(ok(7), completed_at=5.0)
    batches = [[ok(i) for i in range(1, 6)], [stray, ok(6)],
               [{'kind': 'worker_health', 'worker_id': 1}]]
    path = write_file(str(tmp_path / 'stray.stat'), batches)
    stats_file = open_stats(path)
    assert stats_file.narrow() is False         # no full pass yet
    assert len(list(stats_file.iter_results())) == 7
    assert stats_file.narrow() is True
    assert stats_file.narrow() is False         # once
    for raw in (False, True, False):
        got = [r for batch in stats_file.iter_batches(raw=raw)
               for r in batch]
        assert len(got) == 7
    assert stray not in list(stats_file.iter_results())
    # Seven results: the 1st percentile is the stray itself, so the
    # window is the widest one around the median.
    lo, hi = stats_file.window
    assert hi - lo == timewindow.MAX_WIDTH
    assert [r.getMessage() for r in caplog.records] == [
        "%s: left out 1 result completed far outside the run (before "
        "%s or after %s UTC: a worker's clock?)" % (
            path, utc(lo), utc(hi))]


def utc(seconds):
    return time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime(seconds))


def test_a_run_without_strays_is_never_read_again(tmp_path, caplog):
    path = write_file(str(tmp_path / 'good.stat'))
    stats_file = open_stats(path)
    list(stats_file.iter_batches(raw=True))
    assert stats_file.narrow() is False
    assert stats_file.window is False
    assert results(path) == flat()
    assert not caplog.records


def test_a_pass_cut_short_profiles_nothing(tmp_path):
    path = write_file(str(tmp_path / 'stray.stat'),
                      [[dict(ok(1), completed_at=5.0)], [ok(2)], [ok(3)]])
    stats_file = open_stats(path)
    batches = stats_file.iter_batches()
    next(batches)
    batches.close()
    assert stats_file.narrow() is False and stats_file.window is None


# --- a run that ended early -------------------------------------------------

@pytest.mark.parametrize('header, count, span, words', [
    ({'operation_count': 10}, 4, 3.0,
     'holds 4 results of the 10 operations its run asked for: the run '
     'ended early (a master stopped before the end?); the report is of '
     'those results'),
    ({'operation_count': 10}, 1, 0.0, 'holds 1 result of the 10 '),
    ({'run_seconds': 60}, 50, 20.0,
     'its results span 20 s of the 60 s its run asked for: the run ended '
     'early'),
    ({'run_seconds': 600}, 50, 530.0, 'its results span 530 s of the 600'),
    ({'operation_count': 10}, 10, 3.0, None),
    ({'operation_count': 10}, 12, 3.0, None),
    ({'run_seconds': 60}, 50, 56.0, None),
    ({'run_seconds': 2}, 5, 0.0, None),          # within 5 s
    ({'run_seconds': 600}, 50, 541.0, None),     # within 10%
    ({'run_seconds': 60, 'rate': 0.1}, 2, 10.0, None),
    # run-suite --until-steady: the counts were a ceiling.
    ({'run_seconds': 60, 'until_steady': True}, 50, 20.0, None),
    ({'operation_count': 10, 'until_steady': True}, 4, 3.0, None),
    ({'run_seconds': 60, 'until_steady': 1}, 50, 20.0, 'its results span'),
    ({'operation_count': 'x'}, 1, 0.0, None),
    ({'operation_count': True}, 0, 0.0, None),
    ({}, 1, 0.0, None),
])
def test_ended_early(header, count, span, words):
    got = statscheck.ended_early(header, count, 1e9, 1e9 + span)
    if words is None:
        assert got is None
    else:
        assert got.startswith(words)


def test_a_timed_run_whose_every_result_was_left_out(tmp_path, caplog):
    # No completion time is kept: the span is none, not a TypeError.
    path = str(tmp_path / 'bad.stat')
    writer = StatsWriter(path, dict(HEADER, run_seconds=20))
    writer.write_batch([dict(ok(1), retries='x')])
    writer.close()
    assert list(open_stats(path).iter_batches()) == [[]]
    assert [r.getMessage() for r in caplog.records] == [
        '%s: its results span 0 s of the 20 s its run asked for: the run '
        'ended early (a master stopped before the end?); the report is of '
        'those results' % (path,),
        left_out_warning(path, "retries 'x'")]


def test_a_growing_file_is_no_run_that_ended_early(tmp_path, caplog):
    # The plain file of a master still running, read after its first
    # results: they span 0 s so far, which says nothing of the run.
    path = str(tmp_path / 'running.stat')
    writer = StatsWriter(path, dict(HEADER, run_seconds=20))
    writer.write_batch([ok(1), failed(1)])
    writer.close()
    assert len(list(open_stats(path, growing=True).iter_results())) == 2
    assert caplog.records == []
    assert len(list(open_stats(path).iter_results())) == 2
    assert [r.getMessage() for r in caplog.records] == [
        '%s: its results span 0 s of the 20 s its run asked for: the run '
        'ended early (a master stopped before the end?); the report is of '
        'those results' % (path,)]


def test_a_file_cut_short_says_so_once(tmp_path, caplog):
    path = str(tmp_path / 'killed.stat')
    writer = StatsWriter(path, dict(HEADER, operation_count=10))
    writer.write_batch([ok(1), failed(2)])
    writer.write_batch([ok(3)])
    writer.close()
    stats_file = open_stats(path)
    for raw in (False, True):
        assert len(list(stats_file.iter_batches(raw=raw))) == 2
    assert [r.getMessage() for r in caplog.records] == [
        '%s: holds 3 results of the 10 operations its run asked for: the '
        'run ended early (a master stopped before the end?); the report '
        'is of those results' % (path,)]


def test_a_truncated_file_says_so_once(tmp_path, caplog):
    path = str(tmp_path / 'killed.stat')
    writer = StatsWriter(path, dict(HEADER, operation_count=10))
    writer.write_batch([ok(1), failed(2)])
    writer.write_batch([ok(3)])
    writer.close()
    truncate(path, os.path.getsize(path) - 3)
    assert len(results(path)) == 2
    messages = [r.getMessage() for r in caplog.records]
    assert len(messages) == 1
    assert messages[0].startswith('%s: truncated (' % (path,))
    assert messages[0].endswith(
        'incomplete bytes at the end); using the results before it')


@pytest.mark.parametrize('count', [3, 90])
def test_a_stray_a_day_after_a_small_run_is_left_out(tmp_path, caplog,
                                                     count):
    # The 99th percentile of 100 results or fewer is (near) the stray.
    stray = dict(ok(count + 1), completed_at=ok(count)['completed_at'] +
                 100000)
    batches = [[ok(i) for i in range(1, count + 1)], [stray]]
    stats_file = open_stats(write_file(str(tmp_path / 'small.stat'),
                                       batches))
    assert len(list(stats_file.iter_results())) == count + 1
    assert stats_file.narrow() is True
    got = list(stats_file.iter_results())
    assert stray not in got and len(got) == count
    assert len([r for r in caplog.records
                if 'far outside the run' in r.getMessage()]) == 1

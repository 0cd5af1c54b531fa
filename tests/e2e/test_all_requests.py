"""The all-requests latencies (failures at their time_to_failure) of the
JSON and HTML outputs, with real processes: report-scenario on stats
files this test writes (a run whose requests time out shows a worse
all-requests p99 than its successes-only p99; the text report is the same
with or without the failures' times), and run-scenario through a relay in
front of the local Swift that stalls 3 s mid-run, then refuses
connections for 2 s."""
from __future__ import absolute_import, division, print_function

import io
import json

import pytest

from ssbench.results.statswriter import StatsWriter
from tests import analysis_naive as naive
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]


def have_plotly():
    try:
        import plotly  # noqa: F401
    except ImportError:
        return False
    return True


def write_stats(path, with_time):
    """1,000 reads of 10..50 ms and 30 that timed out after 20 s or more
    (with_time: their records say so under time_to_failure)."""
    writer = StatsWriter(path, naive.HEADER)
    results = naive.timeouts_run(30, with_time=with_time)
    for i in range(0, len(results), 100):
        writer.write_batch(results[i:i + 100])
    return writer.finalize()


def report(tmpdir, stats, name):
    """(text report, JSON document, HTML page or None) of a stats file,
    from report-scenario."""
    text = str(tmpdir.join(name + '.txt'))
    json_path = str(tmpdir.join(name + '.json'))
    args = ['report-scenario', '-s', stats, '-f', text, '--json', json_path]
    html_path = str(tmpdir.join(name + '.html'))
    if have_plotly():
        args += ['--html', html_path]
    ran = support.master(*args, timeout=120)
    assert ran.status == 0, ran
    with io.open(text, encoding='utf-8') as fp:
        text = fp.read()
    with io.open(json_path, encoding='utf-8') as fp:
        doc = json.load(fp)
    page = None
    if have_plotly():
        with io.open(html_path, encoding='utf-8') as fp:
            page = fp.read()
    return text, doc, page


def read_latency(doc):
    for op in doc['operations']:
        if op['operation'] == 'read':
            return op['latency']
    raise AssertionError('no read operation in %r' % (doc['operations'],))


def test_timeouts_show_in_the_all_requests_p99(tmpdir):
    timed = write_stats(str(tmpdir.join('timed.stat')), True)
    untimed = write_stats(str(tmpdir.join('untimed.stat')), False)
    text, doc, page = report(tmpdir, timed, 'timed')
    old_text, old_doc, old_page = report(tmpdir, untimed, 'untimed')

    latency = read_latency(doc)
    successes, everything = latency['last_byte'][0], latency['all_requests'][0]
    assert successes['count'] == 1000 and successes['p99'] < 0.06
    assert everything['p99'] >= 20.0
    assert (everything['count'], everything['failures'],
            everything['failures_without_time']) == (1030, 30, 0)
    # Records without the key: counted, left out, never a better figure.
    old = read_latency(old_doc)['all_requests'][0]
    assert (old['count'], old['failures'], old['failures_without_time']) == (
        1000, 0, 30)
    assert old['p99'] == successes['p99']
    assert read_latency(old_doc)['last_byte'] == latency['last_byte']

    # The text report does not change (the stats file's name aside).
    assert text.replace(timed, '') == old_text.replace(untimed, '')
    assert 'all requests' not in text

    if page is not None:
        assert '<td>read</td><td>all requests</td><td>all sizes</td>' in page
        assert 'successful requests only' in page
        assert 'recorded no time to failure' not in page
        assert '30 failed requests recorded no time to failure' in old_page


def all_requests_of(records):
    """The all-requests latencies of a stats file's records, computed here:
    successes at their last byte (0 left out), failures at their time to
    failure."""
    return [r['time_to_failure'] if 'exception' in r
            else r['last_byte_latency'] for r in records
            if 'exception' in r or r['last_byte_latency']]


@pytest.mark.parametrize('backoff', [True, False])
def test_a_stall_mid_run_shows_in_the_all_requests_figures(
        tmpdir, stalling_relay, backoff):
    """run-scenario --json --html through the relay: 3 s stalled, then
    2 s refused.  With --retry-backoff the requests held through the
    stall wait out the refusal and succeed: the all-requests p99 is at
    least the stall.  Without it they fail at once when refused: the
    successes-only figures never see the stall, the all-requests ones
    do."""
    json_path = str(tmpdir.join('run.json'))
    outputs = ['--json', json_path]
    html_path = str(tmpdir.join('run.html'))
    if have_plotly():
        outputs += ['--html', html_path]
    records, stall = support.run_through_an_outage(
        tmpdir, stalling_relay,
        outputs + (['--retry-backoff'] if backoff else []))
    failed = [r for r in records if 'exception' in r]
    with io.open(json_path, encoding='utf-8') as fp:
        doc = json.load(fp)
    total = doc['operations'][0]
    assert total['operation'] == 'total'
    successes = total['latency']['last_byte'][0]
    everything = total['latency']['all_requests'][0]
    summary = '%d results, %d failed; stall %.2f s; successes %r; all %r' % (
        len(records), len(failed), stall, successes, everything)
    # Every failure of this ssbench has its time; the document's figures
    # are those of the records.
    assert (everything['failures'], everything['failures_without_time']) == (
        len(failed), 0), summary
    values = all_requests_of(records)
    assert everything['count'] == len(values), summary
    assert everything['max'] == max(values), summary
    for pctile in doc['percentiles']:
        key = 'p' + repr(pctile).replace('.', '_')
        assert everything[key] == naive.percentile(values, pctile), key
    if backoff:
        assert everything['p99'] >= stall, summary
    else:
        # Held through the stall, refused at once ten times: failed, after
        # the stall.  No success spans it.
        held = [r for r in failed if r['time_to_failure'] >= stall]
        assert held, summary
        assert successes['max'] < stall <= everything['max'], summary
        assert everything['worst_trans_id'] == max(
            held, key=lambda r: r['time_to_failure'])['trans_id'], summary
    if have_plotly():
        with io.open(html_path, encoding='utf-8') as fp:
            page = fp.read()
        if failed:
            assert ('<td>total</td><td>all requests</td><td>all sizes</td>'
                    in page)

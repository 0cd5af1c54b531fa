from __future__ import absolute_import, division, print_function

import io
import json
import os
import re
import sys

import pytest

from ssbench.report.compute.suitefigures import step_figures
from ssbench.report.render import headline, html, htmlcharts, htmltables
from ssbench.errors import SsbenchError
from tests import analysis_docs
from tests import analysis_naive as naive
from tests import paths

try:
    import plotly  # noqa: F401
    from plotly import graph_objects
    from plotly.offline import get_plotlyjs
except ImportError:
    graph_objects = None

needs_plotly = pytest.mark.skipif(
    graph_objects is None,
    reason="plotly is not installed (pip install 'ssbench[html]')")

HOSTILE = '</script><img src=x onerror=alert(1)>'


def render(doc):
    out = io.StringIO()
    html.render_html(doc, out)
    return out.getvalue()


def outside_plotly(page):
    """The page without the inlined plotly.js bundle."""
    bundle = get_plotlyjs()
    assert page.count(bundle) == 1
    return page.replace(bundle, '')


def figures(page):
    match = re.search(r'var charts = (.*);\n  for', page)
    return json.loads(match.group(1)) if match else []


def test_missing_plotly_is_a_one_line_usage_error(monkeypatch):
    monkeypatch.setitem(sys.modules, 'plotly', None)
    monkeypatch.setitem(sys.modules, 'plotly.offline', None)
    with pytest.raises(html.MissingExtraError) as raised:
        render(analysis_docs.sample_doc())
    assert isinstance(raised.value, SsbenchError)
    assert raised.value.exit_status == 2
    assert str(raised.value) == (
        "--html needs the optional extra: pip install 'ssbench[html]' "
        "(plotly)")


@needs_plotly
def test_page_shows_the_run_facts_and_scenario_sizes():
    page = render(analysis_docs.sample_doc())
    for fact in ('<title>ssbench: Small mixed run</title>',
                 '/tmp/ssbench-results/run.stat.gz', 'ssbench 1.0.0',
                 '<td>Workers</td><td>2</td>',
                 '<td>Concurrency</td><td>4</td>',
                 '2026-11-22 03:24:37 UTC', '2026-11-22 03:25:07 UTC',
                 '<td>Duration</td><td>30 s</td>', '3,004',
                 '<td>tiny</td><td>4 kB - 66 kB</td>'):
        assert fact in page


@needs_plotly
def test_page_is_self_contained_with_plotly_inlined_once():
    page = render(analysis_docs.sample_doc())
    rest = outside_plotly(page)
    assert not re.search(r'\s(src|href)\s*=', rest)
    assert 'http://' not in rest and 'https://' not in rest
    assert rest.count('<script>') == 2 and rest.count('</script>') == 2
    # Outside the bundle the page is pure ASCII, whatever the stream.
    rest.encode('ascii')


@needs_plotly
def test_page_opens_with_the_headline():
    doc = analysis_docs.sample_doc()
    page = render(doc)
    assert page.index('<section id="headline">') < page.index('id="run"')
    block = page.split('class="headline">', 1)[1]
    text = re.sub('<[^>]+>', '', block[:block.index('</p>')])
    assert text == headline.headline(step_figures(doc))


@needs_plotly
def test_a_shared_page_reads_plotly_from_the_copy_beside_it(tmpdir):
    out = io.StringIO()
    html.render_html(analysis_docs.sample_doc(), out,
                     js_src=html.PLOTLY_FILE)
    page = out.getvalue()
    assert get_plotlyjs() not in page
    assert page.count('<script src="plotly.min.js"></script>') == 1
    assert figures(page)
    assert len(page) < len(render(analysis_docs.sample_doc())) / 10
    path = html.write_shared_js(str(tmpdir))
    assert path == str(tmpdir.join('plotly.min.js'))
    assert io.open(path, encoding='utf-8').read() == get_plotlyjs()
    # The same copy is left as it is; another one replaced.
    before = os.stat(path)
    html.write_shared_js(str(tmpdir))
    assert os.stat(path).st_ino == before.st_ino
    tmpdir.join('plotly.min.js').write('old')
    html.write_shared_js(str(tmpdir))
    assert io.open(path, encoding='utf-8').read() == get_plotlyjs()
    # A page elsewhere reads the copy by its relative path.
    page = str(tmpdir.join('pages', 'suite.html'))
    assert html.shared_js_src(page, str(tmpdir)) == '../plotly.min.js'
    assert html.shared_js_src(str(tmpdir.join('step.html')),
                              str(tmpdir)) == 'plotly.min.js'


@needs_plotly
def test_every_chart_div_has_a_valid_figure():
    page = render(analysis_docs.sample_doc())
    charts = figures(page)
    ids = re.findall(r'<div class="chart" id="([^"]+)"></div>', page)
    assert [c['id'] for c in charts] == ids
    # throughput, CREATE and READ over time, CREATE and READ distributions
    assert len(ids) == 5
    for chart in charts:
        graph_objects.Figure({'data': chart['data'],
                              'layout': chart['layout']})
        assert chart['data']


@needs_plotly
def test_events_are_dashed_lines_with_labels_on_the_time_charts():
    doc = analysis_docs.sample_doc()
    start = doc['timeseries']['start']
    doc['events'] = [
        {'time': 3.0, 'at': start + 3.0, 'kind': 'mark', 'worker': None,
         'text': HOSTILE},
        {'time': 5.0, 'at': start + 5.0, 'kind': 'worker_lost', 'worker': 2,
         'text': None}]
    page = render(doc)
    charts = figures(page)
    timed = [c for c in charts if c['id'] in (
        'chart-throughput', 'chart-latency-0', 'chart-latency-1')]
    assert len(timed) == 3
    for chart in timed:
        layout = chart['layout']
        assert [s['x0'] for s in layout['shapes']] == [
            htmlcharts.utc_stamp(start + 3.0),
            htmlcharts.utc_stamp(start + 5.0)]
        assert [a['text'] for a in layout['annotations']] == [
            htmltables.chart_esc('mark: ' + HOSTILE), 'worker 2 lost']
        graph_objects.Figure({'data': chart['data'], 'layout': layout})
    others = [c for c in charts if c not in timed]
    assert others and not any('shapes' in c['layout'] for c in others)
    assert HOSTILE not in outside_plotly(page)


def test_marks_get_their_labels_first(monkeypatch):
    monkeypatch.setattr(htmlcharts, 'EVENT_LABELS', 1)
    figure = {'layout': {}}
    events = [{'at': 0.0, 'kind': 'worker_lost', 'worker': 1},
              {'at': 1.0, 'kind': 'mark', 'text': 'm'}]
    htmlcharts.add_events(figure, events, lambda e: e['kind'],
                          lambda text: text)
    assert len(figure['layout']['shapes']) == 2
    assert [a['text'] for a in figure['layout']['annotations']] == ['mark']
    assert htmlcharts.add_events(None, events, str, str) is None


@needs_plotly
def test_throughput_is_requests_per_second_of_the_buckets():
    doc = analysis_docs.sample_doc()
    doc['timeseries']['bucket_seconds'] = 2
    throughput = figures(render(doc))[0]
    names = [t['name'] for t in throughput['data']]
    assert names == ['total', 'create', 'read', 'errors (all operations)']
    requests = doc['timeseries']['operations']['read']['requests']
    assert throughput['data'][2]['y'] == [n / 2 for n in requests]
    assert throughput['data'][0]['x'][0] == '2026-11-22 03:24:38.000'
    assert throughput['layout']['yaxis']['title']['text'] == \
        'Requests per second'


@needs_plotly
def test_percentile_table_has_the_exact_values():
    doc = analysis_docs.sample_doc()
    row = doc['operations'][2]['latency']['last_byte'][1]
    row.update(p99_9=1.23456, worst_trans_id='txWORST')
    page = render(doc)
    for head in ('p50', 'p90', 'p95', 'p99', 'p99.9'):
        assert '<th class="num">%s</th>' % head in page
    assert ('<td>read</td><td>last byte</td><td>tiny</td>' in page)
    assert '1.235' in page and 'txWORST' in page
    # rows without any latency value (first byte of a PUT) are left out
    assert '<td>create</td><td>first byte</td>' not in page


@needs_plotly
def test_error_breakdown():
    page = render(analysis_docs.sample_doc())
    errors = page[page.index('<section id="errors">'):]
    assert '<td>HTTP 503</td><td class="num">3</td>' in errors
    assert '<td>ConnectionRefusedError</td><td class="num">1</td>' in errors
    assert 'not recorded' not in page


@needs_plotly
def test_old_file_says_not_recorded():
    page = render(analysis_docs.old_file_doc())
    errors = page[page.index('<section id="errors">'):]
    assert 'does not record the HTTP status' in errors
    assert '<td>not recorded</td><td class="num">4</td>' in errors
    summary = page[page.index('<section id="summary">'):
                   page.index('<section id="throughput">')]
    assert summary.count('<td class="num">not recorded</td>') == 3


@needs_plotly
def test_no_errors():
    doc = analysis_docs.sample_doc()
    doc['errors'] = {'recorded': True, 'total': 0, 'causes': []}
    assert '<p>No errors.</p>' in render(doc)


@needs_plotly
def test_empty_run_has_facts_and_no_charts():
    page = render(analysis_docs.empty_doc())
    assert 'This stats file holds no results.' in page
    assert '<td>Started</td><td>N/A</td>' in page
    assert '<p>No errors.</p>' in page
    assert '<script' not in page and 'class="chart"' not in page


@needs_plotly
def test_hostile_strings_are_escaped_everywhere():
    doc = analysis_docs.sample_doc(
        name=HOSTILE, sizes=('<b>big</b>', 'a"b\'c&d'),
        trans_id='"><svg onload=alert(2)>', message=HOSTILE)
    doc['stats_file'] = HOSTILE
    doc['errors']['causes'][1]['cause'] = HOSTILE
    page = render(doc)
    rest = outside_plotly(page)
    for raw in ('<img', '<svg', '<b>', 'a"b'):
        assert raw not in rest
    assert rest.count('</script>') == 2
    assert ('<title>ssbench: &lt;/script&gt;&lt;img src=x '
            'onerror=alert(1)&gt;</title>') in page
    assert '&lt;b&gt;big&lt;/b&gt;' in page
    assert 'a&quot;b&#x27;c&amp;d' in page
    # plotly.js shows entities as characters: the names read as given
    names = set(t['name'] for c in figures(page) for t in c['data'])
    assert set(['&lt;b&gt;big&lt;/b&gt;', 'a"b\'c&amp;d']) <= names


def test_esc():
    assert htmltables.esc(None) == ''
    assert htmltables.esc(1.5) == '1.5'
    assert htmltables.esc(u'\xdcber <&>"\'') == (
        '&#220;ber &lt;&amp;&gt;&quot;&#x27;')
    assert htmltables.esc(b'caf\xc3\xa9') == 'caf&#233;'
    assert htmltables.chart_esc(u'<\xdc>&"\'') == '&lt;&#220;&gt;&amp;"\''


def test_script_json_cannot_close_the_script():
    text = html.script_json({'name': '</script><!--&'})
    assert '<' not in text and '>' not in text and '&' not in text
    assert json.loads(text) == {'name': '</script><!--&'}


def test_pct_key():
    assert htmltables.pct_key(50) == ('50', 'p50')
    assert htmltables.pct_key(99.9) == ('99.9', 'p99_9')
    assert htmltables.pct_key(99.99) == ('99.99', 'p99_99')
    # The label is the document's key, '.' for '_'.
    assert htmltables.pct_key(0.00001) == ('1e-05', 'p1e-05')


def test_log_ticks_are_round_and_cover_the_range():
    assert htmlcharts.log_ticks(0.0045, 0.14) == (
        [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2],
        ['0.002', '0.005', '0.01', '0.02', '0.05', '0.1', '0.2'])
    assert htmlcharts.log_ticks(0.3, 0.4) == ([0.2, 0.5], ['0.2', '0.5'])
    assert htmlcharts.log_ticks(1.0, 1.0) == ([1.0, 2.0], ['1', '2'])
    # Over many decades only the powers of ten are labelled.
    values, labels = htmlcharts.log_ticks(0.3, 25000)
    assert values[0] == 0.2 and values[-1] == 50000
    assert [label for label in labels if label] == [
        '1', '10', '100', '1000', '10000']


def test_cdf_points():
    assert htmlcharts.cdf_points([[0.1, 0.2, 1], [0.2, 0.4, 3]]) == (
        [0.1, 0.2, 0.4], [0.0, 25.0, 100.0])
    assert htmlcharts.cdf_points([]) == ([], [])


def test_latency_charts_skip_total_and_empty_series():
    doc = analysis_docs.sample_doc()
    series = doc['timeseries']['operations']['create']
    series['first_byte_p50'] = [None] * len(series['first_byte_p50'])
    series['first_byte_p99'] = [None] * len(series['first_byte_p99'])
    charts = htmlcharts.latency_time_figures(doc['timeseries'], htmltables.esc)
    assert [op for op, _ in charts] == ['create', 'read']
    assert [t['name'] for t in charts[0][1]['data']] == [
        'last byte p50', 'last byte p99']
    assert len(charts[1][1]['data']) == 4


def test_distribution_curves_per_size_class():
    doc = analysis_docs.sample_doc()
    charts = htmlcharts.distribution_figures(doc['operations'], htmltables.esc)
    assert [op for op, _ in charts] == ['create', 'read']
    read = charts[1][1]['data']
    assert [(t['name'], t.get('visible', True)) for t in read] == [
        ('all sizes', True), ('tiny', True), ('large', True),
        ('all sizes (first byte)', True),
        ('tiny (first byte)', 'legendonly'),
        ('large (first byte)', 'legendonly')]
    assert read[0]['y'][-1] == 100.0


def test_summary_says_why_bytes_are_missing():
    ops = [{'operation': 'read', 'bytes': None, 'reconnects': None},
           {'operation': 'delete', 'bytes': None, 'reconnects': 0},
           {'operation': 'create', 'bytes': 2500000, 'reconnects': 2}]
    cells = re.findall(r'<td[^>]*>([^<]*)</td>', htmltables.summary_html(ops))
    assert cells[0:6] == ['read', 'N/A', 'N/A', 'N/A', 'not recorded',
                          'not recorded']
    assert cells[12:18] == ['delete', 'N/A', 'N/A', 'N/A', '0', 'N/A']
    assert cells[24:30] == ['create', 'N/A', 'N/A', 'N/A', '2', '2 MB']


def test_summary_shows_the_bandwidth_per_operation_and_size():
    ops = [{'operation': 'total', 'bytes': 3 * 2 ** 20},
           {'operation': 'read', 'bytes': 3 * 2 ** 20}]
    figures = {'bytes': 3 * 2 ** 20, 'bytes_per_second': 1.5 * 2 ** 20,
               'MB_per_second': 1.5 * 2 ** 20 / 1e6, 'MiB_per_second': 1.5}
    bandwidth = {'seconds': 2.0, 'operations': {
        'total': dict(figures, sizes={'big': figures}),
        'read': dict(figures, sizes={'big': figures})}}
    html = htmltables.summary_html(ops, bandwidth)
    cells = re.findall(r'<td[^>]*>([^<]*)</td>', html)
    assert cells[10:12] == ['1.57', '1.50']
    assert 'MB/s (10^6 bytes)' in html and 'MiB/s (2^20 bytes)' in html
    assert "over the run's 2.000 seconds" in html
    assert cells[24:30] == ['total', 'big', '3,145,728', '1572864',
                            '1.57', '1.50']
    # No bandwidth (a document of an older version): the table goes.
    assert 'Bandwidth by size' not in htmltables.summary_html(ops)


def test_the_throughput_chart_switches_to_megabytes_per_second():
    timeseries = {'bucket_seconds': 2, 'start': 1700000000.0, 'count': 2,
                  'operations': {
                      'total': {'requests': [4, 6], 'errors': [1, 0],
                                'bytes': [4000000, 0]},
                      'read': {'requests': [4, 6], 'errors': [1, 0],
                               'bytes': [4000000, 0]}}}
    figure = htmlcharts.throughput_figure(timeseries, lambda text: text)
    assert [t['name'] for t in figure['data']] == [
        'total', 'read', 'errors (all operations)']
    requests, megabytes = figure['layout']['updatemenus'][0]['buttons']
    assert requests['args'][0]['y'] == [t['y'] for t in figure['data']]
    assert megabytes['label'] == 'MB/s'
    assert megabytes['args'][0]['y'] == [[2.0, 0.0], [2.0, 0.0], []]
    assert megabytes['args'][0]['visible'] == [True, True, False]
    assert megabytes['args'][1]['yaxis.title.text'] == \
        'MB per second (10^6 bytes)'


@needs_plotly
def test_page_of_a_real_0_3_9_run():
    from ssbench.report.compute.analyze import analyze
    golden = os.path.join(paths.GOLDEN, 'swift_u8_o2000_c10.stat.gz')
    page = render(analyze(golden))
    assert '<h1>Small test scenario</h1>' in page
    assert '<p>No errors.</p>' in page
    charts = figures(page)
    # throughput; each of the 4 operations over time and distributed
    assert len(charts) == 9
    for chart in charts:
        graph_objects.Figure({'data': chart['data'],
                              'layout': chart['layout']})


def percentile_rows(page):
    """The percentile table's rows as lists of cell texts."""
    section = page[page.index('<section id="percentiles">'):]
    section = section[:section.index('</section>')]
    return [re.findall(r'<td[^>]*>(.*?)</td>', row)
            for row in re.findall(r'<tr>(.*?)</tr>', section)[1:]]


def timeouts_doc(timeouts, with_time=True):
    from ssbench.report.compute.analyze import analyze
    return analyze(naive.FakeStatsFile(naive.timeouts_run(timeouts,
                                                          with_time)))


@needs_plotly
def test_all_requests_rows_beside_the_successes():
    page = render(timeouts_doc(30))
    rows = percentile_rows(page)
    kinds = [(r[0], r[1], r[2]) for r in rows]
    assert ('read', 'last byte', 'all sizes') in kinds
    everything = rows[kinds.index(('read', 'all requests', 'all sizes'))]
    successes = rows[kinds.index(('read', 'last byte', 'all sizes'))]
    assert (everything[3], successes[3]) == ('1,030', '1,000')
    p99 = 5 + [50, 90, 95, 99, 99.9].index(99)
    assert float(everything[p99]) >= 20.0 > float(successes[p99])
    assert '<code>txt29</code>' in everything
    assert 'successful requests only' in page
    assert 'recorded no time to failure' not in page


@needs_plotly
def test_all_requests_rows_only_where_requests_failed():
    rows = percentile_rows(render(timeouts_doc(0)))
    assert rows and all(r[1] != 'all requests' for r in rows)


@needs_plotly
def test_failures_without_a_time_are_said():
    page = render(timeouts_doc(30, with_time=False))
    assert ('30 failed requests recorded no time to failure' in page)
    # Left out, the all-requests rows hold the successes only.
    rows = [r for r in percentile_rows(page) if r[1] == 'all requests']
    assert rows and all(r[3] == '1,000' for r in rows)


def test_distribution_has_an_all_requests_curve_where_requests_failed():
    charts = dict(htmlcharts.distribution_figures(
        timeouts_doc(30)['operations'], htmltables.esc))
    everything = charts['read']['data'][-1]
    assert everything['name'] == 'all sizes, all requests'
    assert everything['line']['dash'] == 'dash'
    # 1,000 of 1,030 requests were done within 50 ms, the rest took 20 s+.
    done = dict(zip(everything['x'], everything['y']))
    assert max(y for x, y in done.items() if x <= 60) == pytest.approx(
        100.0 * 1000 / 1030)
    assert everything['x'][-1] >= 20000
    for doc in (timeouts_doc(0), timeouts_doc(30, with_time=False)):
        charts = dict(htmlcharts.distribution_figures(doc['operations'],
                                                      htmltables.esc))
        assert all(t['name'] != 'all sizes, all requests'
                   for t in charts['read']['data'])


@needs_plotly
def test_the_all_requests_curve_is_a_valid_figure():
    charts = figures(render(timeouts_doc(30)))
    names = [t['name'] for c in charts for t in c['data']]
    assert 'all sizes, all requests' in names
    for chart in charts:
        graph_objects.Figure({'data': chart['data'],
                              'layout': chart['layout']})


def test_workers_table_lists_who_took_part_escaped():
    doc = analysis_docs.sample_doc()
    doc['workers'] = [
        {'worker_id': 10, 'host': 'client-h1', 'pid': 4242,
         'version': '0.4.0', 'protocol': 1, 'concurrency': 2,
         'clock_offset': -0.0125},
        {'worker_id': 11, 'host': HOSTILE, 'pid': None, 'version': None,
         'protocol': None, 'concurrency': None, 'clock_offset': None}]
    page = render(doc)
    workers = page[page.index('<section id="workers">'):]
    workers = workers[:workers.index('</section>')]
    assert '2 worker(s) on 2 host(s).' in workers
    assert '<td>10</td><td>client-h1</td><td class="num">4242</td>' \
        '<td>0.4.0</td><td class="num">1</td><td class="num">2</td>' \
        '<td class="num">-0.0125</td>' in workers
    assert HOSTILE not in workers and '&lt;/script&gt;' in workers


def test_workers_table_says_when_each_joined_left_and_came_back():
    doc = analysis_docs.sample_doc()
    doc['workers'] = [
        {'worker_id': 1, 'host': 'a', 'at_start': True, 'joined': None,
         'rejoined': [60.04], 'lost': [30.0], 'back': [41.46],
         'results': 12345, 'errors': 3},
        {'worker_id': 2, 'host': 'a', 'at_start': False, 'joined': 0.25,
         'rejoined': [], 'lost': [], 'back': [], 'results': 7,
         'errors': 0},
        {'worker_id': 3, 'at_start': None, 'joined': None,
         'rejoined': None, 'lost': None, 'back': None, 'results': 1,
         'errors': 0}]
    page = render(doc)
    workers = page[page.index('<section id="workers">'):]
    workers = workers[:workers.index('</section>')]
    assert '<th>Joined (s)</th><th>Started again (s)</th><th>Lost (s)</th>' \
        '<th>Back (s)</th>' in workers
    assert '<td>1</td><td>at start</td><td>60.0</td><td>30.0</td>' \
        '<td>41.5</td><td class="num">12,345</td><td class="num">3</td>' \
        in workers
    assert '<td>2</td><td>0.2</td><td></td><td></td><td></td>' \
        '<td class="num">7</td>' in workers
    assert '<td>3</td><td>not recorded</td><td>not recorded</td>' \
        in workers


def test_no_workers_section_without_a_list():
    assert '<section id="workers">' not in render(analysis_docs.sample_doc())


@needs_plotly
def test_popularity_section_only_with_reads():
    doc = analysis_docs.sample_doc()
    assert '<section id="popularity">' not in render(doc)
    doc['popularity'] = {
        'reads': 2000, 'objects_read': 412, 'objects': 1000,
        'hottest': [{'fraction': 0.01, 'objects': 10, 'share': 0.5687},
                    {'fraction': 0.1, 'objects': 100, 'share': None}]}
    page = render(doc)
    section = page[page.index('<section id="popularity">'):]
    section = section[:section.index('</section>')]
    assert '2,000 successful reads of 412 of the run' in section
    assert ('<td>Hottest 1%</td><td class="num">10</td>'
            '<td class="num">56.9%</td>') in section
    assert '<td>Hottest 10%</td><td class="num">100</td>' in section


def test_size_table_has_head_and_list_columns_only_when_weighed():
    scenario = {'sizes': [{'name': 'tiny', 'size_min': 1, 'size_max': 9,
                           'crud_profile': [1, 1, 1, 1]},
                          {'name': 'big', 'size_min': 10, 'size_max': 99}],
                'initial_files': {'tiny': 1, 'big': 3},
                'crud_profile': {'READ': 6, 'HEAD': 3, 'LIST': 1}}
    page = htmltables.sizes_html(scenario).replace(' class="num"', '')
    assert '<th>D %</th><th>H %</th><th>L %</th>' in page
    assert '<td>0</td><td>60</td><td>0</td><td>0</td><td>30</td>' \
        '<td>10</td>' in page
    plain = htmltables.sizes_html(dict(scenario, crud_profile=[1, 2, 3, 4]))
    assert 'H %' not in plain and 'D %</th></tr>' in plain
    assert htmltables.sizes_html(dict(scenario, crud_profile={'X': 1})) == ''


RETRIES = {'total': 5, 'auth': 2, 'causes': [
    {'operation': 'read', 'cause': 'HTTP 503', 'count': 3, 'auth': False},
    {'operation': 'read', 'cause': 'HTTP 401', 'count': 2, 'auth': True}]}


def test_retries_say_apart_those_that_met_an_expired_token():
    part = htmltables.retries_html(RETRIES)
    assert part.startswith('<p>5 retries.</p><p>2 retries met an expired '
                           'token (not the cluster\'s errors)')
    assert ('<td>read</td><td>HTTP 503</td><td class="num">3</td>'
            '<td class="num">60.0%</td>') in part
    assert '<td>HTTP 401</td><td class="num">2</td>' in part


def test_retries_of_the_cluster_alone_say_nothing_of_tokens():
    part = htmltables.retries_html({'total': 1, 'auth': 0, 'causes': [
        {'operation': HOSTILE, 'cause': HOSTILE, 'count': 1,
         'auth': False}]})
    assert 'token' not in part and '<img' not in part


@needs_plotly
def test_the_retries_section_only_when_there_are_retries():
    doc = analysis_docs.sample_doc()
    assert '<section id="retries">' not in render(doc)
    doc['retries'] = RETRIES
    page = render(doc)
    section = page[page.index('<section id="retries">'):]
    assert '2 retries met an expired token' in section

"""The HTML report in a real browser: headless Chromium loads the page
from a file:// URL with the network unusable; no console error, nothing
fetched, every chart drawn, no injected markup run, a non-blank
screenshot."""
from __future__ import absolute_import, division, print_function

import io
import os
import struct
import time
import zlib

import pytest

from ssbench.report.render.html import PLOTLY_FILE
from tests import analysis_docs
from tests.e2e import browser, support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

# Per chart div: is it a plotly plot, how many traces it shows (legend-only
# ones are not drawn), and how many trace groups have a drawn line or
# point (an SVG path with real coordinates).
CHARTS_JS = """
return Array.prototype.map.call(
    document.querySelectorAll('div.chart'), function (div) {
  var shown = (div.data || []).filter(function (trace) {
    return trace.visible !== 'legendonly';
  }).length;
  var drawn = 0;
  var groups = div.querySelectorAll('.scatterlayer .trace');
  Array.prototype.forEach.call(groups, function (group) {
    var paths = group.querySelectorAll('path.js-line, path.point');
    var ok = Array.prototype.some.call(paths, function (path) {
      var d = path.getAttribute('d') || '';
      return /^M[-0-9.]+,[-0-9.]+/.test(d) && d.indexOf('NaN') < 0;
    });
    if (ok) { drawn += 1; }
  });
  return {id: div.id, plot: div.classList.contains('js-plotly-plot'),
          shown: shown, drawn: drawn};
});
"""
FETCHED_JS = """
return performance.getEntriesByType('resource').map(function (entry) {
  return entry.name;
});
"""
LEGENDS_JS = """
return Array.prototype.map.call(
    document.querySelectorAll('.legendtext'), function (text) {
  return text.textContent;
});
"""
# Markup that would run if any document text reached the page unescaped.
PAYLOAD = '</script><img src=x onerror="window.pwned=1"><script>pwned=2'


GOLDEN = os.path.join(support.ROOT, 'tests', 'data', 'golden',
                      'swift_u8_o2000_c10.stat.gz')


def render_page(doc, directory):
    """Write doc's page to directory/report.html; (path, chart count)."""
    from ssbench.report.render.html import render_html
    path = os.path.join(str(directory), 'report.html')
    with io.open(path, 'w', encoding='utf-8') as out:
        render_html(doc, out)
    with io.open(path, encoding='utf-8') as page:
        return path, page.read().count('<div class="chart" ')


def wait_for_charts(driver, count, timeout=30):
    deadline = time.time() + timeout
    while True:
        charts = driver.execute_script(CHARTS_JS)
        if (len(charts) == count and
                all(c['plot'] and c['drawn'] == c['shown'] for c in charts)):
            return charts
        if time.time() > deadline:
            return charts
        time.sleep(0.2)


def hostile_doc(directory):
    doc = analysis_docs.sample_doc(name=PAYLOAD, sizes=(PAYLOAD, 'b&"'),
                                   trans_id=PAYLOAD, message=PAYLOAD)
    doc['stats_file'] = PAYLOAD
    return doc


def long_run_doc(directory):
    """2,000 one-second buckets: lines without markers."""
    return analysis_docs.sample_doc(buckets=2000)


def golden_doc(directory):
    """The analysis of a real 0.3.9 run against Swift."""
    from ssbench.report.compute.analyze import analyze
    return analyze(GOLDEN)


def check_page(driver, path, charts_expected):
    """Load the page; assert every chart drew, nothing was fetched, no
    injected markup ran and the console has no error."""
    driver.get('file://' + path)
    charts = wait_for_charts(driver, charts_expected)
    assert len(charts) == charts_expected > 0, charts
    for chart in charts:
        assert chart['plot'] and chart['shown'] > 0, chart
        assert chart['drawn'] == chart['shown'], chart
    # Nothing fetched but, for a page that shares it, plotly.js beside it.
    fetched = [name for name in driver.execute_script(FETCHED_JS)
               if not name.startswith(('data:', 'blob:')) and not (
                   name.startswith('file:///') and
                   name.endswith('/' + PLOTLY_FILE))]
    assert fetched == []
    assert driver.execute_script('return window.pwned') is None
    severe = [entry for entry in driver.get_log('browser')
              if entry['level'] == 'SEVERE']
    assert severe == []


@pytest.mark.parametrize('make_doc', [
    lambda directory: analysis_docs.sample_doc(), hostile_doc, long_run_doc,
    golden_doc], ids=['sample', 'hostile', 'long', 'golden'])
def test_report_draws_offline(make_doc, tmpdir):
    pytest.importorskip('plotly')
    browser.require_browser()
    path, expected = render_page(make_doc(tmpdir), tmpdir)
    with browser.headless_chromium(width=1400, height=1000) as driver:
        check_page(driver, path, expected)
        if make_doc is hostile_doc:
            # shown as written, in the page and in the chart legends
            assert driver.find_element('tag name', 'h1').text == PAYLOAD
            legends = driver.execute_script(LEGENDS_JS)
            assert PAYLOAD in legends and 'b&"' in legends
        png = browser.page_screenshot(driver, tmpdir.join('report.png'))
    colours, saturated = browser.colour_census(png)
    # Text, tables and coloured chart lines, not a blank page.
    assert colours > 100 and saturated > 1000, (colours, saturated)


def test_real_run_with_errors(tmpdir):
    """A real run against the local Swift, with real 404s: its page."""
    pytest.importorskip('plotly')
    browser.require_browser()
    from ssbench.report.compute.analyze import analyze
    doc = analyze(support.run_with_errors(tmpdir))
    assert doc['errors']['recorded'] and doc['errors']['total'] > 0
    path, expected = render_page(doc, tmpdir)
    with browser.headless_chromium() as driver:
        check_page(driver, path, expected)
        errors = driver.find_element('id', 'errors').text
        assert 'HTTP 404' in errors and 'not recorded' not in errors


def test_empty_run_loads_without_errors(tmpdir):
    pytest.importorskip('plotly')
    browser.require_browser()
    path, expected = render_page(analysis_docs.empty_doc(), tmpdir)
    assert expected == 0
    with browser.headless_chromium() as driver:
        driver.get('file://' + path)
        text = driver.find_element('tag name', 'body').text
        assert 'This stats file holds no results.' in text
        assert [e for e in driver.get_log('browser')
                if e['level'] == 'SEVERE'] == []


def _png(width, rows, filters):
    """An RGB PNG of `rows` (lists of (r, g, b)), each row stored with the
    given filter type, encoded as the PNG specification says."""
    def paeth(a, b, c):
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        return a if pa <= pb and pa <= pc else (b if pb <= pc else c)

    raw, prev = bytearray(), bytearray(width * 3)
    for pixels, kind in zip(rows, filters):
        line = bytearray(v for pixel in pixels for v in pixel)
        out = bytearray()
        for i, value in enumerate(line):
            left = line[i - 3] if i >= 3 else 0
            corner = prev[i - 3] if i >= 3 else 0
            pred = [0, left, prev[i], (left + prev[i]) // 2,
                    paeth(left, prev[i], corner)][kind]
            out.append((value - pred) & 255)
        raw += bytearray([kind]) + out
        prev = line

    def chunk(kind, body):
        return (struct.pack('>I', len(body)) + kind + body +
                struct.pack('>I', zlib.crc32(kind + body) & 0xffffffff))
    return (b'\x89PNG\r\n\x1a\n' +
            chunk(b'IHDR', struct.pack('>IIBBBBB', width, len(rows), 8, 2,
                                       0, 0, 0)) +
            chunk(b'IDAT', zlib.compress(bytes(raw))) + chunk(b'IEND', b''))


def test_png_decoder_undoes_every_filter():
    rows = [[(200, 10, 30), (7, 250, 128), (255, 255, 255)],
            [(0, 0, 0), (90, 91, 92), (13, 200, 7)],
            [(255, 0, 255), (1, 2, 3), (250, 250, 1)],
            [(128, 128, 128), (255, 1, 0), (40, 50, 60)],
            [(9, 99, 199), (0, 255, 0), (77, 66, 55)]]
    data = _png(3, rows, [0, 1, 2, 3, 4])
    width, height, channels, decoded = browser.decode_png(data)
    assert (width, height, channels) == (3, 5, 3)
    assert [list(row) for row in decoded] == [
        [v for pixel in row for v in pixel] for row in rows]
    assert browser.colour_census(data) == (15, 8)
    blank = _png(3, [[(255, 255, 255)] * 3] * 2, [1, 2])
    assert browser.colour_census(blank) == (1, 0)


SWITCH_JS = """
var div = document.getElementById('chart-throughput');
return {title: div.layout.yaxis.title.text,
        y: div.data.map(function (trace) { return trace.y; }),
        visible: div.data.map(function (trace) {
          return trace.visible === undefined ? true : trace.visible; })};
"""


def test_throughput_chart_switches_to_megabytes_per_second(tmpdir):
    """A click on the chart's MB/s button shows each bucket's bytes per
    second, and Requests/s brings the requests back."""
    pytest.importorskip('plotly')
    browser.require_browser()
    doc = golden_doc(tmpdir)
    series = doc['timeseries']
    width = series['bucket_seconds']
    path, expected = render_page(doc, tmpdir)
    with browser.headless_chromium() as driver:
        check_page(driver, path, expected)
        before = driver.execute_script(SWITCH_JS)
        assert before['title'] == 'Requests per second'

        def click(label):
            buttons = [b for b in driver.find_elements(
                'css selector', '#chart-throughput .updatemenu-button')
                if b.text == label]
            assert len(buttons) == 1, label
            buttons[0].click()
            deadline = time.time() + 10
            while driver.execute_script(SWITCH_JS)['title'] == \
                    before['title'] and label != 'Requests/s' and \
                    time.time() < deadline:
                time.sleep(0.1)
            return driver.execute_script(SWITCH_JS)

        after = click('MB/s')
        assert after['title'] == 'MB per second (10^6 bytes)'
        ops = [op for op in ('total', 'create', 'read', 'update', 'delete')
               if op in series['operations']]
        assert after['y'][:len(ops)] == [
            [n / width / 1e6 for n in series['operations'][op]['bytes']]
            for op in ops]
        again = click('Requests/s')
        assert again['title'] == 'Requests per second'
        assert again['y'] == before['y']


# Per chart, the boxes of what must not overlap: its title, the
# Requests/s | MB/s buttons, plotly's mode bar, and each axis's tick
# labels (those with text).
BOXES_JS = """
function boxes(div, selector) {
  return Array.prototype.filter.call(div.querySelectorAll(selector),
      function (el) {
    return el.tagName.toLowerCase() !== 'text' || el.textContent.trim();
  }).map(function (el) {
    var r = el.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  });
}
return Array.prototype.map.call(
    document.querySelectorAll('div.chart'), function (div) {
  return {id: div.id, title: boxes(div, '.gtitle'),
          modebar: boxes(div, '.modebar'),
          toggle: boxes(div, '.updatemenu-button'),
          x: boxes(div, '.xtick text'), y: boxes(div, '.ytick text')};
});
"""


def overlap(a, b):
    """Whether two boxes [left, top, right, bottom] overlap (by more
    than a pixel's rounding)."""
    return (a[0] < b[2] - 1 and b[0] < a[2] - 1 and
            a[1] < b[3] - 1 and b[1] < a[3] - 1)


def check_no_overlaps(driver):
    """No two tick labels of an axis overlap, nor the switch, the mode
    bar and the title of a chart; returns the charts' boxes."""
    charts = driver.execute_script(BOXES_JS)
    for chart in charts:
        for axis in ('x', 'y'):
            labels = chart[axis]
            assert labels, (chart['id'], axis)
            clashes = [(a, b) for i, a in enumerate(labels)
                       for b in labels[i + 1:] if overlap(a, b)]
            assert clashes == [], (chart['id'], axis, clashes)
        parts = [box for key in ('title', 'modebar', 'toggle')
                 for box in chart[key]]
        clashes = [(a, b) for i, a in enumerate(parts)
                   for b in parts[i + 1:] if overlap(a, b)]
        assert clashes == [], (chart['id'], clashes)
    return charts


HEADLINE_JS = """
var block = document.getElementById('headline');
var first = document.querySelector('body > section');
return {first: first && first.id,
        top: block.getBoundingClientRect().top,
        charts: document.querySelector('.chart').getBoundingClientRect().top,
        line: block.querySelector('.headline').textContent,
        caption: (block.querySelector('.caption') || {}).textContent};
"""


def check_headline(driver, line):
    """The page opens with the headline block, which reads `line`."""
    seen = driver.execute_script(HEADLINE_JS)
    assert seen['first'] == 'headline', seen
    assert seen['top'] < seen['charts'], seen
    assert seen['line'].strip() == line
    return seen


def test_a_run_page_opens_with_its_headline_and_keeps_its_labels_apart(
        tmpdir):
    """The 0.3.9 golden run's page: the headline first, the switch
    clear of the mode bar, no axis labels on each other."""
    pytest.importorskip('plotly')
    browser.require_browser()
    from ssbench.report.compute.suitefigures import step_figures
    from ssbench.report.render.headline import headline
    doc = golden_doc(tmpdir)
    path, expected = render_page(doc, tmpdir)
    with browser.headless_chromium(width=1400, height=1000) as driver:
        check_page(driver, path, expected)
        check_headline(driver, headline(step_figures(doc)))
        charts = dict((c['id'], c) for c in check_no_overlaps(driver))
        throughput = charts['chart-throughput']
        assert len(throughput['toggle']) == 2 and throughput['modebar']
        browser.page_screenshot(driver, tmpdir.join('run.png'))


SEARCH_JS = """
var div = document.getElementById('chart-throughput');
var trace = div.querySelector('.scatterlayer .trace');
// The achieved curve's markers, left to right as drawn in data order.
var drawn = Array.prototype.map.call(
    trace.querySelectorAll('path.point'), function (point) {
  return parseFloat(/translate\\(([-0-9.]+)/.exec(
      point.getAttribute('transform'))[1]);
});
return {x: div.data[0].x, text: div.data[0].text, drawn: drawn,
        objective: document.getElementById('about-objective').textContent,
        lines: document.querySelectorAll('.shapelayer path').length,
        notes: Array.prototype.map.call(
            document.querySelectorAll('.annotation-text'),
            function (t) { return t.textContent; })};
"""


def suite_page(directory, doc, objectives):
    """The suite page of `doc` in `directory`, reading plotly.js from
    the shared copy beside it."""
    from ssbench.report.render.html import shared_js_src
    from ssbench.report.render.suitehtml import render_suite_html
    path = os.path.join(str(directory), 'suite.html')
    with io.open(path, 'w', encoding='utf-8') as out:
        render_suite_html(doc, out, objectives,
                          shared_js_src(path, str(directory)),
                          str(directory))
    return path


def check_search_page(driver, path, rates, objective_text):
    """A capacity search's page in the browser: its points in the order
    of their rates, labelled with the run order, the objective shown and
    drawn, the headline first, no labels overlapping."""
    check_page(driver, path, 3)
    seen = driver.execute_script(SEARCH_JS)
    assert seen['x'] == sorted(rates), seen
    assert seen['drawn'] == sorted(seen['drawn']) and \
        len(seen['drawn']) == len(rates), seen
    assert sorted(int(n) for n in seen['text']) == list(
        range(1, len(rates) + 1))
    assert seen['objective'] == objective_text
    assert seen['lines'] >= 1
    assert any(note.startswith('objective ') for note in seen['notes'])
    check_no_overlaps(driver)
    return seen


def test_suite_and_search_pages_in_the_browser(tmpdir):
    """A closed-loop suite's page and a capacity search's, both reading
    the one plotly.min.js beside them."""
    pytest.importorskip('plotly')
    browser.require_browser()
    from ssbench.report.compute.suitefigures import best_step
    from ssbench.report.render.headline import headline
    from ssbench.report.slo import parse_slo
    from tests.unit.report.render.test_suitehtml import search_doc, suite_doc
    rates = (40, 80, 160, 120, 100)
    objectives = parse_slo('p99<200ms,errors<0.1%')
    search = search_doc(rates, 100)
    closed = suite_doc()
    with browser.headless_chromium(width=1400, height=1000) as driver:
        path = suite_page(tmpdir.mkdir('search'), search, objectives)
        seen = check_search_page(driver, path, rates,
                                 'p99<200ms, errors<0.1%')
        assert seen['text'] == ['1', '2', '5', '4', '3']
        best, _ = best_step(search)
        shown = check_headline(driver, headline(best['figures']))
        assert shown['caption'] == ('Step 5 (rate=100): the highest rate '
                                    'that met the objectives')
        browser.page_screenshot(driver, tmpdir.join('search.png'))
        path = suite_page(tmpdir.mkdir('closed'), closed, None)
        check_page(driver, path, 3)
        check_headline(driver, headline(best_step(closed)[0]['figures']))
        check_no_overlaps(driver)
        png = browser.page_screenshot(driver, tmpdir.join('suite.png'))
    colours, saturated = browser.colour_census(png)
    assert colours > 100 and saturated > 1000, (colours, saturated)

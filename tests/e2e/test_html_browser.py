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
    fetched = [name for name in driver.execute_script(FETCHED_JS)
               if not name.startswith(('data:', 'blob:'))]
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

"""Operators' marks during a real --noop run: SIGUSR1 and a line of
--mark-file reach the stats file, the JSON's events and the HTML
report's charts as drawn in headless Chromium."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import signal

import pytest

from tests.e2e import browser, support
from tests.e2e.test_interrupts import BOUND, SCENARIO, master_job

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

# Per chart div: the texts of its annotations and how many shapes (the
# events' lines) plotly drew.
MARKS_JS = """
return Array.prototype.map.call(
    document.querySelectorAll('div.chart'), function (div) {
  return {id: div.id,
          notes: Array.prototype.map.call(
              div.querySelectorAll('g.annotation'),
              function (g) { return g.textContent; }),
          lines: div.querySelectorAll('.shapelayer path').length};
});
"""


def test_marks_sent_mid_run_are_in_the_json_and_on_the_charts(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    marks = str(tmpdir.join('marks'))
    report_json = str(tmpdir.join('run.json'))
    page = str(tmpdir.join('run.html'))
    job = master_job(tmpdir, '-f', SCENARIO, '--noop', '--workers', '1',
                     '-r', '8', '-s', stats, '--mark-file', marks,
                     '--json', report_json, '--html', page)
    job.wait_for('Starting benchmark run')
    support.wait_for_a_result(stats, job.proc, BOUND)
    os.kill(job.proc.pid, signal.SIGUSR1)
    job.wait_for('mark recorded: mark 1')
    with io.open(marks, 'ab') as stream:
        stream.write(b'pulled disk 3\n')
    job.wait_for('mark recorded: pulled disk 3')
    assert job.finish() == 0, job.err
    assert 'Traceback' not in job.err, job.err

    with io.open(report_json, encoding='utf-8') as stream:
        doc = json.load(stream)
    found = [(e['kind'], e['text']) for e in doc['events']]
    assert found[-2:] == [('mark', 'mark 1'), ('mark', 'pulled disk 3')]
    first, second = doc['events'][-2:]
    # Both within the run, in the order they were sent.
    assert 0 <= first['time'] <= second['time'] <= 8 + 5, doc['events']
    assert first['at'] == pytest.approx(doc['run']['start_time'] +
                                        first['time'])

    if not os.path.exists(page):
        pytest.skip("plotly is not installed (pip install 'ssbench[html]')")
    browser.require_browser()
    with browser.headless_chromium() as driver:
        driver.get('file://' + page)
        charts = support.wait_for(
            lambda: _drawn(driver.execute_script(MARKS_JS)), 60,
            'the charts drawn with their marks')
    timed = [c for c in charts if c['id'] == 'chart-throughput' or
             c['id'].startswith('chart-latency-')]
    assert timed, charts
    for chart in timed:
        assert 'mark: mark 1' in chart['notes'], chart
        assert 'mark: pulled disk 3' in chart['notes'], chart
        assert chart['lines'] >= 2, chart


def _drawn(charts):
    """The charts once every time chart drew its lines, else None."""
    timed = [c for c in charts if not c['id'].startswith(
        'chart-distribution-')]
    if timed and all(c['lines'] for c in timed):
        return charts
    return None

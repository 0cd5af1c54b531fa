"""The summary line of real runs: run-scenario logs it at its end (a run
against the local Swift here, over S3 in test_s3_run), report-scenario
--summary prints the same for the run's stats file and for a 0.3.9 one,
and the HTML page opens with it in headless Chromium."""
from __future__ import absolute_import, division, print_function

import os
import re

import pytest

from ssbench.compat import PY2
from tests.e2e import support
from tests.paths import GOLDEN

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

PREFIX = 'INFO:Summary: '
GOLDEN_SWIFT = os.path.join(GOLDEN, 'swift_u8_o2000_c10.stat.gz')


def have_plotly():
    try:
        import plotly  # noqa: F401
    except ImportError:
        return False
    return True


def logged_line(err):
    """The summary line a run logged (once)."""
    lines = [line for line in err.splitlines() if line.startswith(PREFIX)]
    assert len(lines) == 1, err
    return lines[0][len(PREFIX):]


def summary_of(stats):
    ran = support.master('report-scenario', '-s', stats, '--summary',
                         timeout=120)
    assert ran.status == 0 and ran.err == '', ran
    assert ran.out.count('\n') == 1, ran
    return ran.out.rstrip('\n')


def check_page_opens_with(html_path, line):
    """The page at html_path, in headless Chromium, opens with `line`;
    not looked at on Python 2.7 (no selenium 4 there, and the page is the
    same on either Python)."""
    from tests.e2e import browser
    from tests.e2e.test_html_browser import check_headline
    if PY2:
        return
    browser.require_browser()
    with browser.headless_chromium(width=1400, height=1000) as driver:
        driver.get('file://' + html_path)
        check_headline(driver, line)
        browser.page_screenshot(driver, html_path[:-len('.html')] + '.png')


def check_run(ran, stats, html_path=None):
    """What a run-scenario logged: its summary line last but for the
    report's own lines, that of report-scenario --summary, and its page's
    first; the report on stdout as it was."""
    line = logged_line(ran.err)
    assert line == summary_of(stats)
    assert 'Summary' not in ran.out
    assert re.match(
        r'%d requests, [0-9.]+ req/s, p50 [0-9.]+ [^ ,]*s, '
        r'p99 [0-9.]+ [^ ,]*s, p99.9 [0-9.]+ [^ ,]*s, 0 errors \(0.00%%\), '
        r'[0-9.]+ MB/s, client (ok|saturated|host busy|queue growing|'
        r'unknown)$' % len(support.read_results(stats)), line), line
    if html_path is not None:
        check_page_opens_with(html_path, line)
    return line


def test_a_swift_run_logs_its_summary_line(tmpdir):
    support.require_swift()
    path, data = support.write_scenario(tmpdir)
    stats = str(tmpdir.join('run.stat.gz'))
    html = str(tmpdir.join('run.html')) if have_plotly() else None
    try:
        ran = support.master(
            'run-scenario', '-f', path, '-o', '100', '--workers', '1',
            '-s', stats, *(support.zmq_args() + support.auth_args() + (
                ['--html', html] if html else []) + ['--progress', 'none']),
            timeout=240)
    finally:
        support.SwiftView().delete_everything(data['container_base'] + '_')
    assert ran.status == 0, ran
    line = check_run(ran, stats, html)
    assert line.startswith('100 requests, ')
    # After the report's own log lines: the run's last word.
    assert ran.err.rstrip('\n').splitlines()[-1] == PREFIX + line


def test_the_line_of_a_0_3_9_stats_file(tmpdir):
    line = summary_of(GOLDEN_SWIFT)
    assert line == ('2000 requests, 143.6 req/s, p50 49.0 ms, p99 117 ms, '
                    'p99.9 171 ms, 0 errors (0.00%), 0.06 MB/s, '
                    'client unknown')
    if have_plotly():
        html = str(tmpdir.join('golden.html'))
        ran = support.master('report-scenario', '-s', GOLDEN_SWIFT,
                             '--html', html, '-f', os.devnull, timeout=120)
        assert ran.status == 0, ran
        check_page_opens_with(html, line)

"""Headless Chromium for the HTML report tests: Debian's chromium and
chromedriver, driven by selenium, with every network fetch made to fail;
and a small PNG decoder (stdlib zlib) to look at its screenshots."""
from __future__ import absolute_import, division, print_function

import collections
import contextlib
import os
import shutil
import sys
import struct
import tempfile
import zlib

import pytest

CHROMIUM = '/usr/bin/chromium'
CHROMEDRIVER = '/usr/bin/chromedriver'
# A port nothing listens on: a proxy there makes every fetch fail fast.
DEAD_PROXY = 'http://127.0.0.1:9'


def require_browser():
    """Skip (or, with SSBENCH_REQUIRE_BROWSER=1 as in CI, fail) without
    selenium, chromium or chromedriver.  Python 2.7 always skips: selenium
    4 is Python 3 only, and the page is the same on either Python."""
    if sys.version_info[0] < 3:
        pytest.skip('the browser test runs on Python 3 (selenium 4)')
    missing = []
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append('selenium (in the test extra on Python 3.8+)')
    absent = [path for path in (CHROMIUM, CHROMEDRIVER)
              if not os.access(path, os.X_OK)]
    if absent:
        missing.append('%s (apt-get install chromium chromium-driver)'
                       % ' and '.join(absent))
    if not missing:
        return
    reason = 'no headless browser: missing %s' % '; '.join(missing)
    if os.environ.get('SSBENCH_REQUIRE_BROWSER') == '1':
        pytest.fail(reason)
    print(reason)
    pytest.skip(reason)


@contextlib.contextmanager
def headless_chromium(width=1400, height=1000, timeout=60):
    """A selenium driver of headless Chromium with networking unusable
    (names do not resolve, everything goes to a dead proxy); quit on
    exit, its profile directory removed."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix='ssbench-chromium-')
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ('--headless=new', '--no-sandbox', '--disable-gpu',
                '--disable-dev-shm-usage', '--hide-scrollbars',
                '--force-device-scale-factor=1',
                '--window-size=%d,%d' % (width, height),
                '--user-data-dir=' + profile,
                '--host-resolver-rules=MAP * ~NOTFOUND',
                '--proxy-server=' + DEAD_PROXY,
                '--disable-background-networking',
                '--disable-component-update', '--disable-sync',
                '--disable-extensions', '--no-first-run',
                '--no-default-browser-check'):
        options.add_argument(arg)
    options.set_capability('goog:loggingPrefs', {'browser': 'ALL'})
    # An explicit driver path: selenium never looks for (or downloads)
    # a driver or a browser of its own.
    service = Service(executable_path=CHROMEDRIVER)
    driver = None
    try:
        driver = webdriver.Chrome(service=service, options=options)
        driver.set_page_load_timeout(timeout)
        driver.set_script_timeout(timeout)
        yield driver
    finally:
        if driver is not None:
            driver.quit()
        else:
            service.stop()
        shutil.rmtree(profile, ignore_errors=True)


def _unfilter(kind, line, prev, bpp):
    """One PNG scanline with its filter (0-4) undone."""
    if kind == 0:
        return line
    out = bytearray(line)
    if kind == 2:
        return bytearray((a + b) & 255 for a, b in zip(line, prev))
    for i in range(len(out)):
        left = out[i - bpp] if i >= bpp else 0
        if kind == 1:
            out[i] = (out[i] + left) & 255
        elif kind == 3:
            out[i] = (out[i] + ((left + prev[i]) >> 1)) & 255
        else:
            up, corner = prev[i], prev[i - bpp] if i >= bpp else 0
            p = left + up - corner
            pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
            if pa <= pb and pa <= pc:
                pred = left
            elif pb <= pc:
                pred = up
            else:
                pred = corner
            out[i] = (out[i] + pred) & 255
    return out


def decode_png(data):
    """(width, height, channels, [row bytearray]) of an 8-bit,
    non-interlaced RGB or RGBA PNG."""
    assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
    pos, idat, header = 8, [], None
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b'IHDR':
            header = struct.unpack('>IIBBBBB', body)
        elif kind == b'IDAT':
            idat.append(body)
        elif kind == b'IEND':
            break
    width, height, depth, colour, _, _, interlace = header
    assert depth == 8 and colour in (2, 6) and not interlace, header
    channels = 3 if colour == 2 else 4
    raw = bytearray(zlib.decompress(b''.join(idat)))
    stride = width * channels
    rows, prev = [], bytearray(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1:start + 1 + stride],
                         prev, channels)
        rows.append(prev)
    return width, height, channels, rows


def colour_census(png_data):
    """(distinct colours, count of saturated pixels) of a PNG screenshot."""
    _, _, channels, rows = decode_png(png_data)
    # Pixels counted per colour by Counter's C loop, and each distinct
    # colour judged once: millions of pixels, a few thousand colours
    # (5 s of Python loop per screenshot before).
    pixels = collections.Counter()
    for row in rows:
        pixels.update(zip(row[0::channels], row[1::channels],
                          row[2::channels]))
    saturated = sum(count for colour, count in pixels.items()
                    if max(colour) - min(colour) > 60)
    return len(pixels), saturated


def page_screenshot(driver, path, width=1400, most=6000):
    """A PNG of the whole page (up to `most` pixels high) written to
    `path` (named on stdout) and returned, once the window is as tall as
    the page."""
    height = driver.execute_script(
        'return document.documentElement.scrollHeight')
    driver.set_window_size(width, min(height, most))
    png = driver.get_screenshot_as_png()
    with open(str(path), 'wb') as handle:
        handle.write(png)
    print('screenshot: %s' % path)
    return png

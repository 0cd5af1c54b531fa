# -*- coding: utf-8 -*-
from __future__ import absolute_import, division, print_function

import io
import os

import pytest

from ssbench.report.compute.analyze import analyze
from ssbench.report.compute.suitefigures import step_figures
from ssbench.report.render import headline
from tests.paths import ROOT
from tests.unit.report.compute.test_suitefigures import step_doc

GOLDEN = os.path.join(ROOT, 'tests', 'data', 'golden')
MICRO = u'\u00b5'


def test_latencies_in_ms_and_below_a_millisecond_in_us():
    text = headline.latency_text
    assert text(0.1234) == '123 ms'
    assert text(0.01234) == '12.3 ms'
    assert text(0.001234) == '1.23 ms'
    assert text(2.5) == '2500 ms'
    assert text(0.000456) == u'456 \u00b5s'
    assert text(0.0000456, 'u') == '45.6 us'
    # Not "1000 us": a millisecond once rounded.
    assert text(0.0009996) == '1.00 ms'
    assert text(None) == '-'


def test_the_line_of_a_run():
    figures = step_figures(step_doc(errors=10, client={'saturated': True}))
    assert headline.headline(figures) == (
        '1010 requests, 100.0 req/s, p50 100 ms, p99 400 ms, p99.9 800 ms, '
        '10 errors (0.99%), 1.50 MB/s, client saturated')


def test_a_run_without_results_reads_as_dashes():
    for figures in (None, {'operations': {}}):
        assert headline.headline(figures) == (
            '0 requests, - req/s, p50 -, p99 -, p99.9 -, 0 errors, - MB/s, '
            'client unknown')


@pytest.mark.parametrize('name, line', [
    ('swift_u8_o2000_c10', '2000 requests, 143.6 req/s, p50 49.0 ms, '
     'p99 117 ms, p99.9 171 ms, 0 errors (0.00%), 0.06 MB/s, '
     'client unknown'),
    ('noop_u4_w1_b1.run1', '30000 requests, 9187.0 req/s, p50 -, p99 -, '
     'p99.9 -, 0 errors (0.00%), 4.27 MB/s, client unknown')])
def test_the_line_of_a_0_3_9_stats_file(name, line):
    doc = analyze(os.path.join(GOLDEN, name + '.stat.gz'))
    assert headline.headline(step_figures(doc)) == line


class Stream(object):
    def __init__(self, encoding):
        self.encoding = encoding


@pytest.mark.parametrize('encoding, sign', [
    ('utf-8', MICRO), ('UTF-8', MICRO), ('latin-1', MICRO),
    ('ANSI_X3.4-1968', 'u'), ('ascii', 'u'), (None, 'u'),
    ('no-such-codec', 'u')])
def test_the_micro_sign_only_where_the_stream_can_show_it(encoding, sign):
    assert headline.micro_sign(Stream(encoding)) == sign


def test_a_stream_without_an_encoding_gets_ascii():
    assert headline.micro_sign(io.BytesIO()) == 'u'
    assert headline.micro_sign(io.TextIOWrapper(io.BytesIO(),
                                                encoding='ascii')) == 'u'
    assert headline.micro_sign(io.TextIOWrapper(io.BytesIO(),
                                                encoding='utf-8')) == MICRO


def test_the_html_block_reads_as_the_line():
    import re
    figures = step_figures(step_doc())
    figures['operations']['total']['latency']['p50'] = 0.0005
    block = headline.headline_html(figures, 'Step 1 (<u8>): why')
    assert '<p class="caption">Step 1 (&lt;u8&gt;): why</p>' in block
    text = re.sub('<[^>]+>', '', block.split('class="headline">')[1]).strip()
    assert text.replace('&#181;', MICRO) == headline.headline(figures)

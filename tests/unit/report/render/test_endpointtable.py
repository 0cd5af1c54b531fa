"""ssbench.report.render.endpointtable, and its section of the HTML page."""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute.analyze import analyze
from ssbench.report.render.endpointtable import endpoints_html, versus_others
from tests.analysis_naive import HEADER, FakeStatsFile, res
from tests.unit.report.render.test_html import needs_plotly, render
from tests.unit.report.test_compare import latency, operation

HOSTILE = '</td><script>alert(1)</script>'


def endpoint(index, scale, url=None):
    return dict(operation('endpoint[%d]' % index, last=latency(scale)),
                index=index, url=url or 'http://p%d/v1/AUTH_t' % index)


def test_the_slow_endpoint_and_only_it_is_named():
    endpoints = [endpoint(0, 1.0), endpoint(1, 10.0), endpoint(2, 1.2)]
    ratios = versus_others(endpoints)
    # Averages 0.12, 1.2, 0.144: each over the median of the others'.
    assert [round(r, 3) for r in ratios] == [0.179, 9.091, 0.218]
    page = endpoints_html({'unattributed': 0, 'endpoints': endpoints},
                          [50, 99])
    assert 'or more): endpoint[1].</p>' in page
    assert page.count('<tr>') == 4 and '<th class="num">p99</th>' in page


def test_no_note_when_none_stands_out_and_unknown_figures_are_na():
    idle = dict(operation('endpoint[1]', count=0, rps=None), index=1,
                url='http://p1')
    idle['latency'] = {'last_byte': [{'size': None, 'count': 0}]}
    page = endpoints_html({'unattributed': 3, 'endpoints': [
        endpoint(0, 1.0), idle]}, [99])
    assert 'Slower than' not in page and 'N/A' in page
    assert '3 results name no endpoint' in page
    assert versus_others([idle, endpoint(0, 1.0)]) == [None, None]


def test_urls_are_escaped():
    page = endpoints_html({'endpoints': [endpoint(0, 1.0, HOSTILE),
                                         endpoint(1, 1.0)]}, [99])
    assert '<script>' not in page and '&lt;script&gt;' in page


@needs_plotly
def test_the_page_has_the_section_only_for_several_endpoints():
    results = [res(at=100.0 + i / 10.0, last=0.01 + 0.2 * (i % 2),
                   endpoint=i % 2) for i in range(40)]
    urls = [u'http://a:8080/v1/AUTH_t', u'http://b:8090/v1/AUTH_t']
    page = render(analyze(FakeStatsFile(results, header=dict(
        HEADER, endpoints=urls))))
    assert '<section id="endpoints">' in page
    assert 'or more): endpoint[1].</p>' in page
    page = render(analyze(FakeStatsFile(results)))
    assert '<section id="endpoints">' not in page

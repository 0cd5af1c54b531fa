from __future__ import absolute_import, division, print_function

from ssbench.live.exposition import Family, labels_text, number, render


def _families():
    counter = Family('x_requests', 'counter', 'Done "so far"\nback\\slash')
    counter.add(labels_text((('op', 'get'), ('odd', 'a"b\\c\nd'))), 3,
                '_total')
    gauge = Family('x_up', 'gauge', 'Up')
    gauge.add('', 1)
    return [counter, gauge]


def test_the_text_format_names_a_counter_with_total_and_has_no_eof():
    assert render(_families()).decode('utf-8') == (
        '# HELP x_requests_total Done "so far"\\nback\\\\slash\n'
        '# TYPE x_requests_total counter\n'
        'x_requests_total{op="get",odd="a\\"b\\\\c\\nd"} 3.0\n'
        '# HELP x_up Up\n'
        '# TYPE x_up gauge\n'
        'x_up 1.0\n')


def test_openmetrics_names_the_counter_family_bare_and_ends_with_eof():
    text = render(_families(), openmetrics=True).decode('utf-8')
    assert text.startswith(
        '# HELP x_requests Done \\"so far\\"\\nback\\\\slash\n'
        '# TYPE x_requests counter\n'
        'x_requests_total{op="get",odd="a\\"b\\\\c\\nd"} 3.0\n')
    assert text.endswith('x_up 1.0\n# EOF\n')


def test_numbers_are_written_as_go_writes_floats():
    assert [number(v) for v in (0, 2, 0.25, 1e-05, float('inf'),
                                float('-inf'))] == [
        '0.0', '2.0', '0.25', '1e-05', '+Inf', '-Inf']
    assert labels_text(()) == ''

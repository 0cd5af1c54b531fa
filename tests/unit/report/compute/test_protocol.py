from __future__ import absolute_import, division, print_function

import pytest

from ssbench.report.compute import protocol

S3_HEADER = {
    'name': 'x', 'protocol': 's3',
    's3': {'endpoint_url': 'http://127.0.0.1:8080', 'region': 'us-east-1',
           'addressing': 'path', 'payload': 'UNSIGNED-PAYLOAD',
           'buckets': ['b-000000-default-policy', 'b-000009-default-policy']}}


def test_a_swift_run_has_neither_line_nor_section():
    assert protocol.section({'name': 'x'}) is None
    assert protocol.describe({'name': 'x'}) is None
    assert protocol.describe({'protocol': 'swift'}) is None


def test_an_s3_run_is_named_with_its_settings_and_buckets():
    assert protocol.describe(S3_HEADER) == (
        'S3 API at http://127.0.0.1:8080 (region us-east-1, path '
        'addressing, UNSIGNED-PAYLOAD payloads): buckets '
        'b-000000-default-policy .. b-000009-default-policy')
    assert protocol.section(S3_HEADER) == {
        'protocol': 's3', 'endpoint_url': 'http://127.0.0.1:8080',
        'region': 'us-east-1', 'addressing': 'path',
        'payload': 'UNSIGNED-PAYLOAD',
        'buckets': ['b-000000-default-policy', 'b-000009-default-policy']}


@pytest.mark.parametrize('settings', [
    None, 'text', [1, 2], {'endpoint_url': b'http://h', 'region': 7,
                           'buckets': 'not a list'}])
def test_a_damaged_s3_map_still_gives_one_line(settings):
    header = {'protocol': b's3', 's3': settings}
    line = protocol.describe(header)
    assert line.startswith('S3 API at ')
    assert 'buckets' not in line
    assert protocol.section(header)['buckets'] is None

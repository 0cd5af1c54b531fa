"""What a stats file says of the API a run spoke: nothing for the Swift
API (0.3.9's files, and this project's Swift runs, have no such key), or
``"protocol": "s3"`` and an ``"s3"`` map (endpoint, region, addressing,
payload signing, first and last bucket: ssbench.cli.s3run).

describe() is the text report's header line for an S3 run, section() the
JSON's; both take whatever a header holds (a damaged one too) and give
None when it names no S3 run."""
from __future__ import absolute_import, division, print_function

from ssbench.report.compute.cells import as_text

# The S3 settings of a stats header's `s3` map the reports show (the
# wire's CONFIGURE has its own, ssbench.wire.protocol.S3_KEYS).
S3_HEADER_KEYS = ('endpoint_url', 'region', 'addressing', 'payload')


def section(header):
    """The JSON's {'protocol': 's3', endpoint_url, region, addressing,
    payload, buckets} of an S3 run's header, else None."""
    if as_text(header.get('protocol')) != 's3':
        return None
    settings = header.get('s3')
    if not isinstance(settings, dict):
        settings = {}
    found = {'protocol': 's3'}
    for key in S3_HEADER_KEYS:
        value = settings.get(key)
        found[key] = None if value is None else '%s' % (as_text(value),)
    buckets = settings.get('buckets')
    found['buckets'] = ['%s' % (as_text(name),) for name in buckets] \
        if isinstance(buckets, (list, tuple)) else None
    return found


def describe(header):
    """The text report's line for an S3 run ("S3 API at URL (region R,
    path addressing, UNSIGNED-PAYLOAD payloads): buckets A .. B"), else
    None."""
    found = section(header)
    if found is None:
        return None
    line = 'S3 API at %s (region %s, %s addressing, %s payloads)' % (
        found['endpoint_url'] or 'an endpoint not recorded',
        found['region'] or 'not recorded',
        found['addressing'] or 'unrecorded', found['payload'] or
        'unrecorded')
    if found['buckets']:
        line += ': buckets %s' % (' .. '.join(found['buckets']),)
    return line

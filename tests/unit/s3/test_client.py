"""ssbench.s3.client: S3 requests signed per attempt with the Keyring of
that moment, path or virtual-host addressed, an error's S3 code carried
as its error class beside the status, and a worker's S3Access following
its master's CONFIGUREs."""
from __future__ import absolute_import, division, print_function

import calendar

import pytest

from ssbench.errors import S3Error, ScenarioError
from ssbench.s3 import keyring
from ssbench.s3.client import S3Access, S3Client
from ssbench.s3.errorbody import S3RequestError
from tests.clocks import FakeClock

pytestmark = pytest.mark.timeout(30)

SECRET = 'the-secret-key'
NOON = calendar.timegm((2024, 2, 29, 12, 0, 0, 0, 0, 0))


def maker(clock, region='us-east-1'):
    return keyring.KeyMaker('AKID', SECRET, region, clock=clock)


def test_s3_access_follows_the_masters_configure():
    clock = FakeClock(NOON)
    made = maker(clock)
    form = dict(made.wire_form(), endpoint_url=u'http://127.0.0.1:9',
                addressing=u'path', signed_payload=False)
    built = []

    def factory(url, keys, **kwargs):
        built.append((url, keys, kwargs))
        return 'client'
    access = S3Access(factory)
    assert access.settings is None
    assert access.update(form) is True
    assert access.client(concurrency=3) == 'client'
    url, keys, kwargs = built[0]
    assert url == 'http://127.0.0.1:9' and kwargs == {
        'region': 'us-east-1', 'addressing': 'path',
        'signed_payload': False, 'concurrency': 3}
    assert keys().dates == ['20240229']
    # The next day's keys: the same client signs with them.
    clock.advance(13 * 3600)
    assert access.update(dict(form, **made.wire_form())) is False
    assert keys().dates == ['20240301']
    assert access.update(dict(form, signed_payload=True)) is True
    with pytest.raises(ValueError):
        access.update(dict(form, keys={}))


def test_a_failed_request_of_the_master_is_explained_in_s3_terms():
    refused = S3RequestError('PUT', '/ssbench-0', 409, 'Conflict',
                             error_class='BucketAlreadyExists')
    error = S3Client.explain(refused, 'cannot create containers', 'gold')
    assert isinstance(error, S3Error)
    assert str(error) == (
        'cannot create containers: %s; another account owns a bucket of '
        'that name: name others with --container-base' % (refused,))
    assert 'Swift' not in str(error) and 'gold' not in str(error)
    unknown = S3RequestError('PUT', '/b', 500, 'Internal', error_class='X')
    assert str(S3Client.explain(unknown, 'doing')) == 'doing: %s' % (
        unknown,)
    assert str(S3Client.explain(ValueError('no'), 'doing')) == \
        'doing: ValueError: no'
    said = ScenarioError('already one line')
    assert S3Client.explain(said, 'doing') is said

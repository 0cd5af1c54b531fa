"""keystone.py: which storage URLs a Keystone catalog gives, through the
v2.0 stub token server with a crafted catalog: the first matching
endpoint (as 0.3.9), or with os_all_endpoints every one, sorted."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.errors import SwiftAuthError
from ssbench.swift import auth as swiftauth
from ssbench.swift.auth import AuthOptions, Credentials

pytestmark = pytest.mark.timeout(60)

# Out of order, one URL twice, two regions.
ENDPOINTS = [('RegionOne', 'http://p2:8080/v1/AUTH_t'),
             ('RegionTwo', 'http://q1:8080/v1/AUTH_t'),
             ('RegionOne', 'http://p1:8080/v1/AUTH_t'),
             ('RegionOne', 'http://p2:8080/v1/AUTH_t')]


@pytest.fixture
def stub():
    pytest.importorskip('keystoneauth1')
    from tests.keystone_v2_stub import V2Stub
    server = V2Stub('ten', 'usr', 'pw', None, 'tok',
                    endpoints=ENDPOINTS).start()
    yield server
    server.stop()


def options(stub, **changes):
    return AuthOptions(**dict(dict(
        auth_version='2.0', os_auth_url=stub.auth_url, os_username='usr',
        os_password='pw', os_tenant_name='ten'), **changes))


def test_the_first_endpoint_by_default(stub):
    url, token, _ = swiftauth.authenticate(options(stub), timeout=10)
    assert (url, token) == ('http://p2:8080/v1/AUTH_t', 'tok')
    url, _, _ = swiftauth.authenticate(
        options(stub, os_region_name='RegionTwo'), timeout=10)
    assert url == 'http://q1:8080/v1/AUTH_t'


def test_every_endpoint_sorted_once_each(stub):
    urls, token, _ = swiftauth.authenticate(
        options(stub, os_all_endpoints=True), timeout=10)
    assert token == 'tok'
    assert urls == ['http://p1:8080/v1/AUTH_t', 'http://p2:8080/v1/AUTH_t',
                    'http://q1:8080/v1/AUTH_t']


def test_every_endpoint_of_the_region(stub):
    urls, _, _ = swiftauth.authenticate(
        options(stub, os_all_endpoints=True, os_region_name='RegionOne'),
        timeout=10)
    assert urls == ['http://p1:8080/v1/AUTH_t', 'http://p2:8080/v1/AUTH_t']


@pytest.mark.parametrize('every', [False, True])
def test_no_endpoint_in_the_region_is_one_line(stub, every):
    with pytest.raises(SwiftAuthError) as info:
        swiftauth.authenticate(
            options(stub, os_all_endpoints=every, os_region_name='Nowhere'),
            timeout=10)
    text = str(info.value)
    assert 'no object-store endpoint in the service catalog' in text
    assert '--os-region-name' in text and '\n' not in text


def test_the_grant_holds_every_endpoint(stub):
    credentials = Credentials(options(stub, os_all_endpoints=True),
                              timeout=10)
    grant = credentials.current()
    assert grant.storage_urls == ['http://p1:8080/v1/AUTH_t',
                                  'http://p2:8080/v1/AUTH_t',
                                  'http://q1:8080/v1/AUTH_t']
    assert credentials.renew(grant).storage_urls == grant.storage_urls
    # -S still overrides what the catalog says.
    given = Credentials(options(stub, os_all_endpoints=True,
                                storage_urls=['http://s/v1/AUTH_t']),
                        timeout=10)
    assert given.current().storage_urls == ['http://s/v1/AUTH_t']

"""Smoke test of the local Swift that tools/saio runs (and tools/keystone).

Skipped, with the reason printed, unless `tools/saio status` says Swift is
up (start it with `tools/saio start`, as root); the Keystone test likewise
needs `tools/keystone status`. Every request has a timeout.
"""
from __future__ import absolute_import, division, print_function

import hashlib
import json
import os
import uuid

import pytest

try:
    import http.client as httplib
    from urllib.parse import urlparse
except ImportError:  # Python 2
    import httplib
    from urlparse import urlparse

from tests.e2e import support

pytestmark = pytest.mark.e2e

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SAIO = os.path.join(ROOT, 'tools', 'saio')
KEYSTONE_URL = 'http://127.0.0.1:5000/v3'
OS_USER, OS_PASSWORD, OS_PROJECT = 'ssbench-user', 'ssbench-pass', 'ssbench'
AUTH_URL = 'http://127.0.0.1:8080/auth/v1.0'
AUTH_URL_2 = 'http://127.0.0.1:8090/auth/v1.0'
USER, KEY = 'test:tester', 'testing'
REQUEST_TIMEOUT = 10
STATUS_TIMEOUT = 30


def request(method, url, headers=None, body=None):
    """One HTTP request with a timeout: (status, lower-cased headers, body)."""
    parts = urlparse(url)
    path = parts.path or '/'
    if parts.query:
        path += '?' + parts.query
    conn = httplib.HTTPConnection(parts.hostname, parts.port or 80,
                                  timeout=REQUEST_TIMEOUT)
    try:
        conn.request(method, path, body, headers or {})
        resp = conn.getresponse()
        data = resp.read()
        found = dict((k.lower(), v) for k, v in resp.getheaders())
        return resp.status, found, data
    finally:
        conn.close()


def authenticate(auth_url=AUTH_URL):
    status, headers, _ = request(
        'GET', auth_url, {'X-Auth-User': USER, 'X-Auth-Key': KEY})
    assert 200 <= status < 300, 'auth answered %d' % status
    return headers.get('x-auth-token'), headers.get('x-storage-url')


def require_up(tool, what):
    """Skip (printing why) unless `tools/<tool> status` exits 0."""
    path = os.path.join(ROOT, 'tools', tool)
    if not os.access(path, os.X_OK):
        reason = '%s not found' % path
    else:
        ran = support.run([path, 'status'], STATUS_TIMEOUT)
        status, out = ran.status, ran.out + ran.err
        if status == 0:
            return
        lines = out.strip().splitlines() or ['(no output)']
        reason = ('%s is not up (`tools/%s status` exited %s: %s); start it '
                  'with `tools/%s start` (as root)'
                  % (what, tool, status, lines[-1].strip(), tool))
    print('SKIP test_saio: ' + reason)
    pytest.skip(reason)


@pytest.fixture(scope='module')
def saio():
    require_up('saio', 'local Swift')


@pytest.fixture(scope='module')
def keystone():
    require_up('keystone', 'local Keystone')


@pytest.fixture
def container(saio):
    """A fresh container name under AUTH_test, deleted (with its objects)."""
    token, url = authenticate()
    name = 'ssbench_saio_smoke_%s' % uuid.uuid4().hex
    created = []
    yield token, url, name, created
    for path in created[::-1]:
        request('DELETE', '%s/%s' % (url, path), {'X-Auth-Token': token})


def test_auth_returns_token_and_storage_url(saio):
    token, url = authenticate()
    assert token and token.startswith('AUTH_tk'), token
    assert url == 'http://127.0.0.1:8080/v1/AUTH_test', url
    status, headers, _ = request('HEAD', url, {'X-Auth-Token': token})
    assert 200 <= status < 300, status


def test_put_get_round_trip(container):
    token, url, name, created = container
    status, _, _ = request('PUT', '%s/%s' % (url, name),
                           {'X-Auth-Token': token})
    assert status in (201, 202), status
    created.append(name)

    body = os.urandom(4096)
    obj = '%s/smoke-object' % name
    status, headers, _ = request(
        'PUT', '%s/%s' % (url, obj),
        {'X-Auth-Token': token, 'Content-Length': str(len(body))}, body)
    assert status == 201, status
    created.append(obj)
    assert headers.get('etag') == hashlib.md5(body).hexdigest()

    status, headers, data = request('GET', '%s/%s' % (url, obj),
                                    {'X-Auth-Token': token})
    assert status == 200, status
    assert data == body
    assert headers.get('etag') == hashlib.md5(body).hexdigest()


def test_second_proxy_and_silver_policy(container):
    token, url, name, created = container
    token2, url2 = authenticate(AUTH_URL_2)
    assert url2 == 'http://127.0.0.1:8090/v1/AUTH_test', url2
    status, _, _ = request('PUT', '%s/%s' % (url2, name),
                           {'X-Auth-Token': token2,
                            'X-Storage-Policy': 'silver'})
    assert status in (201, 202), status
    created.append(name)
    # Both proxies share the rings and memcached: each one sees the
    # container, and a token from one works on the other.
    status, headers, _ = request('HEAD', '%s/%s' % (url, name),
                                 {'X-Auth-Token': token2})
    assert status == 204, status
    assert headers.get('x-storage-policy') == 'silver'


def test_keystone_v3_token_and_swift_through_8081(keystone):
    body = json.dumps({'auth': {
        'identity': {'methods': ['password'], 'password': {'user': {
            'name': OS_USER, 'password': OS_PASSWORD,
            'domain': {'name': 'Default'}}}},
        'scope': {'project': {'name': OS_PROJECT,
                              'domain': {'name': 'Default'}}}}})
    status, headers, data = request(
        'POST', KEYSTONE_URL + '/auth/tokens',
        {'Content-Type': 'application/json'}, body.encode('utf-8'))
    assert status == 201, status
    token = headers.get('x-subject-token')
    assert token
    catalog = json.loads(data.decode('utf-8'))['token']['catalog']
    urls = [ep['url'] for svc in catalog if svc['type'] == 'object-store'
            for ep in svc['endpoints'] if ep['interface'] == 'public']
    assert len(urls) == 1, urls
    assert urls[0].startswith('http://127.0.0.1:8081/v1/AUTH_'), urls
    status, _, _ = request('HEAD', urls[0], {'X-Auth-Token': token})
    assert 200 <= status < 300, status
    status, _, _ = request('HEAD', urls[0], {'X-Auth-Token': 'bogus'})
    assert status == 401, status

"""Smoke test of the local Swift that tools/saio runs.

Skipped, with the reason printed, unless `tools/saio status` says Swift is
up (start it with `tools/saio start`, as root). Every request has a timeout.
"""
from __future__ import absolute_import, division, print_function

import hashlib
import os
import subprocess
import threading
import uuid

import pytest

try:
    import http.client as httplib
    from urllib.parse import urlparse
except ImportError:  # Python 2
    import httplib
    from urlparse import urlparse

pytestmark = pytest.mark.e2e

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
SAIO = os.path.join(ROOT, 'tools', 'saio')
AUTH_URL = 'http://127.0.0.1:8080/auth/v1.0'
AUTH_URL_2 = 'http://127.0.0.1:8090/auth/v1.0'
USER, KEY = 'test:tester', 'testing'
REQUEST_TIMEOUT = 10
STATUS_TIMEOUT = 30


def run_bounded(argv, timeout):
    """Run argv; kill it after `timeout` seconds. Returns (status, output)."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        out = proc.communicate()[0]
    finally:
        timer.cancel()
    return proc.returncode, out.decode('utf-8', 'replace')


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


@pytest.fixture(scope='module')
def saio():
    if not os.access(SAIO, os.X_OK):
        reason = 'tools/saio not found at %s' % SAIO
    else:
        status, out = run_bounded([SAIO, 'status'], STATUS_TIMEOUT)
        if status == 0:
            return
        lines = out.strip().splitlines() or ['(no output)']
        reason = ('local Swift is not up (`tools/saio status` exited %s: %s); '
                  'start it with `tools/saio start` (as root)'
                  % (status, lines[-1].strip()))
    print('SKIP test_saio: ' + reason)
    pytest.skip(reason)


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

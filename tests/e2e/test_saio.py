"""Smoke test of the local Swift that tools/saio runs (and tools/keystone),
and of a second instance beside it that is killed and restarted.

Skipped, with the reason printed, unless `tools/saio status` says Swift is
up (start it with `tools/saio start`, as root); the Keystone test likewise
needs `tools/keystone status`, the second instance root. Every request and
command has a timeout.
"""
from __future__ import absolute_import, division, print_function

import hashlib
import json
import os
import re
import socket
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
SHARED_DIR = os.environ.get('SAIO_DIR', '/var/tmp/ssbench-saio')
# One tools/saio command on the second instance (start takes ~25 s on a
# loaded 2-core machine: ring building and the servers' imports).
COMMAND_TIMEOUT = 120
TOKEN_LIFE = 600


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


def listening(port):
    sock = socket.socket()
    sock.settimeout(2)
    try:
        return sock.connect_ex(('127.0.0.1', port)) == 0
    finally:
        sock.close()


def free_offset():
    """(a port offset (multiple of 1000) at which no port of an instance
    is taken, the open file of its host-wide lock): a soak may run its
    own instance at one of them, and the other interpreter's suite its
    own second instance, whose ports are not taken yet while it starts;
    the offset is this process's until that file is closed."""
    for offset in range(1000, 10000, 1000):
        lock = support.try_lock('saio-offset-%d' % offset)
        if lock is None:
            continue
        ports = [p + offset for p in (8080, 8090, 6200, 6201, 6202, 11311)]
        if not any(listening(port) for port in ports):
            return offset, lock
        lock.close()
    pytest.skip('no free port offset for a second local Swift')


def shared_proxy_pids():
    pids = []
    for name in ('proxy-8080', 'proxy-8090'):
        with open(os.path.join(SHARED_DIR, 'run', name + '.pid')) as fp:
            pids.append(fp.read().strip())
    return pids


@pytest.fixture
def second_saio(saio, tmpdir):
    """(saio(*args) -> Ran, state dir, offset) of a second instance in
    tmpdir, on the shared instance's virtualenv; destroyed (stopped,
    unmounted, removed) at teardown."""
    if os.geteuid() != 0:
        pytest.skip('a second local Swift needs root (mount, /etc/swift)')
    state = str(tmpdir.join('saio'))
    offset, lock = free_offset()
    env = {'SAIO_DIR': state, 'SAIO_PORT_OFFSET': str(offset),
           'SAIO_VENV': os.path.join(SHARED_DIR, 'venv'),
           'SAIO_TOKEN_LIFE': str(TOKEN_LIFE)}

    def saio_command(*args):
        return support.run([SAIO] + list(args), COMMAND_TIMEOUT, env=env)
    try:
        yield saio_command, state, offset
    finally:
        try:
            ran = saio_command('destroy')
            assert ran.status == 0, ran
            assert not os.path.exists(state)
        finally:
            lock.close()


def test_second_instance_killed_and_restarted_beside_the_shared_one(
        second_saio):
    from swiftclient import client
    saio_command, state, offset = second_saio
    proxy, proxy_name = 8080 + offset, 'proxy-%d' % (8080 + offset)
    shared_pids = shared_proxy_pids()
    with open('/etc/swift/swift.conf', 'rb') as fp:
        swift_conf = fp.read()

    ran = saio_command('start')
    assert ran.status == 0, ran
    auth_url = 'http://127.0.0.1:%d/auth/v1.0' % proxy
    ran = saio_command('env')
    assert 'export ST_AUTH=%s ST_USER=test:tester' % auth_url in ran.out, ran
    status, headers, _ = request(
        'GET', auth_url, {'X-Auth-User': USER, 'X-Auth-Key': KEY})
    assert status == 200, status
    assert 0 < int(headers['x-auth-token-expires']) <= TOKEN_LIFE, headers

    swift = client.Connection(auth_url, USER, KEY, retries=0,
                              timeout=REQUEST_TIMEOUT)
    container, body = 'second-saio', os.urandom(1000)
    swift.put_container(container)
    swift.put_object(container, 'obj', body)
    assert swift.get_object(container, 'obj')[1] == body
    access = os.path.join(state, 'log', 'proxy-%d.access' % proxy)
    with open(access) as fp:
        assert ' /v1/AUTH_test/second-saio/obj ' in fp.read()

    ran = saio_command('kill', 'object')
    assert ran.status == 0, ran
    with pytest.raises(client.ClientException) as failed:
        swift.get_object(container, 'obj')
    assert failed.value.http_status == 503, failed.value
    ran = saio_command('start')
    assert ran.status == 0, ran
    assert 'started: object\n' in ran.err, ran
    assert swift.get_object(container, 'obj')[1] == body

    ran = saio_command('restart', proxy_name)
    assert ran.status == 0, ran
    assert re.match(r'restarted %s in [0-9.]+s$' % proxy_name,
                    ran.out.strip()), ran
    assert swift.get_object(container, 'obj')[1] == body

    ran = saio_command('kill', 'proxy-8080')
    assert ran.status == 1, ran
    assert ran.err.count('\n') == 1, ran
    assert "unknown server 'proxy-8080'" in ran.err, ran

    ran = saio_command('stop')
    assert ran.status == 0, ran
    assert not listening(proxy)
    assert shared_proxy_pids() == shared_pids
    with open('/etc/swift/swift.conf', 'rb') as fp:
        assert fp.read() == swift_conf
    token, url = authenticate()
    status, _, _ = request('HEAD', url, {'X-Auth-Token': token})
    assert 200 <= status < 300, status

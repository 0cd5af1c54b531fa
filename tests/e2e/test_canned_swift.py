"""bench/cannedswift.py: the canned Swift the capacity benchmarks use.

Starts it (nginx; installed from Debian when missing and root), checks
every answer a benchmark relies on, and that `stop` ends exactly the nginx
master and worker it started.  Skipped when nginx is neither installed nor
installable.  Every request and command has a timeout.
"""
from __future__ import absolute_import, division, print_function

import os
import sys

import pytest

try:
    import http.client as httplib
except ImportError:  # Python 2
    import httplib

from tests.e2e import support

pytestmark = pytest.mark.e2e

SCRIPT = os.path.join(support.ROOT, 'bench', 'cannedswift.py')
COMMAND_TIMEOUT = 120      # start may run apt-get the first time
REQUEST_TIMEOUT = 10


def canned(action, directory):
    return support.run([sys.executable, SCRIPT, action, '--dir',
                        directory], COMMAND_TIMEOUT)


def request(port, method, path, headers=None, body=None):
    conn = httplib.HTTPConnection('127.0.0.1', port, timeout=REQUEST_TIMEOUT)
    try:
        conn.request(method, path, body, headers or {})
        resp = conn.getresponse()
        data = resp.read()
        found = dict((k.lower(), v) for k, v in resp.getheaders())
        return resp.status, found, data
    finally:
        conn.close()


def alive(pid):
    try:
        with open('/proc/%d/stat' % pid) as handle:
            return handle.read().rsplit(')', 1)[1].split()[0] != 'Z'
    except (IOError, OSError):
        return False


def children(pid):
    found = []
    for name in os.listdir('/proc'):
        if name.isdigit():
            try:
                with open('/proc/%s/stat' % name) as handle:
                    ppid = int(handle.read().rsplit(')', 1)[1].split()[1])
            except (IOError, OSError):
                continue
            if ppid == pid:
                found.append(int(name))
    return found


def running(tmpdir):
    """A fixture's body: the canned Swift started in tmpdir, (its
    directory, its port), and stopped after the test; skipped without
    nginx unless root may install it."""
    if not any(os.access(p, os.X_OK) for p in ('/usr/sbin/nginx',
                                               '/usr/bin/nginx')) and \
            os.geteuid() != 0:
        pytest.skip('no nginx, and not root to install it')
    directory = str(tmpdir.join('canned'))
    ran = canned('start', directory)
    try:
        assert ran.status == 0, ran
        port = int(ran.out.strip().rsplit(':', 1)[1].split('/')[0])
        yield directory, port
    finally:
        canned('stop', directory)


@pytest.fixture
def server(tmpdir):
    for started in running(tmpdir):
        yield started


def test_answers_like_swift(server):
    _, port = server
    status, headers, _ = request(port, 'GET', '/auth/v1.0', {
        'X-Auth-User': 'canned:canned', 'X-Auth-Key': 'canned'})
    assert status == 200
    storage = headers['x-storage-url']
    assert storage == 'http://127.0.0.1:%d/v1/AUTH_canned' % port
    token = {'X-Auth-Token': headers['x-auth-token']}
    assert headers['x-trans-id']
    base = '/v1/AUTH_canned'
    expected = [
        ('PUT', base + '/c', b'', 201, None),
        ('HEAD', base + '/c', None, 204, None),
        ('PUT', base + '/c/o', b'x' * 100000, 201, None),
        ('GET', base + '/c/o', None, 200, 4096),
        ('HEAD', base + '/c/o', None, 200, 0),
        ('DELETE', base + '/c/o', None, 204, None),
    ]
    trans_ids = set()
    for method, path, body, want, length in expected:
        status, headers, data = request(port, method, path, token, body)
        assert status == want, (method, path, status)
        trans_ids.add(headers['x-trans-id'])
        if length is not None:
            assert len(data) == length
            assert int(headers['content-length']) == 4096
    assert len(trans_ids) == len(expected)   # one per request
    status, headers, _ = request(port, 'HEAD', base + '/c/large_000001',
                                 token)
    assert (status, headers['content-length']) == (200, str(1 << 30))


def test_stop_ends_what_start_started(server):
    directory, port = server
    with open(os.path.join(directory, 'nginx.pid')) as handle:
        master = int(handle.read())
    with open('/proc/%d/cmdline' % master, 'rb') as handle:
        assert directory.encode() in handle.read()
    status = canned('status', directory)
    assert status.status == 0 and str(port) in status.out, status
    workers = children(master)
    assert len(workers) == 1              # one worker process
    stopped = canned('stop', directory)
    assert stopped.status == 0, stopped
    assert not alive(master) and not alive(workers[0])
    assert canned('status', directory).status == 1
    assert 'not running' in canned('stop', directory).out

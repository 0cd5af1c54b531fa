"""deploy/helm/ssbench/files/upload.py, the chart's upload of a run's
files (docs/kubernetes.rst), against a loopback stand-in for Swift's
v1.0 auth and PUTs.  (tests/e2e/test_helm.py runs it against the local
Swift.)  Python 3: the script runs in the image's Python 3."""
from __future__ import absolute_import, division, print_function

import os
import runpy
import sys
import threading

import pytest

from tests.unit.test_helm_upload import SCRIPT, run_folder

pytestmark = pytest.mark.skipif(sys.version_info < (3, 6),
                                reason='the image runs Python 3')


@pytest.fixture
def upload():
    return runpy.run_path(SCRIPT)['main']


@pytest.fixture
def swift():
    """A stand-in: GET /auth/v1.0 hands out a token for user u, key k;
    PUTs with that token are recorded (path, body)."""
    from http.server import BaseHTTPRequestHandler, HTTPServer

    puts = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            good = (self.headers.get('X-Auth-User') == 'u' and
                    self.headers.get('X-Auth-Key') == 'k')
            self.send_response(200 if good else 401)
            if good:
                self.send_header('X-Storage-Url', 'http://127.0.0.1:%d/v1/'
                                 'AUTH_u' % server.server_address[1])
                self.send_header('X-Auth-Token', 'tok')
            self.send_header('Content-Length', '0')
            self.end_headers()

        def do_PUT(self):
            size = int(self.headers.get('Content-Length', 0))
            body = self.rfile.read(size)
            if self.headers.get('X-Auth-Token') != 'tok':
                self.send_response(401)
            else:
                puts.append((self.path, body))
                self.send_response(201)
            self.send_header('Content-Length', '0')
            self.end_headers()

    server = HTTPServer(('127.0.0.1', 0), Handler)
    thread = threading.Thread(target=server.serve_forever)
    thread.daemon = True
    thread.start()
    server.puts = puts
    server.auth_url = 'http://127.0.0.1:%d/auth/v1.0' % (
        server.server_address[1])
    yield server
    server.shutdown()
    server.server_close()


def test_every_file_of_the_run_becomes_an_object(upload, swift, tmpdir,
                                                 capsys):
    root = run_folder(tmpdir)
    tmpdir.join('other.stat.gz').write_binary(b'not this run')
    env = {'ST_AUTH': swift.auth_url, 'ST_USER': 'u', 'ST_KEY': 'k'}
    assert upload(['results', root, 'rel-3'], env) == 0
    assert sorted(swift.puts) == [
        ('/v1/AUTH_u/results', b''),
        ('/v1/AUTH_u/results/rel-3/run.stat.gz', b'\x1f\x8bstats'),
        ('/v1/AUTH_u/results/rel-3/step/a%20b.html', b'<html/>')]
    assert capsys.readouterr().out == \
        'upload: 2 files of %s in container results\n' % os.path.join(
            root, 'rel-3')


def test_a_token_needs_no_auth(upload, swift, tmpdir):
    root = run_folder(tmpdir)
    env = {'OS_STORAGE_URL': swift.auth_url.replace('/auth/v1.0',
                                                    '/v1/AUTH_u'),
           'OS_AUTH_TOKEN': 'tok'}
    assert upload(['results', root, 'rel-3'], env) == 0
    assert len(swift.puts) == 3


def test_refused_credentials_are_one_line(upload, swift, tmpdir, capsys):
    root = run_folder(tmpdir)
    env = {'ST_AUTH': swift.auth_url, 'ST_USER': 'u', 'ST_KEY': 'wrong'}
    assert upload(['results', root, 'rel-3'], env) == 1
    err = capsys.readouterr().err
    assert err.startswith('upload: ') and err.count('\n') == 1, err
    assert 'wrong' not in err
    assert swift.puts == []


def test_no_run_folder(upload, swift, tmpdir, capsys):
    env = {'ST_AUTH': swift.auth_url, 'ST_USER': 'u', 'ST_KEY': 'k'}
    assert upload(['results', str(tmpdir), 'rel-3'], env) == 1
    assert capsys.readouterr().err == 'upload: no folder %s: nothing to ' \
        'upload\n' % os.path.join(str(tmpdir), 'rel-3')
    assert swift.puts == []

"""A tiny Keystone identity v2.0 stand-in, for testing v2.0 auth.

Current Keystone no longer serves identity v2.0, so the e2e tests run this
stub instead: `POST /v2.0/tokens` with password credentials for one known
tenant/user/password answers with a token and a service catalog holding
one object-store endpoint (or the (region, url) endpoints given); anything
else is 401 or 404.  The token and
the endpoint are whatever the test gives it, e.g. a real tempauth token
and storage URL, so the Swift requests that follow are real.

    stub = V2Stub('tenant', 'user', 'password', storage_url, token).start()
    ... stub.auth_url ... stub.requests ...
    stub.stop()

It serves from a daemon thread of the calling process, on a free port of
127.0.0.1.  Standard library only; Python 2.7 and 3.
"""
from __future__ import absolute_import, division, print_function

import json
import threading

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn
except ImportError:  # Python 2
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def _catalog_entry(endpoints):
    return {'type': 'object-store', 'name': 'swift',
            'endpoints': [{'region': region, 'id': 'e%d' % i,
                           'publicURL': url, 'internalURL': url,
                           'adminURL': url}
                          for i, (region, url) in enumerate(endpoints, 1)],
            'endpoints_links': []}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):   # keep pytest's output quiet
        pass

    def _reply(self, status, data):
        body = json.dumps(data).encode('utf-8')
        self.send_response(status)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        stub = self.server.stub
        if self.path.rstrip('/') == '/v2.0':
            self._reply(200, {'version': {
                'id': 'v2.0', 'status': 'deprecated',
                'links': [{'rel': 'self', 'href': stub.auth_url + '/'}]}})
        else:
            self._reply(404, {'error': {'code': 404, 'message': 'Not Found'}})

    def do_POST(self):
        stub = self.server.stub
        length = int(self.headers.get('Content-Length') or 0)
        raw = self.rfile.read(length) if length else b''
        try:
            auth = json.loads(raw.decode('utf-8'))['auth']
            creds = auth.get('passwordCredentials') or {}
            seen = (auth.get('tenantName'), creds.get('username'),
                    creds.get('password'))
        except (ValueError, KeyError, TypeError, AttributeError):
            seen = None
        with stub.lock:
            stub.requests.append((self.path, seen))
        if self.path.rstrip('/') != '/v2.0/tokens':
            self._reply(404, {'error': {'code': 404, 'message': 'Not Found'}})
            return
        if seen != (stub.tenant, stub.user, stub.password):
            self._reply(401, {'error': {'code': 401, 'title': 'Unauthorized',
                                        'message': 'bad credentials'}})
            return
        self._reply(200, {'access': {
            'token': {'id': stub.token, 'expires': '2099-01-01T00:00:00Z',
                      'issued_at': '2020-01-01T00:00:00.000000Z',
                      'tenant': {'id': 'tenant-id', 'name': stub.tenant,
                                 'enabled': True}},
            'serviceCatalog': [_catalog_entry(stub.endpoints)],
            'user': {'id': 'user-id', 'name': stub.user, 'username':
                     stub.user, 'roles': [{'name': 'member'}],
                     'roles_links': []},
            'metadata': {'is_admin': 0, 'roles': []}}})


class V2Stub(object):
    """The stub server; `requests` lists (path, (tenant, user, password))
    of every POST received (None when the body was not v2.0 JSON).
    `endpoints`: the catalog's object-store endpoints as (region, url),
    by default storage_url's alone in RegionOne."""

    def __init__(self, tenant, user, password, storage_url, token,
                 endpoints=None):
        self.tenant, self.user, self.password = tenant, user, password
        self.storage_url, self.token = storage_url, token
        self.endpoints = endpoints or [('RegionOne', storage_url)]
        self.requests = []
        self.lock = threading.Lock()
        self.server = None
        self.thread = None
        self.auth_url = None

    def start(self):
        self.server = _Server(('127.0.0.1', 0), _Handler)
        self.server.stub = self
        self.auth_url = 'http://127.0.0.1:%d/v2.0' % (
            self.server.server_address[1],)
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={'poll_interval': 0.1})
        self.thread.daemon = True
        self.thread.start()
        return self

    def stop(self):
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.thread.join(10)
            self.server = None

    def token_requests(self):
        with self.lock:
            return [seen for path, seen in self.requests
                    if path.rstrip('/') == '/v2.0/tokens']

"""Small S3 servers for unit tests: a handler class says what each
request gets (`respond`); this module owns the socket, the server's
thread, the reading of a request's body and the writing of a reply, and
builds a client signed with a key of a fixed clock."""
from __future__ import absolute_import, division, print_function

import contextlib
import threading

from ssbench.compat import PY2
from ssbench.s3 import keyring
from ssbench.s3.client import S3Client

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn
else:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn


class Handler(BaseHTTPRequestHandler):
    """Reads each request's body and hands it to `respond(body)`, which
    subclasses write; `reply()` answers (without a body to a HEAD)."""

    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def respond(self, body):
        raise NotImplementedError

    def reply(self, status, body=b'', headers=()):
        self.send_response(status)
        self.send_header('Content-Length', str(len(body)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(body)

    def _handle(self):
        length = int(self.headers.get('Content-Length') or 0)
        self.respond(self.rfile.read(length) if length else b'')

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True


@contextlib.contextmanager
def serving(handler, **state):
    """A server of `handler` on a free loopback port, in a thread of its
    own, with `state` as attributes and `url`; shut down on leaving."""
    httpd = _Server(('127.0.0.1', 0), handler)
    httpd.lock = threading.Lock()
    for name, value in state.items():
        setattr(httpd, name, value)
    httpd.url = 'http://127.0.0.1:%d' % httpd.server_address[1]
    thread = threading.Thread(target=httpd.serve_forever,
                              kwargs={'poll_interval': 0.05})
    thread.daemon = True
    thread.start()
    try:
        yield httpd
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


def client_of(url, clock, secret, retries, region='us-east-1', **kwargs):
    """An S3Client of `url` whose keyring is made for access key AKID and
    `secret` at `clock`'s time; its `ring` is a one-item list the test may
    replace the keyring in."""
    made = keyring.KeyMaker('AKID', secret, region, clock=clock)
    ring = [keyring.Keyring.from_wire(made.wire_form())]
    client = S3Client(url, lambda: ring[0], region=region, now=clock,
                      retries=retries, **kwargs)
    client.ring = ring
    return client

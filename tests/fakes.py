"""Test doubles: an in-process Swift over real HTTP, a fake transport and
a fake Swift client."""
from __future__ import absolute_import, division, print_function

import collections
import json
import socket
import struct
import sys
import threading
import time

from ssbench.compat import PY2
from ssbench.swift.auth import AuthOptions
from ssbench.store.outcome import Timing

if PY2:  # pragma: no cover
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn
    from urllib import unquote
    from urlparse import parse_qs, urlsplit
else:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn
    from urllib.parse import parse_qs, unquote, urlsplit

ACCOUNT = '/v1/AUTH_test'


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        # Clients that hang up mid-answer are what the timeout and
        # interruption tests make; anything else is still printed.
        if not isinstance(sys.exc_info()[1], (IOError, OSError)):
            HTTPServer.handle_error(self, request, client_address)

    def process_request(self, request, client_address):
        # Track handler threads so stop() can end them: a Python 2 daemon
        # thread still running at interpreter exit prints junk.
        thread = threading.Thread(target=self.process_request_thread,
                                  args=(request, client_address))
        thread.daemon = True
        with self.swift.lock:
            self.swift.handlers.append((thread, request))
        thread.start()


class _Handler(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    disable_nagle_algorithm = True   # no 40 ms delayed-ACK stalls

    def log_message(self, *args):
        pass

    def _reply(self, status, headers=None, body=b''):
        swift = self.server.swift
        self.send_response(status)
        trans_id = 'tx%08d' % swift.next_trans()
        self.send_header('X-Trans-Id', trans_id)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        if self.command == 'HEAD':
            if 'Content-Length' not in (headers or {}):
                self.send_header('Content-Length', '0')
            body = b''
        elif 'Content-Length' not in (headers or {}):
            self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        chunk = swift.body_chunk
        if isinstance(body, tuple):  # (fill byte, length): stream it
            fill, left = body
            block = fill * chunk
            while left > 0:
                self.wfile.write(block[:min(left, chunk)])
                left -= chunk
        elif body:
            self.wfile.write(body)
        self.wfile.flush()
        if self.close_after:
            self.close_connection = True

    def _body(self):
        length = int(self.headers.get('Content-Length') or 0)
        got = 0
        fills = set()
        while got < length:
            data = self.rfile.read(min(65536, length - got))
            if not data:
                break
            got += len(data)
            fills.update(set(data))
        return got, fills

    def _handle(self):
        swift = self.server.swift
        # Decided on arrival, so a test flipping the flag can't race us.
        self.close_after = swift.close_after_response
        url = urlsplit(self.path)
        path = unquote(url.path)
        if PY2:
            path = path.decode('utf-8')
        record = {'method': self.command, 'path': path,
                  'query': url.query, 'headers': dict(
                      (k.lower(), v) for k, v in self.headers.items())}
        if self.command in ('PUT', 'POST'):
            record['body_length'], record['fills'] = self._body()
        with swift.lock:
            swift.requests.append(record)
            if self.command == 'GET' and swift.expire_tokens_at_get:
                swift.expire_tokens_at_get -= 1
                if not swift.expire_tokens_at_get:
                    swift.valid_tokens.clear()
            scripted = None
            if swift.script:
                scripted = swift.script.popleft()
        if scripted is not None:
            if scripted == 'drop':
                self.close_connection = True
                self.connection.shutdown(2)
                return
            return self._reply(scripted, body=b'scripted')
        if path == '/auth/v1.0':
            if (self.headers.get('X-Auth-User') == swift.user and
                    self.headers.get('X-Auth-Key') == swift.key):
                swift.tokens_issued += 1
                token = 'AUTH_tk%d' % swift.tokens_issued
                swift.valid_tokens.add(token)
                return self._reply(200, {
                    'X-Storage-Url': swift.url + ACCOUNT,
                    'X-Auth-Token': token})
            return self._reply(401)
        if self.headers.get('X-Auth-Token') not in swift.valid_tokens:
            return self._reply(401)
        if not path.startswith(ACCOUNT):
            return self._reply(404)
        parts = path[len(ACCOUNT):].lstrip('/').split('/', 1)
        container = parts[0] or None
        name = parts[1] if len(parts) > 1 else None
        if container is None:
            return self._listing(sorted(swift.containers), url.query)
        if name is None:
            return self._container(container, url.query)
        return self._object(container, name, record)

    def _listing(self, names, query):
        params = parse_qs(query)
        marker = params.get('marker', [''])[0]
        prefix = params.get('prefix', [''])[0]
        if PY2:
            marker, prefix = marker.decode('utf-8'), prefix.decode('utf-8')
        limit = int(params.get('limit', ['10000'])[0])
        limit = min(limit, self.server.swift.listing_limit)
        page = [n for n in names if n > marker and n.startswith(prefix)]
        page = page[:limit]
        if not page:
            return self._reply(204)
        body = json.dumps([{'name': n} for n in page]).encode('utf-8')
        return self._reply(200, {'Content-Type': 'application/json'}, body)

    def _container(self, container, query):
        swift = self.server.swift
        if self.command == 'PUT':
            swift.containers.setdefault(container, {})
            swift.policies[container] = self.headers.get('X-Storage-Policy')
            return self._reply(201)
        if container not in swift.containers:
            return self._reply(404)
        if self.command == 'HEAD':
            return self._reply(204, {'X-Container-Object-Count': str(
                len(swift.containers[container]))})
        if self.command == 'DELETE':
            if swift.containers[container]:
                return self._reply(409)
            del swift.containers[container]
            return self._reply(204)
        return self._listing(sorted(swift.containers[container]), query)

    def _object(self, container, name, record):
        swift = self.server.swift
        if swift.service_time:
            # A server of known capacity: `slots` requests served at
            # once, each taking service_time.
            with swift.slots:
                time.sleep(swift.service_time)
        if swift.slow_every and self.command == 'GET':
            with swift.lock:
                swift.gets += 1
                slow = swift.gets % swift.slow_every == 0
            if slow:
                time.sleep(swift.slow_time)
        objects = swift.containers.get(container)
        if objects is None:
            return self._reply(404)
        if self.command == 'PUT':
            fills = record['fills']
            fill = next(iter(fills)) if fills else b'A'
            if not isinstance(fill, bytes):
                fill = bytes(bytearray([fill]))
            objects[name] = (fill, record['body_length'])
            return self._reply(201)
        if name not in objects:
            return self._reply(404)
        if self.command == 'DELETE':
            del objects[name]
            return self._reply(204)
        fill, length = objects[name]
        if self.command == 'HEAD':
            return self._reply(200, {'Content-Length': str(length)})
        return self._reply(200, {'Content-Length': str(length)},
                           (fill, length))

    do_GET = do_PUT = do_HEAD = do_DELETE = do_POST = _handle


class FakeSwift(object):
    """Swift-like HTTP server on 127.0.0.1 in a thread (tempauth v1.0).

    `script` is a deque of statuses (or 'drop' to close the connection
    without answering) served, in order, before normal handling.  Every
    token issued so far stops being valid at the `expire_tokens_at_get`th
    GET request from now (when set).
    """

    def __init__(self, user='test:tester', key='testing'):
        self.user = user
        self.key = key
        self.lock = threading.Lock()
        self.requests = []
        self.handlers = []
        self.script = collections.deque()
        self.containers = {}
        self.policies = {}
        self.valid_tokens = set()
        self.tokens_issued = 0
        self.expire_tokens_at_get = None
        self.trans = 0
        self.close_after_response = False
        self.listing_limit = 10000
        self.body_chunk = 65536
        self.service_time = 0.0
        self.slots = None
        # Every slow_every-th object GET takes slow_time more (see tail()).
        self.slow_every = 0
        self.slow_time = 0.0
        self.gets = 0
        self.server = _Server(('127.0.0.1', 0), _Handler)
        self.server.swift = self
        self.port = self.server.server_address[1]
        self.url = 'http://127.0.0.1:%d' % self.port
        self.auth_url = self.url + '/auth/v1.0'
        self.storage_url = self.url + ACCOUNT
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={'poll_interval': 0.05})
        self.thread.daemon = True
        self.thread.start()

    def limit(self, concurrency, service_time):
        """Serve object requests `concurrency` at a time, each taking
        `service_time` seconds: a capacity of concurrency / service_time
        requests a second, latency turning up near it."""
        self.slots = threading.BoundedSemaphore(concurrency)
        self.service_time = service_time

    def tail(self, every, seconds):
        """Make every `every`-th object GET take `seconds` more: a p99 of
        `seconds` at any rate once every <= 100 (a slow tail that a
        handful of results seldom shows)."""
        self.slow_every = every
        self.slow_time = seconds

    def next_trans(self):
        with self.lock:
            self.trans += 1
            return self.trans

    def issue_token(self):
        with self.lock:
            self.tokens_issued += 1
            token = 'AUTH_tk%d' % self.tokens_issued
            self.valid_tokens.add(token)
            return token

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)
        for thread, request in self.handlers:
            try:
                request.shutdown(socket.SHUT_RDWR)
            except (socket.error, OSError):
                pass
            thread.join(5)

    def v1_auth(self, **kwargs):
        """Auth options (v1.0) for this server's one account."""
        return AuthOptions(auth_url=self.auth_url, user=self.user,
                           key=self.key, **kwargs)


def serve_fake_swift():
    """A fixture's body: a FakeSwift for one test, stopped after it."""
    server = FakeSwift()
    yield server
    server.stop()


class FakeTransport(object):
    """WorkerSockets/MasterSockets stand-in backed by in-memory queues.

    `inbox` holds what the owner will recv(); `sent` what it sent.  It
    works in greenlets: recv() waits with gevent.sleep polling.
    """

    def __init__(self, deliverable=True):
        self.inbox = collections.deque()
        self.sent = []
        self.closed = False
        self.deliverable = deliverable

    def recv(self, timeout=None):
        import gevent
        deadline = None if timeout is None else time.time() + timeout
        while not self.inbox:
            if self.closed:
                return None
            if deadline is not None and time.time() >= deadline:
                return None
            gevent.sleep(0.002)
        return self.inbox.popleft()

    def recv_nowait(self):
        return self.inbox.popleft() if self.inbox else None

    def send(self, data, timeout=None):
        if not self.deliverable:
            return False
        self.sent.append(data)
        return True

    def send_control(self, data, timeout=0):
        """A worker's heartbeats (its work connection): in `sent` too,
        through send() (which subclasses change)."""
        return self.send(data, timeout)

    def close(self, linger=0):
        self.closed = True
        self.linger = linger


class FakeClient(object):
    """A SwiftClient stand-in: records calls; answers with canned Timings
    or raises what `fail` names.  `instances` lists every one built."""

    instances = []

    def __init__(self, auth, **kwargs):
        self.auth = auth
        self.kwargs = kwargs
        self.calls = []
        self.missing = set()
        self.fail = {}
        self.closed = False
        FakeClient.instances.append(self)

    def _op(self, name, *args):
        self.calls.append((name,) + args)
        if name in self.fail:
            raise self.fail[name]
        read = name == 'get_object'
        return Timing(200, 0.01 if read else None, 0.02, 'tx-%s' % name, 1,
                      0, 321 if read else 0)

    def put_object(self, *args):
        return self._op('put_object', *args)

    def get_object(self, *args):
        return self._op('get_object', *args)

    def delete_object(self, *args):
        return self._op('delete_object', *args)

    def stat_object(self, *args):
        return self._op('stat_object', *args)

    def list_page(self, *args):
        return self._op('list_page', *args)

    def head_object(self, container, name, missing_ok=False):
        self.calls.append(('head_object', container, name))
        if name in self.missing:
            return Timing(404, None, 0.01, 'tx-head', 2, 1)
        return Timing(200, None, 0.01, 'tx-head', 0)

    def head_container(self, container, missing_ok=False):
        self.calls.append(('head_container', container))
        return Timing(404 if container in self.missing else 204, None, 0.01,
                      'tx-headc', 0)

    def close(self):
        self.closed = True


# --- a raw HTTP peer -------------------------------------------------------

CLOSE = 'close'        # close the connection instead of answering
SILENT = 'silent'      # never answer (the client times out)
RESET = 'reset'        # abort the connection (RST) instead of answering


class CannedServer(object):
    """Answers each request it reads with the next item of `replies`.

    An item is the bytes to send, a list of byte strings sent apart with a
    short pause (one response in several segments), CLOSE, SILENT, RESET or
    (bytes, CLOSE): answer, then close.  `requests` gets (connection
    number, head, body) for every request read.
    """

    def __init__(self):
        self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.listener.bind(('127.0.0.1', 0))
        self.listener.listen(16)
        self.listener.settimeout(0.1)
        self.port = self.listener.getsockname()[1]
        self.replies = collections.deque()
        self.requests = []
        self.connections = 0
        self.lock = threading.Lock()
        self.socks = []
        self.threads = []
        self.stopping = False
        self.acceptor = threading.Thread(target=self._accept)
        self.acceptor.daemon = True
        self.acceptor.start()

    def _accept(self):
        while not self.stopping:
            try:
                sock = self.listener.accept()[0]
            except socket.timeout:
                continue
            except (socket.error, OSError):
                return
            with self.lock:
                self.connections += 1
                number = self.connections
                self.socks.append(sock)
            thread = threading.Thread(target=self._serve,
                                      args=(sock, number))
            thread.daemon = True
            self.threads.append(thread)
            thread.start()

    def _serve(self, sock, number):
        sock.settimeout(10)
        data = b''
        try:
            while not self.stopping:
                while b'\r\n\r\n' not in data:
                    more = sock.recv(65536)
                    if not more:
                        return
                    data += more
                head, data = data.split(b'\r\n\r\n', 1)
                length = 0
                for line in head.split(b'\r\n')[1:]:
                    name, _, value = line.partition(b':')
                    if name.strip().lower() == b'content-length':
                        length = int(value)
                while len(data) < length:
                    more = sock.recv(65536)
                    if not more:
                        return
                    data += more
                body, data = data[:length], data[length:]
                with self.lock:
                    self.requests.append((number, head, body))
                    reply = self.replies.popleft()
                close = False
                if isinstance(reply, tuple):
                    reply, close = reply[0], True
                if reply == CLOSE:
                    return
                if reply == RESET:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    struct.pack('ii', 1, 0))
                    return
                if reply == SILENT:
                    while sock.recv(65536):
                        pass
                    return
                if isinstance(reply, list):
                    for part in reply:
                        sock.sendall(part)
                        time.sleep(0.02)
                else:
                    sock.sendall(reply)
                if close:
                    return
        except (socket.error, OSError):
            pass
        finally:
            sock.close()

    def stop(self):
        self.stopping = True
        self.listener.close()
        self.acceptor.join(5)
        with self.lock:
            socks = list(self.socks)
        for sock in socks:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except (socket.error, OSError):
                pass
        for thread in self.threads:
            thread.join(5)
        assert not any(t.is_alive() for t in self.threads + [self.acceptor])

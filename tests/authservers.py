"""Hostile servers on 127.0.0.1, for the tempauth bounds and listings
that are not Swift's: each one reads a request head and answers it with
a function of the socket (a redirect, a trickle, an endless body, bytes
that are no text), and records the heads it read."""
from __future__ import absolute_import, division, print_function

import socket
import threading


class AuthServer(object):
    """Serves `answer(sock, head)` to each connection, in a thread each,
    until stop(); `heads` collects every request head read (bytes).
    `tls` (an ssl.SSLContext for servers) makes it an https server."""

    def __init__(self, answer, host='127.0.0.1', tls=None):
        self.answer = answer
        self.tls = tls
        self.heads = []
        self.stopping = threading.Event()
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind((host, 0))
        self.listener.listen(8)
        self.listener.settimeout(0.1)
        self.host = host
        self.port = self.listener.getsockname()[1]
        self.url = '%s://%s:%d/auth/v1.0' % ('https' if tls else 'http',
                                             host, self.port)
        self.threads = []
        acceptor = threading.Thread(target=self._accept)
        acceptor.daemon = True
        acceptor.start()
        self.threads.append(acceptor)

    def _accept(self):
        while not self.stopping.is_set():
            try:
                sock = self.listener.accept()[0]
            except socket.timeout:
                continue
            except (socket.error, OSError):
                return
            thread = threading.Thread(target=self._serve, args=(sock,))
            thread.daemon = True
            thread.start()
            self.threads.append(thread)

    def _serve(self, sock):
        sock.settimeout(5)
        try:
            if self.tls is not None:
                sock = self.tls.wrap_socket(sock, server_side=True)
            data = b''
            while b'\r\n\r\n' not in data:
                more = sock.recv(4096)
                if not more:
                    return
                data += more
            head, body = data.split(b'\r\n\r\n', 1)
            # A body (Keystone's POST) is read, so closing sends no reset.
            length = 0
            for line in head.lower().split(b'\r\n'):
                if line.startswith(b'content-length:'):
                    length = int(line.split(b':')[1])
            while len(body) < length:
                more = sock.recv(4096)
                if not more:
                    return
                body += more
            self.heads.append(head + b'\r\n\r\n')
            self.answer(self, sock, head)
        except (socket.error, OSError):
            pass    # the client gave up: what these servers are for
        finally:
            sock.close()

    def stop(self):
        self.stopping.set()
        self.listener.close()
        for thread in self.threads:
            thread.join(10)

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.stop()


def tls_context(directory):
    """A server TLS context with a new self-signed certificate for
    127.0.0.1, made with openssl in `directory`."""
    import os
    import ssl
    import subprocess
    cert = os.path.join(directory, 'cert.pem')
    key = os.path.join(directory, 'key.pem')
    subprocess.check_call(
        ['openssl', 'req', '-x509', '-newkey', 'rsa:2048', '-nodes',
         '-keyout', key, '-out', cert, '-days', '1', '-subj',
         '/CN=127.0.0.1'], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


def redirect(location, status=302):
    """An answer: a redirect to `location`."""
    def answer(server, sock, head):
        sock.sendall(('HTTP/1.1 %d Found\r\nLocation: %s\r\nContent-Length:'
                      ' 0\r\n\r\n' % (status, location)).encode('latin-1'))
    return answer


def refuse(server, sock, head):
    """An answer: 401."""
    sock.sendall(b'HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n')


def grant(server, sock, head):
    """An answer: a storage URL and a token."""
    sock.sendall(b'HTTP/1.1 200 OK\r\nX-Storage-Url: http://127.0.0.1:9/v1/'
                 b'AUTH_a\r\nX-Auth-Token: AUTH_tk\r\nContent-Length: 0'
                 b'\r\n\r\n')


def trickle(interval, body=False):
    """An answer that never ends: one more header line every `interval`
    seconds, or (`body`) a head and then one body byte every `interval`
    seconds; either is well within any per-receive timeout."""
    def answer(server, sock, head):
        if body:
            sock.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n'
                         b'\r\n')
        else:
            sock.sendall(b'HTTP/1.1 200 OK\r\n')
        while not server.stopping.wait(interval):
            sock.sendall(b'x' if body else b'X-Trickle: x\r\n')
    return answer


def endless_chunk(server, sock, head):
    """An answer: a 3 GiB chunk, sent for as long as it is read."""
    sock.sendall(b'HTTP/1.1 200 OK\r\nX-Storage-Url: http://127.0.0.1:9/v1/'
                 b'AUTH_a\r\nX-Auth-Token: AUTH_tk\r\nTransfer-Encoding: '
                 b'chunked\r\n\r\n%x\r\n' % (3 << 30))
    block = b'z' * 65536
    sent = 0
    while sent < 3 << 30 and not server.stopping.is_set():
        sock.sendall(block)
        sent += len(block)


def not_swift(server, sock, head):
    """An answer: 200 with a body that is no text (a server at the storage
    URL that is not Swift)."""
    body = b'\x89PNG\r\n\x1a\n\xff\xfe\x00binary'
    sock.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: image/png\r\n'
                 b'Content-Length: %d\r\n\r\n%s' % (len(body), body))


def stuck_listing(server, sock, head):
    """An answer: the same page of a JSON listing to every GET, whatever
    its marker (a server that pages without advancing)."""
    body = b'[{"name": "ssbench_000000_default_policy"}]'
    sock.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n'
                 b'Content-Length: %d\r\n\r\n%s' % (len(body), body))

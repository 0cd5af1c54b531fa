"""Idle keep-alive connections (ssbench.store.httpconn) to one storage
URL, kept for the next request of a store's client."""
from __future__ import absolute_import, division, print_function

from ssbench.compat import urlsplit
from ssbench.errors import StoreError
from ssbench.store.httpconn import HTTPConnection, host_header, ssl_context


class ConnectionPool(object):
    """Idle keep-alive connections to one storage URL (LIFO, bounded).

    Once closed it keeps nothing: a connection in use when it closed is
    closed when its request puts it back.
    """

    def __init__(self, url, size, connect_timeout, network_timeout,
                 ssl_context=None):
        parts = urlsplit(url)
        if parts.scheme not in ('http', 'https') or not parts.hostname:
            raise StoreError('unusable storage URL %r' % (url,))
        self.url = url
        self.scheme = parts.scheme
        self.host = parts.hostname
        self.port = parts.port or (443 if parts.scheme == 'https' else 80)
        self.path = parts.path.rstrip('/')
        # The Host header its connections send (an S3 request signs it).
        self.host_header = host_header(self.host, self.port,
                                       parts.scheme == 'https')
        self.size = max(1, int(size))
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.ssl_context = ssl_context
        self.idle = []
        self.closed = False

    def new(self):
        context = None
        if self.scheme == 'https':
            if self.ssl_context is None:
                self.ssl_context = ssl_context()
            context = self.ssl_context
        return HTTPConnection(self.host, self.port, self.connect_timeout,
                              self.network_timeout, context)

    def get(self):
        return self.idle.pop() if self.idle else self.new()

    def put(self, conn):
        if not self.closed and len(self.idle) < self.size:
            self.idle.append(conn)
        else:
            conn.close()

    def close(self):
        self.closed = True
        while self.idle:
            self.idle.pop().close()

"""Getting a token from tempauth (v1.0): one GET of our own
(ssbench.store.httpconn), bounded: the whole exchange, redirects included,
ends within `timeout` however slowly the server answers, an answer over
MAX_ANSWER bytes is refused as it comes, and the key is sent again after
a redirect only to the same scheme, host and port."""
from __future__ import absolute_import, division, print_function

import socket

from ssbench.compat import monotonic, urlsplit
from ssbench.errors import SwiftAuthError
from ssbench.swift.authrules import (DEFAULT_TIMEOUT, REDIRECTS, Redirected,
                                     cut, redirect_target)
from ssbench.store.httpconn import HTTPConnection, ssl_context


# Redirects of the v1.0 auth GET followed (as the requests library did
# for swiftclient), at most this many, and only to the same scheme, host
# and port: the key goes with every GET.
MAX_REDIRECTS = 5
# Bytes of one tempauth answer, head and body, read at most: a real one
# is a few hundred.
MAX_ANSWER = 1 << 20


def tempauth_token(auth_url, user, key, auth, timeout, clock=monotonic):
    """(storage_url, token, seconds left) from a tempauth (v1.0) GET,
    within `timeout` seconds in all; the seconds are those of the answer's
    X-Auth-Token-Expires, None without one."""
    headers = [('X-Auth-User', user), ('X-Auth-Key', key)]
    timeout = timeout or DEFAULT_TIMEOUT
    deadline = clock() + timeout
    url = auth_url
    for _ in range(MAX_REDIRECTS + 1):
        try:
            status, reason, answer, body = _get(
                url, headers, auth, _Bounds(timeout, deadline, clock))
        except Exception as exc:
            if url == auth_url:
                raise
            raise Redirected(url, exc)
        location = answer.get('location')
        if status not in REDIRECTS or not location:
            break
        url = redirect_target(status, url, location, 'key', '-A',
                              'auth server')
    else:
        raise SwiftAuthError('more than %d redirects' % MAX_REDIRECTS)
    storage_url = answer.get('x-storage-url')
    # A 2xx with a body but no storage URL is a page, not tempauth.
    if not 200 <= status < 300 or (body and not storage_url):
        error = SwiftAuthError('%d %s' % (status, cut(reason)))
        if url == auth_url:
            raise error
        raise Redirected(url, error)
    token = answer.get('x-storage-token', answer.get('x-auth-token'))
    return storage_url, token, seconds_left(answer.get('x-auth-token-expires'))


def seconds_left(value):
    """The seconds of an X-Auth-Token-Expires header, None when there is
    none or it is no count of seconds (the token is then renewed after a
    401, as before the header existed)."""
    try:
        left = float(value)
    except (TypeError, ValueError):
        return None
    # 'nan' and 'inf' parse too.
    return left if 0 <= left < 10 ** 9 else None


def _get(url, headers, auth, bounds):
    """(status, reason, headers, body) of one GET on a new connection."""
    parts = urlsplit(url)
    if parts.scheme not in ('http', 'https') or not parts.hostname:
        raise SwiftAuthError('unusable auth URL %r' % (cut(url),))
    context = None
    if parts.scheme == 'https':
        context = ssl_context(auth.os_cacert, auth.insecure)
    left = bounds.left()
    conn = _BoundedConnection(bounds, parts.hostname, parts.port or (
        443 if context is not None else 80), left, left, context)
    path = parts.path or '/'
    if parts.query:
        path += '?' + parts.query
    try:
        conn.send('GET', path, headers)
        try:
            resp = conn.read_response()
            body = conn.read_body()
        except socket.timeout:
            # The connection's own deadline, set from what was left of
            # the exchange's: the exchange's, said once.
            raise bounds.expired()
    finally:
        conn.close()
    return resp.status, resp.reason, resp.headers, body


class _Bounds(object):
    """The deadline (on `clock`) and the byte budget of one answer."""

    def __init__(self, timeout, deadline, clock):
        self.timeout = timeout
        self.deadline = deadline
        self.clock = clock
        self.received = 0

    def left(self):
        """Seconds left; SwiftAuthError once none are."""
        left = self.deadline - self.clock()
        if left <= 0:
            raise self.expired()
        return left

    def expired(self):
        return SwiftAuthError('no complete answer within %g s'
                              % self.timeout)


class _BoundedConnection(HTTPConnection):
    """An HTTPConnection whose socket stops at `bounds`."""

    def __init__(self, bounds, *args):
        HTTPConnection.__init__(self, *args)
        self.bounds = bounds

    def connect(self):
        HTTPConnection.connect(self)
        self.sock = _BoundedSocket(self.sock, self.bounds)


class _BoundedSocket(object):
    """A socket whose receives end at the deadline of `bounds` (each one
    waits only for what is left of it, so a server trickling a byte at a
    time cannot stretch the exchange) and after MAX_ANSWER bytes (so a
    huge answer is refused as it comes, not held)."""

    def __init__(self, sock, bounds):
        self.sock = sock
        self.bounds = bounds

    def recv_into(self, buf, nbytes=0):
        bounds = self.bounds
        self.sock.settimeout(bounds.left())
        budget = MAX_ANSWER + 1 - bounds.received
        want = min(nbytes or len(buf), budget)
        try:
            got = self.sock.recv_into(buf, want)
        except socket.timeout:
            # It waited for what was left (the clocks may differ by a
            # hair): the deadline it is.
            raise bounds.expired()
        bounds.received += got
        if bounds.received > MAX_ANSWER:
            raise SwiftAuthError('answer over %d bytes: not a tempauth '
                                 'answer' % MAX_ANSWER)
        return got

    def __getattr__(self, name):
        return getattr(self.sock, name)

"""What every auth exchange keeps to, tempauth's and Keystone's alike: the
auth versions, a key or password sent after a redirect only to the same
scheme, host and port, a deadline, and what a server said cut short in
messages."""
from __future__ import absolute_import, division, print_function

from ssbench.compat import urljoin, urlsplit
from ssbench.errors import SwiftAuthError

V1_VERSIONS = ('1', '1.0')
V2_VERSIONS = ('2', '2.0')
V3_VERSIONS = ('3',)

REDIRECTS = (301, 302, 303, 307, 308)
# Seconds the whole exchange may take when no timeout is given.
DEFAULT_TIMEOUT = 20.0
# Characters of a URL or reason phrase from the server kept in a message.
MAX_SHOWN = 200


def cut(text):
    text = '%s' % (text,)
    if len(text) <= MAX_SHOWN:
        return text
    return '%s... (%d characters)' % (text[:MAX_SHOWN], len(text))


class Redirected(Exception):
    """`error` ended the exchange at `url`, where a redirect led."""

    def __init__(self, url, error):
        Exception.__init__(self, url)
        self.url = url
        self.error = error


def origin(url):
    """(scheme, host, port) of an http(s) URL, with the default port."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    try:
        port = parts.port
    except ValueError:
        port = -1
    return (scheme, (parts.hostname or '').lower(),
            port or {'http': 80, 'https': 443}.get(scheme))


def redirect_target(status, url, location, secret, flag, service):
    """The URL a redirect from `url` leads to; SwiftAuthError when that is
    another scheme, host or port: `secret` is not sent there."""
    target = urljoin(url, location)
    if origin(target) != origin(url):
        raise SwiftAuthError(
            '%d redirect to %s, another scheme, host or port: the %s is '
            'not sent there (give that URL with %s if it is the %s)'
            % (status, cut(target), secret, flag, service))
    return target

"""AWS Signature Version 4 (the Authorization header) for S3 requests.

The secret key is needed once a day: derive_key() turns it into the
signing key of one UTC date, region and service, and that key is all that
signing a request takes.  So the master derives it and a worker holds only
a SigningKey, which signs nothing dated another day.

    key = SigningKey('AKID', '20150830', 'us-east-1',
                     derive_key(secret, '20150830', 'us-east-1'))
    extra = key.sign('PUT', '/bucket/obj', (), '127.0.0.1:8080',
                     [('content-length', '12')], '20150830T123600Z')
    # [('x-amz-date', ...), ('x-amz-content-sha256', 'UNSIGNED-PAYLOAD'),
    #  ('Authorization', 'AWS4-HMAC-SHA256 Credential=AKID/...')]

Paths and query names and values are given raw (not percent-encoded).
S3's canonical URI is the path URI-encoded once with '/' kept, and not
normalized (an object key may hold '//' or '.'), so uri_encode(path, True)
is also the path to send; canonical_query(params) is the query to send.
Text is UTF-8 encoded; on Python 2 a byte string is taken as UTF-8.
"""
from __future__ import absolute_import

import hashlib
import hmac
import re
import time

from ssbench.compat import text_type

ALGORITHM = 'AWS4-HMAC-SHA256'
UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD'
EMPTY_PAYLOAD = hashlib.sha256(b'').hexdigest()
SERVICE = 's3'
TERMINATOR = 'aws4_request'

_UNRESERVED = ('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
               '0123456789-._~')


def _encoding_table(safe):
    return [chr(b) if chr(b) in safe else '%%%02X' % b for b in range(256)]


_QUERY_TABLE = _encoding_table(_UNRESERVED)
_PATH_TABLE = _encoding_table(_UNRESERVED + '/')
# Most names need no escaping: those are returned as they are, unscanned.
_PLAIN = re.compile(r'[A-Za-z0-9\-._~]*\Z')
_PLAIN_PATH = re.compile(r'[A-Za-z0-9\-._~/]*\Z')
_DATE = re.compile(r'[0-9]{8}\Z')


class WrongDate(ValueError):
    """A request dated another day than the signing key's."""


def _utf8(value):
    return value.encode('utf-8') if isinstance(value, text_type) else value


def uri_encode(value, keep_slash=False):
    """AWS's UriEncode: every byte of the UTF-8 form but the unreserved
    ones (A-Z a-z 0-9 - . _ ~, and '/' with keep_slash) as %XX."""
    if isinstance(value, str) and \
            (_PLAIN_PATH if keep_slash else _PLAIN).match(value):
        return value
    table = _PATH_TABLE if keep_slash else _QUERY_TABLE
    return ''.join([table[b] for b in bytearray(_utf8(value))])


def canonical_query(params):
    """The canonical query string of raw (name, value) pairs: each encoded,
    sorted by name then value, joined as name=value&...; a pair with no
    value is ('name', '')."""
    return '&'.join(['%s=%s' % pair for pair in sorted(
        [(uri_encode(name), uri_encode(value)) for name, value in params])])


def canonical_headers(headers):
    """(header block, signed header names) of (name, value) pairs: names
    lower-cased, values trimmed with each inner run of white space made
    one space, the values of a repeated name joined with ','."""
    merged = {}
    for name, value in headers:
        name = name.strip().lower()
        value = ' '.join(value.split())
        merged[name] = merged[name] + ',' + value if name in merged \
            else value
    names = sorted(merged)
    block = ''.join(['%s:%s\n' % (key, merged[key]) for key in names])
    return block, ';'.join(names)


def canonical_request(method, path, params, headers, payload_hash):
    """(canonical request, signed header names) of a request; headers
    are every header to sign, Host included."""
    block, signed = canonical_headers(headers)
    return '\n'.join((method, uri_encode(path, True),
                      canonical_query(params), block, signed,
                      payload_hash)), signed


def string_to_sign(amz_date, scope, creq):
    """What the signing key signs, for a canonical request."""
    return '\n'.join((ALGORITHM, amz_date, scope,
                      hashlib.sha256(_utf8(creq)).hexdigest()))


def _hmac(key, msg):
    return hmac.new(key, _utf8(msg), hashlib.sha256).digest()


def derive_key(secret, date, region, service=SERVICE):
    """The signing key (32 bytes) of a secret key for one UTC date
    (YYYYMMDD), region and service."""
    key = _hmac(_utf8('AWS4') + _utf8(secret), date)
    for part in (region, service, TERMINATOR):
        key = _hmac(key, part)
    return key


def payload_hash(body):
    """x-amz-content-sha256 of a signed payload (bytes)."""
    return hashlib.sha256(body).hexdigest()


def amz_date(epoch):
    """The X-Amz-Date (YYYYMMDDTHHMMSSZ, UTC) of a time in epoch seconds."""
    return time.strftime('%Y%m%dT%H%M%SZ', time.gmtime(epoch))


class SigningKey(object):
    """A derived signing key with its scope: what signs requests of one
    date, region and service, without the secret it came from."""

    __slots__ = ('access_key', 'date', 'region', 'service', 'key', 'scope',
                 '_credential')

    def __init__(self, access_key, date, region, key, service=SERVICE):
        if not _DATE.match(date):
            raise ValueError('a signing date is YYYYMMDD, not %r' % (date,))
        if not isinstance(key, bytes) or len(key) != 32:
            raise ValueError('a signing key is 32 bytes')
        self.access_key = access_key
        self.date = date
        self.region = region
        self.service = service
        self.key = key
        self.scope = '/'.join((date, region, service, TERMINATOR))
        self._credential = '%s Credential=%s/%s, SignedHeaders=' % (
            ALGORITHM, access_key, self.scope)

    def __repr__(self):
        # Never the key: a repr may end up in a log line.
        return 'SigningKey(%r, %r, %r, service=%r)' % (
            self.access_key, self.date, self.region, self.service)

    def signature(self, amz_date, creq):
        """The hex signature of a canonical request made at amz_date."""
        if amz_date[:8] != self.date:
            raise WrongDate('a request of %s cannot be signed with the key '
                            'of %s' % (amz_date[:8], self.date))
        return hmac.new(self.key, _utf8(string_to_sign(amz_date, self.scope,
                                                       creq)),
                        hashlib.sha256).hexdigest()

    def authorization(self, method, path, params, headers, amz_date,
                      payload_hash):
        """The Authorization header's value for a request whose headers to
        sign (Host and X-Amz-Date included) are `headers`."""
        creq, signed = canonical_request(method, path, params, headers,
                                         payload_hash)
        return '%s%s, Signature=%s' % (self._credential, signed,
                                       self.signature(amz_date, creq))

    def sign(self, method, path, params, host, headers, amz_date,
             payload_hash=UNSIGNED_PAYLOAD):
        """The headers to add to an S3 request: X-Amz-Date,
        X-Amz-Content-SHA256 and Authorization, which signs them, Host and
        every one of `headers`."""
        extra = [('x-amz-date', amz_date),
                 ('x-amz-content-sha256', payload_hash)]
        signed = [('host', host)]
        signed.extend(headers)
        signed.extend(extra)
        extra.append(('Authorization', self.authorization(
            method, path, params, signed, amz_date, payload_hash)))
        return extra

"""The signing keys that go from the master to its workers.

A SigV4 signing key signs only requests dated its UTC day, and S3 takes a
request whose X-Amz-Date is up to 15 minutes off its own clock.  So the
master (a KeyMaker, which alone holds the secret) hands out the key of
every date that a request made within SKEW seconds of now may carry: one
key most of the day, two from 23:45 to 00:15 UTC.  The set changes at
those two instants, which is when renew_due() says to send it again: the
next day's key goes out 15 minutes before it is needed.  A worker's
Keyring signs each request with the key of that request's date.

On the wire a key set is a dict of text (wire_form(): the keys in hex,
as the wire packs bytes as text); the secret is never in it.
"""
from __future__ import absolute_import

import binascii
import time

from ssbench.s3 import sigv4

# S3 refuses a request dated more than this many seconds from its clock.
SKEW = 15 * 60


def key_dates(now, margin=SKEW):
    """The UTC dates (YYYYMMDD) of the times within `margin` seconds of
    `now` (epoch seconds), oldest first."""
    return sorted(set(sigv4.amz_date(t)[:8]
                      for t in (now - margin, now, now + margin)))


class KeyMaker(object):
    """The master's side: derives the keys from the secret."""

    def __init__(self, access_key, secret, region, service=sigv4.SERVICE,
                 clock=time.time, margin=SKEW):
        self.access_key = access_key
        self._secret = secret
        self.region = region
        self.service = service
        self.clock = clock
        self.margin = margin
        self._derived = {}
        self.dates = []

    def __repr__(self):
        # Never the secret: a repr may end up in a log line.
        return 'KeyMaker(%r, region=%r, service=%r)' % (
            self.access_key, self.region, self.service)

    def renew_due(self):
        """Whether the dates of the keys last handed out (by wire_form())
        are not those needed now."""
        return key_dates(self.clock(), self.margin) != self.dates

    def wire_form(self):
        """The keys needed now, as the dict that goes to the workers."""
        self.dates = key_dates(self.clock(), self.margin)
        derived = dict((date, self._derived.get(date) or sigv4.derive_key(
            self._secret, date, self.region, self.service))
            for date in self.dates)
        self._derived = derived
        return {'access_key': self.access_key, 'region': self.region,
                'service': self.service,
                'keys': dict((date, binascii.hexlify(key).decode('ascii'))
                             for date, key in derived.items())}


class Keyring(object):
    """The worker's side: signs with the key of each request's date."""

    def __init__(self, keys):
        """`keys`: SigningKeys of one access key, region and service."""
        self._keys = dict((key.date, key) for key in keys)

    @classmethod
    def from_wire(cls, form):
        """The Keyring of a KeyMaker.wire_form() dict; ValueError when it
        is not one."""
        # str(): the wire gives text back as unicode on Python 2, where
        # the headers signed are native strings.
        try:
            keys = [sigv4.SigningKey(str(form['access_key']), str(date),
                                     str(form['region']),
                                     binascii.unhexlify(key),
                                     str(form['service']))
                    for date, key in form['keys'].items()]
        except (KeyError, TypeError, AttributeError, UnicodeError,
                binascii.Error) as exc:
            raise ValueError('not a set of signing keys: %s: %s' % (
                type(exc).__name__, exc))
        if not keys:
            raise ValueError('not a set of signing keys: no key')
        return cls(keys)

    @property
    def dates(self):
        """The dates of the keys held, oldest first."""
        return sorted(self._keys)

    def sign(self, method, path, params, host, headers, amz_date,
             payload_hash=sigv4.UNSIGNED_PAYLOAD):
        """SigningKey.sign() with the key of amz_date's day; WrongDate
        when the ring has none."""
        key = self._keys.get(amz_date[:8])
        if key is None:
            raise sigv4.WrongDate(
                'no signing key for %s (the keys held are of %s)' % (
                    amz_date[:8], ', '.join(self.dates)))
        return key.sign(method, path, params, host, headers, amz_date,
                        payload_hash)

"""When a Swift token expires, on this host's monotonic clock, and when
to renew it.

An auth server says how long its token has left: tempauth and swauth in
X-Auth-Token-Expires (whole seconds, rounded down), Keystone as its
expiry minus its issue.  The server counted at some instant between our
request going out and its answer coming back, so the token expires by
received + left + 1 on our clock (the 1 for the rounding down), however
the server's own clock is set; and not before sent + left - EARLY:
tempauth keeps a token in memcache for the whole seconds of its life,
rounded down, on memcached's clock, which ticks once a second, so the
token is gone up to 2 s before the time it says (seen on the local Swift
with tokens of 3 s: they lasted 2).
"""
from __future__ import absolute_import, division, print_function

# A token is renewed a tenth of its life before it may expire, and at
# most a minute before: a minute holds a renewal that times out
# (--network-timeout, 20 s by default) and the one tried RETRY_INTERVAL
# after it, and the master's copy to its workers; a tenth keeps a short
# token (a test proxy's 3 s) in use for most of its life.
MAX_MARGIN = 60.0
EARLY = 2.0
MARGIN_SHARE = 0.1
# No request goes out with a token this close to its earliest expiry: it
# must reach the server before the token expires.
GUARD = 0.25
# While the server hands out the token it gave (tempauth does, until it
# expires), it is asked again this often once that token may have
# expired.
POLL_INTERVAL = 0.1
# Requests wait for a new token at most this long after the old one must
# have expired (the auth server may be down): then they go out with the
# old one, and a 401 renews it.
GIVE_UP = 2.0


def renewal_margin(left):
    """Seconds before its earliest expiry to renew a token that had
    `left` seconds to live when it came."""
    return min(MAX_MARGIN, left * MARGIN_SHARE)


class Expiry(object):
    """The earliest and the latest instant (monotonic seconds) at which a
    token expires."""

    __slots__ = ('earliest', 'latest')

    def __init__(self, earliest, latest):
        self.earliest = earliest
        self.latest = latest

    @classmethod
    def of_answer(cls, sent, received, left):
        """The expiry of a token said to have `left` seconds by an answer
        to a request sent at `sent` and answered at `received`."""
        return cls(sent + left - EARLY, received + left + 1.0)

    def narrowed(self, other):
        """The expiry both readings allow; None when they disagree (the
        server moved the expiry, or its clock was set meanwhile): the
        token's expiry is then not known."""
        earliest = max(self.earliest, other.earliest)
        latest = min(self.latest, other.latest)
        if earliest > latest:
            return None
        return Expiry(earliest, latest)

    def __repr__(self):
        return 'Expiry(%r, %r)' % (self.earliest, self.latest)

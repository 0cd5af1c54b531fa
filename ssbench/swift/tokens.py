"""Handing Swift tokens from the master to its workers: the worker's side
(HandedTokens); the master's is ssbench.master.workerconfig.

The master authenticates (ssbench.swift.auth.Credentials).  A worker
started without credentials of its own gets only what its requests need:
the storage URL(s) and a token, in a CONFIGURE job, never a key or
password.  Every token has a generation (1, then one more per renewal).

A worker's heartbeats carry `token_generation`, the generation it holds,
and `token_rejected: true` once Swift answered 401 to it; the first such
heartbeat goes out at once.  The master then renews the token, once per
generation however many workers ask, and sends the new one.  It also
renews a token ahead of its expiry when the auth server said when that is
(ssbench.swift.auth.Credentials), and then each CONFIGURE says how many
seconds the token has until it may expire (`token_expires_in`): from
HANDED_GUARD before that, a worker's requests wait for the next token
instead of meeting a 401.

The work socket is PUSH: a message goes to one worker, round-robin, and the
master cannot choose which.  So the master sends one copy per live worker
(consecutive sends go to distinct workers), and again, at most once per
BROADCAST_INTERVAL, while some heartbeat shows a worker unconfigured or
holding an older generation.
"""
from __future__ import absolute_import, division, print_function

import logging

import gevent.event

from ssbench.compat import monotonic
from ssbench.errors import SwiftAuthError
from ssbench.swift.auth import Grant
from ssbench.swift.expiry import GUARD

log = logging.getLogger(__name__)

# A worker counts a handed token's life from when its CONFIGURE is read,
# which may be late: the message waits in the master's and the worker's
# queues, longest on a busy host (a 401 met that way in an e2e run of two
# suites at once, load average 10-20).  So its requests wait for the next
# token this much earlier than the master's own would.
HANDED_GUARD = GUARD + 0.75


class HandedTokens(object):
    """A worker's token source when its master configured it.

    update(job) takes the token of a CONFIGURE job.  renew(stale) after a
    401 calls `ask()` once per rejected generation (the worker then sends
    a heartbeat that says so) and waits up to `wait` seconds for a newer
    token; callers that got the same 401 wait for the same answer.
    current() waits the same way, without asking (the master knows), from
    HANDED_GUARD before the token may expire.
    """

    def __init__(self, ask, wait, clock=monotonic):
        self.ask = ask
        self.wait = wait
        self.clock = clock
        self.grant = None
        self.renewable = False
        self.rejected = None        # the generation Swift rejected
        self.expires_at = None      # when the token may expire, our clock
        self._changed = gevent.event.Event()

    def update(self, job):
        """Take the token of a CONFIGURE job; True if it is a new one."""
        urls, token = job.get('storage_urls'), job.get('token')
        if not urls or not token:
            return False
        left = job.get('token_expires_in')
        self.expires_at = None if left is None else self.clock() + left
        generation = job.get('token_generation')
        grant = self.grant
        new = grant is None or grant.generation != generation or \
            grant.token != token
        if new:
            self.grant = Grant(urls, token, generation)
            self.renewable = bool(job.get('renewable'))
            self.rejected = None
        # Waiters look again: a new token, or the old one good for longer.
        changed, self._changed = self._changed, gevent.event.Event()
        changed.set()
        return new

    def current(self):
        """The token to use now; once it may have expired, the next one,
        waited for up to `wait` seconds (then the old one: a 401 asks)."""
        grant = self.grant
        if grant is None:
            raise SwiftAuthError('no Swift token from the master yet')
        if self.expires_at is None or not self._expiring():
            return grant
        deadline = self.clock() + self.wait
        while self._expiring():
            left = deadline - self.clock()
            if left <= 0 or not self._changed.wait(left):
                log.warning('no new Swift token from the master as the old '
                            'one expires: going on with it')
                self.expires_at = None
                break
        return self.grant

    def _expiring(self):
        return self.renewable and self.expires_at is not None and \
            self.clock() >= self.expires_at - HANDED_GUARD

    def renew(self, stale, reason=None):
        """A Grant newer than `stale`, from the master."""
        grant = self.grant
        if grant is not stale:
            return grant
        if not self.renewable:
            raise SwiftAuthError('the token was rejected (401) and the '
                                 'master cannot renew it (-S with -T)')
        changed = self._changed
        if self.rejected != stale.generation:
            self.rejected = stale.generation
            log.info('Swift token (generation %s) rejected (401): asking '
                     'the master for a new one', stale.generation)
            self.ask()
        if not changed.wait(self.wait):
            raise SwiftAuthError('the token was rejected (401) and the '
                                 'master sent no new one within %g s'
                                 % self.wait)
        return self.grant

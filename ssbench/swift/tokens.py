"""Handing Swift tokens from the master to its workers.

The master authenticates (ssbench.swift.auth.Credentials).  A worker
started without credentials of its own gets only what its requests need:
the storage URL(s) and a token, in a CONFIGURE job, never a key or
password.  Every token has a generation (1, then one more per renewal).

A worker's heartbeats carry `token_generation`, the generation it holds,
and `token_rejected: true` once Swift answered 401 to it; the first such
heartbeat goes out at once.  The master then renews the token, once per
generation however many workers ask, and sends the new one.  It also
renews a token whose lifetime Keystone gave before that lifetime ends.

The work socket is PUSH: a message goes to one worker, round-robin, and the
master cannot choose which.  So the master sends one copy per live worker
(consecutive sends go to distinct workers), and again, at most once per
BROADCAST_INTERVAL, while some heartbeat shows a worker unconfigured or
holding an older generation.
"""
from __future__ import absolute_import, division, print_function

import logging

import gevent.event

from ssbench.wire import protocol
from ssbench.compat import monotonic
from ssbench.errors import SwiftAuthError
from ssbench.swift.auth import RETRY_INTERVAL, Grant

log = logging.getLogger(__name__)

# Seconds between two rounds of copies asked for by stale heartbeats
# (workers beat every second).
BROADCAST_INTERVAL = 1.0


class WorkerConfig(object):
    """The master's side: what its workers get, kept fresh.

    `credentials` (Credentials, None for a run without Swift) is shared
    with the master's own SwiftClient, so a renewal by either serves both.
    wanted() and renew_if_due() return True when the master should send
    broadcast() to every live worker now.
    """

    def __init__(self, credentials=None, connect_timeout=None,
                 network_timeout=None, block_size=None, clock=monotonic):
        self.credentials = credentials
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.block_size = block_size
        self.clock = clock
        self._last_broadcast = None
        self._retry_at = None

    def broadcast(self):
        """The CONFIGURE job, with the current token, that the master is
        about to send to every live worker."""
        self._last_broadcast = self.clock()
        grant = renewable = None
        insecure, cacert = False, None
        credentials = self.credentials
        if credentials is not None:
            grant = credentials.current()
            renewable = credentials.renewable
            insecure = credentials.auth.insecure
            cacert = credentials.auth.os_cacert
        return protocol.configure_job(
            self.connect_timeout, self.network_timeout, self.block_size,
            grant, renewable, insecure, cacert)

    def _generation(self):
        grant = self.credentials.grant if self.credentials else None
        return grant.generation if grant is not None else None

    def wanted(self, heartbeat):
        """Whether a worker's heartbeat asks for the configuration: it is
        unconfigured, holds an older token, or its token was rejected (the
        token is then renewed, unless that was done already)."""
        held = heartbeat.get('token_generation')
        if heartbeat.get('configured', True) and (
                held is None or held == self._generation()):
            # Up to date, or using credentials of its own (no generation).
            if held is not None and heartbeat.get('token_rejected'):
                return self._renew('a worker\'s Swift token was rejected '
                                   '(401)')
            return False
        return self._broadcast_due()

    def renew_if_due(self):
        """Renew a token close to its expiry; True when renewed."""
        if self.credentials is None or not self.credentials.renew_due():
            return False
        log.info('new Swift token (generation %d) sent to the workers',
                 self.credentials.grant.generation)
        return True

    def _broadcast_due(self):
        last = self._last_broadcast
        return last is None or self.clock() - last >= BROADCAST_INTERVAL

    def _renew(self, reason):
        now = self.clock()
        if self._retry_at is not None and now < self._retry_at:
            return False
        credentials = self.credentials
        try:
            credentials.renew(credentials.grant, reason)
        except SwiftAuthError as exc:
            self._retry_at = now + RETRY_INTERVAL
            log.warning('could not renew the Swift token (trying again in '
                        '%.0f s): %s', RETRY_INTERVAL, exc)
            return False
        self._retry_at = None
        log.info('new Swift token (generation %d) sent to the workers',
                 credentials.grant.generation)
        return True


class HandedTokens(object):
    """A worker's token source when its master configured it.

    update(job) takes the token of a CONFIGURE job.  renew(stale) after a
    401 calls `ask()` once per rejected generation (the worker then sends
    a heartbeat that says so) and waits up to `wait` seconds for a newer
    token; callers that got the same 401 wait for the same answer.
    """

    def __init__(self, ask, wait):
        self.ask = ask
        self.wait = wait
        self.grant = None
        self.renewable = False
        self.rejected = None        # the generation Swift rejected
        self._changed = gevent.event.Event()

    def update(self, job):
        """Take the token of a CONFIGURE job; True if it is a new one."""
        urls, token = job.get('storage_urls'), job.get('token')
        if not urls or not token:
            return False
        generation = job.get('token_generation')
        grant = self.grant
        if grant is not None and grant.generation == generation and \
                grant.token == token:
            return False
        self.grant = Grant(urls, token, generation)
        self.renewable = bool(job.get('renewable'))
        self.rejected = None
        changed, self._changed = self._changed, gevent.event.Event()
        changed.set()
        return True

    def current(self):
        if self.grant is None:
            raise SwiftAuthError('no Swift token from the master yet')
        return self.grant

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

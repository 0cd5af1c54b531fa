"""What the master hands its workers in a CONFIGURE job, the Swift token
kept fresh: the master's side of ssbench.swift.tokens (which says how
tokens travel and when they are renewed), or over S3 the signing keys of
ssbench.s3.keyring (renewed before the UTC date changes)."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.compat import monotonic
from ssbench.errors import SwiftAuthError
from ssbench.measure.record import MAX_SECONDS
from ssbench.swift.auth import RETRY_INTERVAL
from ssbench.wire import protocol

log = logging.getLogger(__name__)

# Seconds between two rounds of copies asked for by stale heartbeats
# (workers beat every second).
BROADCAST_INTERVAL = 1.0


def _no_event(event, worker_id=None, text=None):
    """The event sink of a WorkerConfig given none."""


class WorkerConfig(object):
    """The master's side: what its workers get, kept fresh.

    `credentials` (Credentials, None for a run without Swift) is shared
    with the master's own SwiftClient, so a renewal by either serves both.
    `retry_backoff` ((base, cap) seconds, --retry-backoff) goes to the
    workers' clients.
    wanted() and renew_if_due() return True when the master should send
    broadcast() to every live worker now.
    `events` (a ssbench.master.runevents.RunEvents) hears of each token
    renewed.
    `s3` ((settings, keys), None for the Swift API) makes the workers
    speak S3: `settings` the dict protocol.configure_job() sends of the
    endpoint, and `keys` the ssbench.s3.keyring.KeyMaker whose
    wire_form() goes with it (never the secret).
    """

    events = staticmethod(_no_event)

    def __init__(self, credentials=None, connect_timeout=None,
                 network_timeout=None, block_size=None, monotonic=monotonic,
                 retry_backoff=None, s3=None):
        self.credentials = credentials
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.block_size = block_size
        self.retry_backoff = retry_backoff
        self.s3 = s3
        self.monotonic = monotonic
        self._last_broadcast = None
        self._retry_at = None

    def broadcast(self):
        """The CONFIGURE job, with the current token, that the master is
        about to send to every live worker."""
        self._last_broadcast = self.monotonic()
        grant = renewable = expires_in = None
        insecure, cacert = False, None
        credentials = self.credentials
        if credentials is not None:
            # Never waits: the dispatch loop calls this.
            grant = credentials.current(wait=False)
            expires_in = credentials.expires_in()
            if expires_in is not None and expires_in >= MAX_SECONDS:
                # Decades away (a Keystone that says 2099): no run sees
                # it, and the workers' check refuses a span that long.
                expires_in = None
            renewable = credentials.renewable
            insecure = credentials.auth.insecure
            cacert = credentials.auth.os_cacert
        s3 = None
        if self.s3 is not None:
            settings, keys = self.s3
            s3 = dict(settings, **keys.wire_form())
        return protocol.configure_job(
            self.connect_timeout, self.network_timeout, self.block_size,
            grant, renewable, insecure, cacert, self.retry_backoff, s3,
            expires_in)

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
        """Renew a token close to its expiry, or the S3 signing keys as
        the UTC date is about to change; True when the workers should
        hear of it: renewed, or the token's expiry known better."""
        if self.s3 is not None:
            keys = self.s3[1]
            if not keys.renew_due():
                return False
            # The keys are derived as broadcast() sends them.
            log.info('new S3 signing keys sent to the workers')
            self.events('token_renewed', None, 'S3 signing keys, the UTC '
                        'date changing')
            return True
        credentials = self.credentials
        if credentials is None:
            return False
        expiry = credentials.expiry
        if not credentials.renew_due():
            # The auth server gave the same token again (tempauth, until
            # it expires): the workers learn when it expires more closely.
            return credentials.expiry is not expiry
        log.info('new Swift token (generation %d) sent to the workers',
                 credentials.grant.generation)
        self.events('token_renewed', None, 'generation %d, near its expiry'
                    % credentials.grant.generation)
        return True

    def _broadcast_due(self):
        last = self._last_broadcast
        return last is None or self.monotonic() - last >= BROADCAST_INTERVAL

    def _renew(self, reason):
        now = self.monotonic()
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
        self.events('token_renewed', None, 'generation %d: %s' % (
            credentials.grant.generation, reason))
        return True

"""The work connection of an in-memory master transport (a test fake).

A fake master transport answers jobs with scripted records and puts them
in its `inbox`, as the results port would; RoutedControls takes the
heartbeats out of those messages and hands them to the master through
controls(), each on the connection of the worker it names (routing id
b'peer-<id>'), as the work connection would.  The workers of `admit`
heartbeat once before anything else, so that the master admits them.
"""
from __future__ import absolute_import, division, print_function

from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT


def peer_of(worker_id):
    """The routing id of the fake connection of `worker_id`."""
    return ('peer-%s' % (worker_id,)).encode('ascii')


def admitting(worker_id, concurrency=None, **more):
    """A heartbeat that gets `worker_id` admitted."""
    record = protocol.heartbeat(worker_id, [])
    record.update(protocol.identity(concurrency or 1000))
    record.update(more)
    return record


class RoutedControls(object):
    """send_to() and controls() of MasterSockets for a fake whose send()
    and inbox model one connection to every worker."""

    admit = (1,)
    _admitted = False

    def send_to(self, peer, data, timeout=0):
        self.peers = getattr(self, 'peers', [])
        self.peers.append(peer)
        sent = self.send(data, timeout)
        self.route()
        return sent

    def controls(self):
        taken = []
        if not self._admitted:
            self._admitted = True
            taken.extend((peer_of(w), protocol.pack([admitting(w)]))
                         for w in self.admit)
        self.route()
        taken.extend(getattr(self, 'heard', ()))
        self.heard = []
        return taken

    def route(self):
        """Move the heartbeats of the inbox to the work connection."""
        self.heard = getattr(self, 'heard', [])
        taken = self.heard
        kept = []
        for data in self.inbox:
            try:
                records = protocol.unpack(data)
            except Exception:  # garbage the test sends the results port
                records = None
            if not isinstance(records, list):
                kept.append(data)
                continue
            beats = [r for r in records if isinstance(r, dict) and
                     r.get('type') == HEARTBEAT]
            rest = [r for r in records if not (
                isinstance(r, dict) and r.get('type') == HEARTBEAT)]
            taken.extend((peer_of(r.get('worker_id')), protocol.pack([r]))
                         for r in beats)
            if rest:
                kept.append(data if not beats else protocol.pack(rest))
        self.inbox.clear()
        self.inbox.extend(kept)

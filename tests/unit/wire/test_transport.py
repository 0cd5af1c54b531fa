"""ssbench.wire.transport without sockets: a name that does not resolve,
and the largest heartbeat against the master's largest frame."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.errors import TransportError
from ssbench.wire import protocol
from ssbench.wire.transport import MasterSockets, WorkerSockets
from ssbench.wire.wirelimits import LARGEST_HEARTBEAT

pytestmark = pytest.mark.timeout(30)


def test_bad_host():
    with pytest.raises(TransportError) as info:
        MasterSockets('no-such-host.invalid', 0, 0, green=False)
    assert 'no-such-host.invalid' in str(info.value)
    with pytest.raises(TransportError):
        WorkerSockets('no-such-host.invalid', 1, 2, green=False)


def test_the_longest_heartbeat_fits_the_master_s_largest_frame():
    from ssbench.load.scenario import MAX_USER_COUNT
    # Every job of the largest run held, twice over (after a stall), by
    # a worker that says the most of itself.
    beat = protocol.heartbeat(protocol.INT64 - 1, [protocol.INT64 - 1] * (
        2 * MAX_USER_COUNT), True, protocol.INT64 - 1, True)
    beat.update(protocol.identity(MAX_USER_COUNT), host='h' * 255,
                version='v' * 64, pid=protocol.INT64 - 1)
    beat.update(dict.fromkeys(protocol.HEALTH_KEYS + protocol.HOST_KEYS,
                              1e9 - 1), clock_probe=[1e300, 1e9 - 1])
    assert len(protocol.pack([beat])) <= LARGEST_HEARTBEAT

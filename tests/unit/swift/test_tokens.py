"""ssbench.swift.tokens: the master hands out tokens, a worker asks for a new
one after a 401 (real SwiftClient against the fake Swift)."""
from __future__ import absolute_import, division, print_function

import gevent
import pytest

from ssbench.wire import protocol
from ssbench.errors import SwiftAuthError
from ssbench.wire.protocol import configure_job
from ssbench.swift.auth import Grant
from ssbench.swift.tokens import HANDED_GUARD, HandedTokens
from ssbench.wire.messagecheck import check_from_master, check_from_worker
from tests.clocks import FakeClock
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(30)


def grant_job(generation, token='tok', urls=('http://s/v1/AUTH_a',),
              renewable=True, expires_in=None):
    return configure_job(grant=Grant(urls, token, generation),
                         renewable=renewable, token_expires_in=expires_in)


# -- what goes on the wire -----------------------------------------------

def received(record):
    """`record` as the peer decodes it."""
    return protocol.unpack(protocol.pack(record))


def test_configure_and_heartbeat_token_keys_are_checked():
    good = grant_job(3)
    assert check_from_master(received(good)) is None
    assert check_from_master(received(grant_job(3, expires_in=-0.5))) \
        is None
    for key, value in (('storage_urls', []), ('storage_urls', [7]),
                       ('token', 5), ('token_generation', 0),
                       ('token_expires_in', 'soon'),
                       ('token_expires_in', 10 ** 12),
                       ('token_generation', 'x'), ('renewable', 'yes')):
        bad = dict(good)
        bad[key] = value
        assert check_from_master(received(bad))[0] == 'bad ' + key
    beat = protocol.heartbeat(1, [], True, 2, True)
    assert (beat['token_generation'], beat['token_rejected']) == (2, True)
    assert check_from_worker(received(beat)) is None
    assert 'token_rejected' not in protocol.heartbeat(1, [], True, 2)
    assert 'token_generation' not in protocol.heartbeat(1, [], True)
    beat['token_generation'] = -1
    assert check_from_worker(received(beat))[0] == \
        'bad token_generation'


# -- HandedTokens --------------------------------------------------------

def test_handed_tokens_ask_once_and_all_waiters_get_the_answer():
    asked = []
    handed = HandedTokens(lambda: asked.append(1), wait=5)
    assert handed.update(grant_job(1, 'old'))
    assert not handed.update(grant_job(1, 'old'))     # the same again
    stale = handed.current()
    entered = []

    def renew():
        entered.append(gevent.getcurrent())
        return handed.renew(stale)
    waiters = [gevent.spawn(renew) for _ in range(5)]
    # Seen from here, a waiter that entered renew() waits for the answer.
    wait_for(lambda: len(entered) == 5, 10,
             'len(entered) == 5', sleep=gevent.sleep)
    assert len(asked) == 1 and handed.rejected == 1
    assert handed.update(grant_job(2, 'new'))
    gevent.joinall(waiters, timeout=5)
    assert [w.value.token for w in waiters] == ['new'] * 5
    assert handed.rejected is None
    # A renewal asked for an old grant returns the current one at once.
    assert handed.renew(stale).token == 'new' and len(asked) == 1


def test_handed_tokens_not_renewable_or_no_answer():
    handed = HandedTokens(lambda: None, wait=0.05)
    with pytest.raises(SwiftAuthError):
        handed.current()
    handed.update(grant_job(1, renewable=False))
    with pytest.raises(SwiftAuthError) as info:
        handed.renew(handed.current())
    assert '-S with -T' in str(info.value)
    handed.update(grant_job(2))
    with pytest.raises(SwiftAuthError) as info:
        handed.renew(handed.current())
    assert 'no new one within 0.05 s' in str(info.value)


def test_handed_tokens_wait_for_the_next_as_the_old_one_expires():
    clock = FakeClock()
    asked = []
    handed = HandedTokens(lambda: asked.append(1), wait=5, clock=clock)
    handed.update(grant_job(1, 'old', expires_in=3.0))
    assert handed.current().token == 'old'
    clock.advance(3.0 - HANDED_GUARD - 0.05)
    assert handed.current().token == 'old'
    clock.advance(0.1)              # HANDED_GUARD before it may expire
    users = [gevent.spawn(handed.current) for _ in range(5)]
    gevent.sleep(0.05)
    assert not any(u.ready() for u in users)
    # The master still holds the token (tempauth gave it again) and says
    # it is good for longer: they go on with it.
    handed.update(grant_job(1, 'old', expires_in=HANDED_GUARD + 0.15))
    gevent.joinall(users, timeout=5)
    assert [u.value.token for u in users] == ['old'] * 5
    clock.advance(0.35)
    users = [gevent.spawn(handed.current) for _ in range(5)]
    gevent.sleep(0.05)
    assert not any(u.ready() for u in users)
    assert handed.update(grant_job(2, 'new', expires_in=3.0))
    gevent.joinall(users, timeout=5)
    assert [u.value.token for u in users] == ['new'] * 5
    assert asked == []                      # the master knew


def test_handed_tokens_go_on_with_the_old_one_without_word():
    clock = FakeClock()
    handed = HandedTokens(lambda: None, wait=0.05, clock=clock)
    handed.update(grant_job(1, 'old', expires_in=0.0))
    assert handed.current().token == 'old'      # after 0.05 s
    assert handed.expires_at is None            # and no more waits
    # Without an expiry from the master (no header), nothing waits.
    handed.update(grant_job(2, 'new'))
    clock.advance(10 ** 6)
    assert handed.current().token == 'new'


# -- a worker whose token is rejected ----------------------------------------

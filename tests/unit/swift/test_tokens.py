"""ssbench.swift.tokens: the master hands out tokens, a worker asks for a new
one after a 401 (real SwiftClient against the fake Swift)."""
from __future__ import absolute_import, division, print_function

import gevent
import pytest

from ssbench.wire import protocol
from ssbench.errors import SwiftAuthError
from ssbench.wire.protocol import HEARTBEAT, SUICIDE, configure_job
from ssbench.swift.client import SwiftClient
from ssbench.swift.auth import Grant
from ssbench.swift.tokens import HANDED_GUARD, HandedTokens
from ssbench.wire.messagecheck import check_from_master, check_from_worker
from ssbench.worker.mainloop import Worker
from tests.clocks import FakeClock
from tests.fakes import FakeSwift, FakeTransport
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

def put_job(job_id):
    return {'type': 'upload_object', 'size_str': 'tiny', 'container': 'c',
            'name': 'o%d' % job_id, 'size': 10, 'job_id': job_id}


def records(transport):
    return [r for data in transport.sent for r in protocol.unpack(data)]


def test_concurrent_401s_make_one_token_request():
    swift = FakeSwift()
    transport = FakeTransport()
    worker = Worker(1, transport, concurrency=8, auth=None,
                    swift_factory=SwiftClient, heartbeat_interval=60)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        swift.containers['c'] = {}
        first = swift.issue_token()
        transport.inbox.append(protocol.pack([grant_job(
            1, first, [swift.storage_url])]))
        transport.inbox.append(protocol.pack([put_job(1)]))
        wait_for(lambda: len(results_of(transport)) == 1, 10,
                 'len(results_of(transport)) == 1', sleep=gevent.sleep)
        swift.valid_tokens.clear()
        transport.inbox.append(protocol.pack(
            [put_job(i) for i in range(2, 10)]))
        wait_for(lambda: rejections(transport), 10,
                 'rejections(transport)', sleep=gevent.sleep)

        def puts():
            return len([r for r in swift.requests if r['method'] == 'PUT'])
        # Every job has met its 401: they wait for one new token.
        wait_for(lambda: puts() >= 1 + 8, 10,
                 'puts() >= 1 + 8', sleep=gevent.sleep)
        assert puts() == 1 + 8
        assert len(rejections(transport)) == 1
        assert rejections(transport)[0]['token_generation'] == 1
        second = swift.issue_token()
        transport.inbox.append(protocol.pack([grant_job(
            2, second, [swift.storage_url])]))
        wait_for(lambda: len(results_of(transport)) == 9, 10,
                 'len(results_of(transport)) == 9', sleep=gevent.sleep)
        results = results_of(transport)
        assert [r for r in results if 'exception' in r] == []
        assert sorted(r['retries'] for r in results) == [0] + [1] * 8
        assert len(rejections(transport)) == 1
        # Later heartbeats say which token the worker holds.
        worker._heartbeat()
        last = records(transport)[-1]
        assert last['token_generation'] == 2
        assert 'token_rejected' not in last
    finally:
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)
        swift.stop()


def rejections(transport):
    return [r for r in records(transport)
            if r['type'] == HEARTBEAT and r.get('token_rejected')]


def results_of(transport):
    return [r for r in records(transport) if r['type'] != HEARTBEAT]


@pytest.mark.parametrize('renewable', [False, True])
def test_401_without_a_new_token_is_a_401_result(renewable):
    swift = FakeSwift()
    transport = FakeTransport()
    worker = Worker(1, transport, concurrency=2, auth=None,
                    swift_factory=SwiftClient, heartbeat_interval=60,
                    configure_wait=0.1)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        swift.containers['c'] = {}
        transport.inbox.append(protocol.pack([
            grant_job(1, 'not-valid', [swift.storage_url], renewable),
            put_job(1)]))
        wait_for(lambda: len(results_of(transport)) == 1, 10,
                 'len(results_of(transport)) == 1', sleep=gevent.sleep)
        result = results_of(transport)[0]
        assert result['status'] == 401 and result['retries'] == 0
        assert len(rejections(transport)) == (1 if renewable else 0)
    finally:
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)
        swift.stop()

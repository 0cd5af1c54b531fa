"""ssbench.swift.tokens: the master hands out tokens, a worker asks for a new
one after a 401 (real SwiftClient against the fake Swift)."""
from __future__ import absolute_import, division, print_function

import gevent
import pytest

from ssbench.wire import protocol
from ssbench.wire.protocol import HEARTBEAT, SUICIDE
from ssbench.swift.client import SwiftClient
from ssbench.worker.mainloop import Worker
from tests.fakes import FakeSwift, FakeTransport
from tests.waiting import wait_for

from tests.unit.swift.test_tokens import grant_job

pytestmark = pytest.mark.timeout(30)


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

"""The worker loop over an in-memory transport and fake Swift clients."""
from __future__ import absolute_import, division, print_function


import gevent

import pytest

from ssbench import CREATE_OBJECT, DELETE_OBJECT, READ_OBJECT, UPDATE_OBJECT
from ssbench.wire import protocol
from ssbench.wire.protocol import SUICIDE
from ssbench.swift.client import SwiftClient
from ssbench.swift.auth import AuthOptions
from ssbench.worker.mainloop import Worker
from tests.fakes import FakeSwift, FakeTransport
from tests.waiting import wait_for

from tests.unit.worker.test_mainloop import job, results_of

pytestmark = pytest.mark.timeout(30)


def test_against_fake_swift_over_http():
    server = FakeSwift()
    try:
        server.containers['c'] = {}
        auth = AuthOptions(auth_url=server.auth_url, user='test:tester',
                           key='testing')
        transport = FakeTransport()
        transport.inbox.append(protocol.pack([
            job(CREATE_OBJECT, size=5000, block_size=1000)]))
        worker = Worker(3, transport, concurrency=2, auth=auth,
                        swift_factory=SwiftClient, heartbeat_interval=10)

        def answered(count):
            wait_for(lambda: len(results_of(transport)) >= count, 5,
                     '%d result(s)' % count, sleep=gevent.sleep)
        runner = gevent.spawn(worker.run, 0.01)
        try:
            answered(1)
            server.script.append(503)
            transport.inbox.append(protocol.pack([
                job(READ_OBJECT), job(UPDATE_OBJECT, size=7)]))
            answered(3)
            transport.inbox.append(protocol.pack([job(DELETE_OBJECT)]))
            answered(4)
        finally:
            transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
            runner.join(5)
        results = results_of(transport)
        assert [r['type'] for r in results][:1] == [CREATE_OBJECT]
        assert all('exception' not in r for r in results), results
        assert sum(r['retries'] for r in results) == 1
        assert all(r['trans_id'].startswith('tx') for r in results)
        read = [r for r in results if r['type'] == READ_OBJECT][0]
        assert read['first_byte_latency'] <= read['last_byte_latency']
        assert server.containers['c'] == {}
        puts = [r for r in server.requests if r['method'] == 'PUT']
        assert [p['body_length'] for p in puts] == [5000, 7]
    finally:
        server.stop()

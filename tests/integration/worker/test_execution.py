"""ssbench.worker.execution: Runners, a fixed set of greenlets taking jobs
from a FIFO, and StoreJobs, built here without a Worker from its
collaborators (a list as result sink, fake or real Swift clients, a fixed
clock)."""
from __future__ import absolute_import, division, print_function

import json

import pytest

from ssbench import (CREATE_OBJECT, HEAD_OBJECT, LIST_CONTAINER, READ_OBJECT,
                     UPDATE_OBJECT)
from ssbench.swift.auth import AuthOptions
from ssbench.swift.client import SwiftClient
from tests.fakes import FakeSwift
from tests.waiting import wait_for

from tests.unit.worker.test_execution import Harness, job

pytestmark = pytest.mark.timeout(30)


def http_harness(server):
    """A Harness whose worker reaches the FakeSwift `server` (its own
    auth, two retries), container 'c' there."""
    server.containers['c'] = {}
    return Harness(own_auth=server.v1_auth(), retries=2,
                   client_factory=SwiftClient)


def test_head_and_list_over_http_time_their_first_byte():
    server = FakeSwift()
    try:
        harness = http_harness(server)
        harness.run(*[job(CREATE_OBJECT, name=name, size=300)
                      for name in ('tiny_000001', 'tiny_000002', 'other')])
        head, missing, page = harness.run(
            job(HEAD_OBJECT), job(HEAD_OBJECT, name='gone'),
            job(LIST_CONTAINER, name='', limit=1, prefix='tiny_'))
        for result in (head, page):
            assert result['status'] == 200 and 'exception' not in result
            assert 0 <= result['first_byte_latency'] <= \
                result['last_byte_latency']
        # A 404 counts as a READ's: retried, then a failure.
        assert (missing['status'], missing['retries']) == (404, 2)
        assert '404' in missing['exception']
        listed = harness.jobs.get_store().request(
            'GET', 'c', query='format=json&limit=1&prefix=tiny_',
            read='keep')
        assert [item['name'] for item in json.loads(
            listed.body.decode('utf-8'))] == ['tiny_000001']
        harness.jobs.close()
    finally:
        server.stop()


def test_results_name_their_endpoint_only_with_several_urls():
    server = FakeSwift()
    try:
        one = http_harness(server)
        urls = [server.storage_url,
                server.storage_url.replace('127.0.0.1', 'localhost')]
        several = Harness(own_auth=AuthOptions(
            storage_urls=urls, token=server.issue_token()), retries=0,
            client_factory=SwiftClient)
        created, read, missing = several.run(
            job(CREATE_OBJECT), job(READ_OBJECT),
            job(READ_OBJECT, name='gone'))
        assert [r['endpoint'] for r in (created, read, missing)] == [0, 1, 0]
        assert 'exception' in missing and 'exception' not in read
        (plain,) = one.run(job(READ_OBJECT))
        assert plain['status'] == 200 and 'endpoint' not in plain
        one.jobs.close()
        several.jobs.close()
    finally:
        server.stop()


def served_connections(server):
    """Connections the fake Swift has served and closed."""
    with server.lock:
        return len([t for t, _ in server.handlers if not t.is_alive()])


def test_results_over_http_carry_their_cause():
    server = FakeSwift()
    try:
        harness = http_harness(server)
        created, read, missing = harness.run(
            job(CREATE_OBJECT, size=5000, block_size=1000),
            job(READ_OBJECT, block_size=1000),
            job(READ_OBJECT, name='missing'))
        assert (created['status'], created['size']) == (201, 5000)
        assert (read['status'], read['size'], read['retries'],
                read['reconnects']) == (200, 5000, 0, 0)
        assert 'exception' not in read and 'error_class' not in read
        assert '404' in missing['exception']
        assert (missing['status'], missing['error_class'],
                missing['retries'], missing['reconnects']) == (
                    404, None, 2, 0)
        server.script.extend([503] * 3)
        busy = harness.run(job(UPDATE_OBJECT, size=7))[0]
        assert (busy['status'], busy['error_class'], busy['retries'],
                busy['size']) == (503, None, 2, 7)
        # The server closes the connection after this read; the next job
        # finds it closed: a reconnect, not a retry.
        closed = served_connections(server)
        server.close_after_response = True
        harness.run(job(READ_OBJECT))
        server.close_after_response = False
        # Its handler thread ends once it has closed the socket.
        wait_for(lambda: served_connections(server) != closed, 5,
                 'the closed connection\'s handler ending')
        assert served_connections(server) == closed + 1
        again = harness.run(job(READ_OBJECT))[0]
        assert (again['status'], again['retries'], again['reconnects'],
                again['size']) == (200, 0, 1, 5000)
        harness.jobs.close()
        bad_key = AuthOptions(auth_url=server.auth_url, user='test:tester',
                              key='wrong')
        denied = Harness(own_auth=bad_key, client_factory=SwiftClient).run(
            job(READ_OBJECT))[0]
        assert denied['status'] is None
        assert denied['error_class'] == 'SwiftAuthError'
    finally:
        server.stop()


def test_connection_refused_and_timeout_results():
    from tests.fakes import SILENT, CannedServer
    port = CannedServer()
    port.stop()             # nothing listens there any more
    refused = Harness(retries=1, client_factory=SwiftClient,
                      own_auth=AuthOptions(storage_urls=[
                          'http://127.0.0.1:%d/v1/a' % port.port], token='t'))
    result = refused.run(job(READ_OBJECT))[0]
    assert (result['status'], result['error_class'], result['retries'],
            result['reconnects']) == (None, 'ConnectionRefusedError', 1, 0)
    assert 'refused' in result['exception'].lower()
    refused.jobs.close()
    server = CannedServer()
    try:
        server.replies.extend([SILENT, SILENT])
        silent = Harness(retries=1, network_timeout=0.2,
                         client_factory=SwiftClient, own_auth=AuthOptions(
                             storage_urls=['http://127.0.0.1:%d/v1/a'
                                           % server.port], token='t'))
        result = silent.run(job(READ_OBJECT))[0]
        silent.jobs.close()
    finally:
        server.stop()
    assert (result['status'], result['error_class'], result['retries'],
            result['reconnects']) == (None, 'timeout', 1, 0)

"""ssbench.worker.execution: Runners, a fixed set of greenlets taking jobs
from a FIFO, and StoreJobs, built here without a Worker from its
collaborators (a list as result sink, fake or real Swift clients, a fixed
clock)."""
from __future__ import absolute_import, division, print_function


import gevent
import gevent.event
import pytest

from ssbench import (CREATE_OBJECT, DELETE_OBJECT, HEAD_OBJECT,
                     LIST_CONTAINER, READ_OBJECT, UPDATE_OBJECT)
from ssbench.swift.auth import AuthOptions, Grant
from ssbench.store.outcome import Timing
from ssbench.swift.client import SwiftRequestError
from ssbench.swift.tokens import HandedTokens
from ssbench.wire import protocol
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire.protocol import configure_job
from ssbench.worker.execution import LISTING_PAGE, Runners, StoreJobs
from tests.clocks import FakeClock
from tests.fakes import FakeClient
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(30)


class Recorder(object):
    """A job function that holds each job until `gate` is set, and tracks
    concurrency."""

    def __init__(self):
        self.gate = gevent.event.Event()
        self.started = []
        self.done = []
        self.running = 0
        self.most = 0
        self.greenlets = set()

    def __call__(self, job):
        self.started.append(job)
        self.greenlets.add(gevent.getcurrent())
        self.running += 1
        self.most = max(self.most, self.running)
        try:
            self.gate.wait()
        finally:
            self.running -= 1
        self.done.append(job)


def test_runs_every_job_in_order_with_at_most_size_at_once():
    record = Recorder()
    runners = Runners(3, record)
    for job in range(10):
        runners.put(job)           # never blocks, even with all busy
    assert record.started == []    # nothing ran before the caller yielded
    assert wait_for(lambda: record.started == [0, 1, 2], 5,
                    'record.started == [0, 1, 2]', sleep=gevent.sleep)
    assert runners.waiting() == 7
    record.gate.set()
    assert wait_for(lambda: len(record.done) == 10, 5,
                    'len(record.done) == 10', sleep=gevent.sleep)
    assert record.started == list(range(10))
    assert record.most == 3
    assert len(record.greenlets) == 3      # the same greenlets, reused
    runners.kill()


def test_idle_runners_are_woken_and_take_jobs_in_order():
    record = Recorder()
    record.gate.set()              # each job ends as soon as it starts
    runners = Runners(2, record)
    runners.put(0)
    assert wait_for(lambda: len(runners._idle) == 2, 5,
                    'both runners idle', sleep=gevent.sleep)
    for job in (1, 2, 3):
        runners.put(job)
    # Put, not taken yet: the runners are woken when the caller yields.
    assert runners.waiting() == 3 and runners._idle == []
    assert wait_for(lambda: len(record.done) == 4, 5,
                    'len(record.done) == 4', sleep=gevent.sleep)
    assert record.started == [0, 1, 2, 3]
    assert len(record.greenlets) <= 2
    assert wait_for(lambda: len(runners._idle) == 2, 5,
                    'both runners idle again', sleep=gevent.sleep)
    runners.kill()


def test_no_greenlet_before_the_first_job():
    runners = Runners(5, Recorder())
    assert runners._greenlets == []
    runners.put('job')
    assert len(runners._greenlets) == 5
    runners.kill()


def test_kill_stops_runners_and_drops_waiting_jobs():
    record = Recorder()
    runners = Runners(1, record)
    for job in range(3):
        runners.put(job)
    assert wait_for(lambda: record.started == [0], 5,
                    'record.started == [0]', sleep=gevent.sleep)
    runners.kill(timeout=5)
    record.gate.set()
    for _ in range(10):            # a killed runner would go on here
        gevent.sleep(0)
    assert record.started == [0] and record.done == []
    # After kill, putting starts fresh runners (for new jobs only).
    runners.put(9)
    assert wait_for(lambda: 9 in record.done, 5,
                    '9 in record.done', sleep=gevent.sleep)
    assert record.started == [0, 9] and record.done == [9]
    runners.kill()


# -- StoreJobs, without a Worker ------------------------------------------

AUTH = AuthOptions(auth_url='http://127.0.0.1:1/auth/v1.0', user='u',
                   key='k')
GRANT = Grant(['http://127.0.0.1:1/v1/AUTH_test'], 'AUTH_tk1', 1)
NOW = 1234.5


def job(kind, **extra):
    record = {'type': kind, 'size_str': 'tiny', 'container': 'c',
              'name': 'tiny_000001', 'size': 10}
    record.update(extra)
    return record


class Harness(object):
    """A StoreJobs and what it is given: a list of results, the master's
    tokens, a count of the times it asked the master, a clock at NOW."""

    def __init__(self, **kwargs):
        self.results = []
        self.asked = 0
        kwargs.setdefault('own_auth', AUTH)
        kwargs.setdefault('client_factory', FakeClient)
        self.tokens = HandedTokens(self.ask, kwargs.get('configure_wait', 30))
        self.jobs = StoreJobs(7, self.results.append, tokens=self.tokens,
                              ask_master=self.ask, now=FakeClock(NOW),
                              **kwargs)

    def ask(self):
        self.asked += 1

    def run(self, *records):
        """Run `records` one after the other in this greenlet; their
        results."""
        first = len(self.results)
        for one in records:
            self.jobs.run_job(one)
        return self.results[first:]


def test_each_job_type_goes_to_its_request_and_comes_back_a_result():
    FakeClient.instances = []
    harness = Harness(concurrency=4, retries=3, connect_timeout=1.5,
                      network_timeout=2.5, block_size=4096)
    created, read, updated, deleted = harness.run(
        job(CREATE_OBJECT, delete_after=60), job(READ_OBJECT),
        job(UPDATE_OBJECT, size=20, block_size=100), job(DELETE_OBJECT))
    (client,) = FakeClient.instances
    assert client.auth == AUTH
    assert client.kwargs == {'concurrency': 4, 'retries': 3,
                             'connect_timeout': 1.5, 'network_timeout': 2.5}
    assert client.calls == [
        ('put_object', 'c', 'tiny_000001', 10, b'A', 4096, 60),
        ('get_object', 'c', 'tiny_000001', 4096),
        ('put_object', 'c', 'tiny_000001', 20, b'B', 100, None),
        ('delete_object', 'c', 'tiny_000001')]
    for result in (created, read, updated, deleted):
        assert result['worker_id'] == 7 and result['completed_at'] == NOW
        assert (result['status'], result['retries'],
                result['reconnects']) == (200, 1, 0)
    assert (read['first_byte_latency'], read['size']) == (0.01, 321)
    assert created['first_byte_latency'] is None
    assert updated['size'] == 20 and harness.asked == 0


def test_head_and_list_jobs_go_to_their_requests():
    FakeClient.instances = []
    harness = Harness(block_size=4096)
    head, page, plain = harness.run(
        job(HEAD_OBJECT), job(LIST_CONTAINER, name='', limit=5,
                              prefix='tiny_'),
        job(LIST_CONTAINER, name='', block_size=100))
    (client,) = FakeClient.instances
    assert client.calls == [('stat_object', 'c', 'tiny_000001'),
                            ('list_page', 'c', 5, 'tiny_', 4096),
                            ('list_page', 'c', LISTING_PAGE, None, 100)]
    assert page['limit'] == 5 and page['prefix'] == 'tiny_'
    for result in (head, page, plain):
        assert result['status'] == 200 and 'exception' not in result


def test_a_failure_is_a_result_stamped_by_the_clock():
    harness = Harness()
    client = harness.jobs.get_store()
    client.fail['get_object'] = SwiftRequestError(
        'GET', '/v1/a/c/o', 500, 'Internal Error', 'tx-bad', 4)
    client.fail['delete_object'] = ValueError('boom')
    read, delete = harness.run(job(READ_OBJECT), job(DELETE_OBJECT))
    assert (read['status'], read['trans_id'], read['retries'],
            read['completed_at']) == (500, 'tx-bad', 4, NOW)
    assert (delete['exception'], delete['error_class'],
            delete['completed_at']) == ('ValueError: boom', 'ValueError', NOW)


def test_a_job_before_configure_asks_the_master_then_runs_on_its_token():
    FakeClient.instances = []
    harness = Harness(own_auth=None)
    jobs = harness.jobs
    assert not jobs.configured.is_set() and jobs.handles(READ_OBJECT)
    jobs.submit(job(READ_OBJECT))
    assert wait_for(lambda: harness.asked == 1, 5,
                    'harness.asked == 1', sleep=gevent.sleep)
    assert harness.results == [] and FakeClient.instances == []
    jobs.configure(configure_job(network_timeout=4.0, block_size=1024,
                                 grant=GRANT))
    assert wait_for(lambda: harness.results, 5,
                    'harness.results', sleep=gevent.sleep)
    assert jobs.configured.is_set()
    (client,) = FakeClient.instances
    assert client.auth == AuthOptions()
    assert client.kwargs['tokens'] is harness.tokens
    assert client.kwargs['network_timeout'] == 4.0
    assert harness.tokens.current().token == 'AUTH_tk1'
    assert client.calls == [('get_object', 'c', 'tiny_000001', 1024)]
    assert harness.results[0]['status'] == 200
    jobs.stop()


def test_no_configure_in_time_is_an_error_result():
    harness = Harness(own_auth=None, configure_wait=0.05)
    harness.jobs.submit(job(READ_OBJECT))
    assert wait_for(lambda: harness.results, 5,
                    'harness.results', sleep=gevent.sleep)
    (result,) = harness.results
    assert 'no Swift credentials' in result['exception']
    assert (result['error_class'], result['status'],
            result['completed_at']) == ('SsbenchError', None, NOW)
    assert harness.asked == 1


def test_new_timeouts_replace_the_client_and_own_credentials_win():
    FakeClient.instances = []
    harness = Harness()
    first = harness.jobs.get_store()
    harness.jobs.configure(configure_job(block_size=10, grant=GRANT))
    assert harness.jobs.get_store() is first and not first.closed
    assert harness.tokens.grant is None         # own credentials win
    harness.jobs.configure(configure_job(connect_timeout=5.0))
    assert first.closed
    second = harness.jobs.get_store()
    assert second is not first and second.kwargs['connect_timeout'] == 5.0
    harness.jobs.close()
    assert second.closed


class StuckClient(FakeClient):
    def get_object(self, *args):
        gevent.sleep(3600)


def test_stop_ends_running_and_waiting_jobs_without_results():
    harness = Harness(client_factory=StuckClient, concurrency=1)
    for _ in range(3):
        harness.jobs.submit(job(READ_OBJECT))
    assert wait_for(lambda: harness.jobs.waiting() == 2, 5,
                    'harness.jobs.waiting() == 2', sleep=gevent.sleep)
    harness.jobs.stop(timeout=5)
    gevent.sleep(0)
    assert harness.results == [] and harness.jobs.waiting() == 0


def test_head_first_failure_counts_the_head_too():
    harness = Harness()
    client = harness.jobs.get_store()
    client.missing.add('absent')
    client.fail['put_object'] = SwiftRequestError(
        'PUT', '/v1/a/c/absent', 503, 'Unavailable', 'tx-put', 4, 1)
    results = harness.run(job(CREATE_OBJECT, name='absent',
                              head_first=True))
    result = results[0]
    assert (result['retries'], result['reconnects'], result['status']) == (
        6, 2, 503)
    assert result['exception'].endswith('after 6 retries')


def test_a_rate_jobs_result_says_how_long_the_worker_had_it():
    # worker_time: from receipt to result, on the worker's own clock,
    # for successes and failures alike; other jobs carry none.
    clock = FakeClock(10.75, step=0.25)     # reads 10.75, then 11.0
    harness = Harness(clock=clock)
    client = harness.jobs.get_store()
    client.fail['delete_object'] = ValueError('boom')
    harness.jobs.run_job(job(READ_OBJECT, send_lag=0.1), 10.0)
    harness.jobs.run_job(job(DELETE_OBJECT, send_lag=0.1), 10.5)
    harness.jobs.run_job(job(READ_OBJECT))
    read, delete, closed_loop = harness.results
    assert read['worker_time'] == 0.75
    assert delete['worker_time'] == 0.5 and 'exception' in delete
    assert 'worker_time' not in closed_loop
    assert clock.calls == 2              # the clock was read twice only


def test_submitted_jobs_keep_their_receipt_time():
    harness = Harness(clock=FakeClock(20.0))
    harness.jobs.submit(job(READ_OBJECT, send_lag=0.0), 18.0)
    assert wait_for(lambda: harness.results, 5,
                    'harness.results', sleep=gevent.sleep)
    assert harness.results[0]['worker_time'] == 2.0
    harness.jobs.stop()


# -- honest requests (issue 20): a failure's time, retries' causes --------

def checked(result):
    """What the master's check says of `result` (given a job id)."""
    return check_from_worker(protocol.unpack(protocol.pack(
        [dict(result, job_id=1)]))[0])


class RetriedClient(FakeClient):
    """Answers a read that took two retries, one per cause."""

    def get_object(self, *args):
        self.calls.append(('get_object',) + args)
        return Timing(200, 0.3, 0.4, 'tx-get', 2, 0, 5,
                      retry_causes={'503': 1, 'timeout': 1})


def test_results_carry_time_to_failure_and_retry_causes():
    harness = Harness(client_factory=RetriedClient)
    client = harness.jobs.get_store()
    client.fail['delete_object'] = SwiftRequestError(
        'DELETE', '/v1/a/c/o', None, 'timed out', None, 3,
        error_class='timeout', time_to_failure=61.5,
        retry_causes={'timeout': 2, 'ConnectionResetError': 1})
    client.fail['put_object'] = ValueError('boom')
    read, delete, put = harness.run(job(READ_OBJECT), job(DELETE_OBJECT),
                                    job(UPDATE_OBJECT))
    assert read['retry_causes'] == {'503': 1, 'timeout': 1}
    assert 'time_to_failure' not in read
    assert delete['time_to_failure'] == 61.5
    assert delete['retry_causes'] == {'timeout': 2,
                                      'ConnectionResetError': 1}
    # No request went out: the job's own time, and no retries.
    assert 0 <= put['time_to_failure'] < 30
    assert 'retry_causes' not in put
    for record in (read, delete, put):
        assert checked(record) is None, record


class RetriedHead(FakeClient):
    def head_object(self, container, name, missing_ok=False):
        return Timing(404, None, 0.25, 'tx-head', 1, 0,
                      retry_causes={'503': 1})


def test_head_first_failure_adds_the_head_time_and_causes():
    harness = Harness(client_factory=RetriedHead)
    client = harness.jobs.get_store()
    client.fail['put_object'] = SwiftRequestError(
        'PUT', '/v1/a/c/absent', 503, 'Unavailable', 'tx-put', 2, 0,
        time_to_failure=1.5, retry_causes={'503': 1, 'NoResponse': 1})
    (result,) = harness.run(job(CREATE_OBJECT, name='absent',
                                head_first=True))
    assert result['retries'] == 3
    assert result['retry_causes'] == {'503': 2, 'NoResponse': 1}
    assert result['time_to_failure'] == 1.75
    assert checked(result) is None


def test_no_configure_in_time_fails_after_the_wait():
    harness = Harness(own_auth=None, configure_wait=0.05)
    harness.jobs.submit(job(READ_OBJECT))
    assert wait_for(lambda: harness.results, 5,
                    'harness.results', sleep=gevent.sleep)
    assert harness.results[0]['time_to_failure'] >= 0.05


def test_configure_hands_the_retry_backoff_to_the_client():
    FakeClient.instances = []
    harness = Harness()
    first = harness.jobs.get_store()
    assert 'retry_backoff' not in first.kwargs
    harness.jobs.configure(configure_job(retry_backoff=(0.1, 1.0)))
    assert first.closed
    second = harness.jobs.get_store()
    assert second.kwargs['retry_backoff'] == (0.1, 1.0)
    # The same again (as every CONFIGURE repeats it): the same client.
    harness.jobs.configure(protocol.unpack(protocol.pack(
        [configure_job(retry_backoff=(0.1, 1.0))]))[0])
    assert harness.jobs.get_store() is second and not second.closed


def s3_configure(clock, signed=False):
    """A CONFIGURE of an S3 run, through the wire, at `clock`'s time."""
    from ssbench.s3.keyring import KeyMaker
    keys = KeyMaker('test:tester', 'the-secret', 'us-east-1', clock=clock)
    return protocol.unpack(protocol.pack([configure_job(
        network_timeout=3.0, s3=dict(
            keys.wire_form(), endpoint_url='http://127.0.0.1:9',
            addressing='path', signed_payload=signed))]))[0]


def test_a_master_speaking_s3_configures_an_s3_client():
    from ssbench.s3.client import S3Client
    clock = FakeClock(1709208000.0)     # 2024-02-29 12:00 UTC
    harness = Harness(own_auth=None)
    assert not harness.jobs.configured.is_set()
    harness.jobs.configure(s3_configure(clock))
    assert harness.jobs.configured.is_set()
    client = harness.jobs.get_store()
    assert isinstance(client, S3Client)
    assert (client.endpoint_url, client.network_timeout) == (
        'http://127.0.0.1:9', 3.0)
    assert client.keys().dates == ['20240229']
    # The next day's keys reach the same client; new settings a new one.
    clock.advance(12 * 3600)
    harness.jobs.configure(s3_configure(clock))
    assert harness.jobs.get_store() is client
    assert client.keys().dates == ['20240229', '20240301']
    harness.jobs.configure(s3_configure(clock, signed=True))
    assert harness.jobs.get_store() is not client
    assert harness.jobs.get_store().signed_payload is True
    harness.jobs.close()

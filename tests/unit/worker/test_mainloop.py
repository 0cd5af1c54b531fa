"""The worker loop over an in-memory transport and fake Swift clients."""
from __future__ import absolute_import, division, print_function

import logging
import os
import tempfile

import gevent
import pytest

from ssbench import CREATE_OBJECT, DELETE_OBJECT, READ_OBJECT, UPDATE_OBJECT
from ssbench.wire import protocol
from ssbench.errors import SsbenchError
from ssbench.wire.protocol import HEARTBEAT, PING, SUICIDE, configure_job
from ssbench.swift.client import SwiftRequestError
from ssbench.swift.auth import AuthOptions, Grant
from ssbench.worker.mainloop import Worker
from ssbench.worker.outbox import SUICIDE_LINGER
from tests.clocks import FakeClock
from tests.fakes import FakeClient, FakeTransport
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(30)

AUTH = AuthOptions(auth_url='http://127.0.0.1:1/auth/v1.0', user='u',
                   key='k')
# What a master hands a worker without credentials of its own.
GRANT = Grant(['http://127.0.0.1:1/v1/AUTH_test'], 'AUTH_tk1', 1)


def job(kind, **extra):
    record = {'type': kind, 'size_str': 'tiny', 'container': 'c',
              'name': 'tiny_000001', 'size': 10}
    record.update(extra)
    return record


def results_of(transport, include_heartbeats=False):
    out = []
    for data in transport.sent:
        for record in protocol.unpack(data):
            if include_heartbeats or record.get('type') != HEARTBEAT:
                out.append(record)
    return out


def messages_of(transport):
    """Result messages (lists), heartbeats left out."""
    return [m for m in (protocol.unpack(d) for d in transport.sent)
            if m and m[0].get('type') != HEARTBEAT]


def advance(worker, clock, seconds):
    """Move the clock and have the writer greenlet look at it now."""
    clock.advance(seconds)
    worker._wake.set()
    # The writer clears the event as it wakes, and acts before it yields.
    wait_for(lambda: not worker._wake.is_set(), 5, 'the writer woke',
             sleep=gevent.sleep)
    gevent.sleep(0)


def make(transport=None, **kwargs):
    kwargs.setdefault('auth', AUTH)
    kwargs.setdefault('swift_factory', FakeClient)
    kwargs.setdefault('heartbeat_interval', 10)
    return Worker(7, transport or FakeTransport(), concurrency=4, **kwargs)


def run_until(worker, predicate, timeout=5):
    """Run the worker in a greenlet until predicate() holds, then SUICIDE."""
    runner = gevent.spawn(worker.run, 0.01)

    def state():
        return 'the condition given run_until (%d result(s) sent; %s)' % (
            len(results_of(worker.transport)),
            'the worker ended: %r' % (runner.exception,) if runner.ready()
            else 'the worker runs')
    try:
        wait_for(predicate, timeout, state, sleep=gevent.sleep)
    finally:
        worker.transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(timeout)
    assert runner.ready(), 'worker did not stop'
    if runner.exception is not None:
        raise runner.exception
    return runner.value


def test_noop_jobs_answered_inline_and_coalesced():
    transport = FakeTransport()
    for i in range(5):
        transport.inbox.append(protocol.pack([job(CREATE_OBJECT, noop=True,
                                                  name='n%d' % i)]))
    worker = make(transport)
    run_until(worker, lambda: len(results_of(transport)) >= 5)
    results = results_of(transport)
    assert [r['name'] for r in results] == ['n%d' % i for i in range(5)]
    for result in results:
        assert result['worker_id'] == 7 and result['retries'] == 0
        assert result['first_byte_latency'] == 0.0
        assert result['last_byte_latency'] == 0.0
        assert result['trans_id'] is None and result['completed_at'] > 0
        assert result['type'] == CREATE_OBJECT and result['noop'] is True
    # Exactly the keys of 0.3.x no-op results: no status, reconnects, ...
    assert set(results[0]) == set([
        'type', 'size_str', 'container', 'name', 'size', 'noop',
        'worker_id', 'first_byte_latency', 'last_byte_latency', 'trans_id',
        'retries', 'completed_at'])
    # Everything was queued at once: one message despite batch size 1.
    assert len(messages_of(transport)) == 1
    assert FakeClient.instances == [] or not worker.jobs.store
    assert transport.closed


def test_a_rate_noop_job_says_how_long_the_worker_had_it():
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([
        job(READ_OBJECT, noop=True, send_lag=0.25, intended_start=1.6e9),
        job(READ_OBJECT, noop=True)]))
    clock = FakeClock(1000.0)
    worker = make(transport, clock=clock)
    run_until(worker, lambda: len(results_of(transport)) >= 2)
    timed, closed_loop = results_of(transport)
    # The same clock reading at receipt and answer: no time passed.
    assert timed['worker_time'] == 0.0 and timed['send_lag'] == 0.25
    assert 'worker_time' not in closed_loop


def test_ping_answered_suicide_stops():
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([{'type': PING}]))
    transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
    transport.inbox.append(protocol.pack([{'type': PING}]))
    worker = make(transport)
    runner = gevent.spawn(worker.run, 0.01)
    runner.join(5)
    assert runner.successful()
    results = results_of(transport)
    assert len(results) == 1
    assert results[0]['type'] == PING and results[0]['worker_id'] == 7
    assert not set(['status', 'reconnects', 'error_class']) & set(results[0])
    assert transport.closed
    # Told to exit: unsent results get time to leave (kill-workers counts
    # the PING answer).
    assert transport.linger == SUICIDE_LINGER


def test_crud_handlers():
    FakeClient.instances = []
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([
        job(CREATE_OBJECT, delete_after=60, block_size=4096),
        job(READ_OBJECT),
        job(UPDATE_OBJECT, size=20),
        job(DELETE_OBJECT)]))
    worker = make(transport)
    run_until(worker, lambda: len(results_of(transport)) >= 4)
    client = FakeClient.instances[-1]
    assert client.kwargs['concurrency'] == 4
    assert client.kwargs['retries'] == 10
    assert sorted(client.calls) == sorted([
        ('put_object', 'c', 'tiny_000001', 10, b'A', 4096, 60),
        ('get_object', 'c', 'tiny_000001', 65536),
        ('put_object', 'c', 'tiny_000001', 20, b'B', 65536, None),
        ('delete_object', 'c', 'tiny_000001')])
    by_type = dict((r['type'], r) for r in results_of(transport))
    assert by_type[READ_OBJECT]['first_byte_latency'] == 0.01
    assert by_type[CREATE_OBJECT]['first_byte_latency'] is None
    for result in by_type.values():
        assert result['last_byte_latency'] == 0.02
        assert result['retries'] == 1 and result['worker_id'] == 7
        assert result['trans_id'].startswith('tx-')
        assert 'exception' not in result and 'error_class' not in result
        assert result['status'] == 200 and result['reconnects'] == 0
    # Reads record the body bytes read; the others keep the job's size.
    assert by_type[READ_OBJECT]['size'] == 321
    assert by_type[CREATE_OBJECT]['size'] == 10
    assert by_type[UPDATE_OBJECT]['size'] == 20
    assert by_type[DELETE_OBJECT]['size'] == 10
    assert client.closed


def test_head_first_uploads_only_missing_objects():
    FakeClient.instances = []
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([
        job(CREATE_OBJECT, name='present', head_first=True)]))
    worker = make(transport)
    worker.jobs.get_store().missing.add('absent')
    transport.inbox.append(protocol.pack([
        job(CREATE_OBJECT, name='absent', head_first=True)]))
    run_until(worker, lambda: len(results_of(transport)) >= 2)
    client = FakeClient.instances[-1]
    assert ('head_object', 'c', 'present') in client.calls
    assert ('head_object', 'c', 'absent') in client.calls
    puts = [c for c in client.calls if c[0] == 'put_object']
    assert [p[2] for p in puts] == ['absent']
    by_name = dict((r['name'], r) for r in results_of(transport))
    assert by_name['present']['trans_id'] == 'tx-head'
    assert by_name['absent']['trans_id'] == 'tx-put_object'
    assert by_name['absent']['retries'] == 3      # HEAD's 2 + PUT's 1
    assert by_name['absent']['reconnects'] == 1   # HEAD's
    assert by_name['absent']['status'] == 200
    assert by_name['present']['status'] == 200
    assert by_name['present']['reconnects'] == 0


def test_failures_are_results():
    FakeClient.instances = []
    transport = FakeTransport()
    worker = make(transport)
    client = worker.jobs.get_store()
    client.fail['get_object'] = SwiftRequestError(
        'GET', '/v1/a/c/o', 500, 'Internal Error', 'tx-bad', 4)
    client.fail['delete_object'] = ValueError('boom')
    transport.inbox.append(protocol.pack([
        job(READ_OBJECT), job(DELETE_OBJECT), {'type': 'bogus'}]))
    run_until(worker, lambda: len(results_of(transport)) >= 3)
    by_type = dict((r['type'], r) for r in results_of(transport))
    read = by_type[READ_OBJECT]
    assert '500' in read['exception'] and read['trans_id'] == 'tx-bad'
    assert read['retries'] == 4 and 'Traceback' in read['traceback']
    assert 'first_byte_latency' not in read
    assert read['size'] == 10           # the job's: nothing was read
    assert read['status'] == 500 and read['error_class'] is None
    assert read['reconnects'] == 0
    delete = by_type[DELETE_OBJECT]
    assert delete['exception'] == 'ValueError: boom'
    assert delete['retries'] == 0 and delete['reconnects'] == 0
    assert delete['status'] is None and delete['error_class'] == 'ValueError'
    bogus = by_type['bogus']
    assert 'unknown job type' in bogus['exception']
    assert bogus['status'] is None and bogus['error_class'] == 'ValueError'


def test_unconfigured_worker_waits_for_configure():
    FakeClient.instances = []
    transport = FakeTransport()
    worker = make(transport, auth=None, heartbeat_interval=5)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        transport.inbox.append(protocol.pack([job(READ_OBJECT, job_id=7)]))

        def beats():
            return [r for r in results_of(transport, True)
                    if r['type'] == HEARTBEAT]
        wait_for(lambda: len(beats()) >= 2, 5, 'two heartbeats',
                 sleep=gevent.sleep)
        assert results_of(transport) == []
        beats = beats()
        # A job waiting for credentials triggers a prompt heartbeat, which
        # lists the ids of the jobs the worker holds.
        assert len(beats) >= 2 and beats[-1]['configured'] is False
        assert beats[-1]['in_flight'] == [7]
        transport.inbox.append(protocol.pack([configure_job(
            connect_timeout=3.0, network_timeout=4.0, block_size=1024,
            grant=GRANT, renewable=True)]))
        wait_for(lambda: results_of(transport), 5, 'a result',
                 sleep=gevent.sleep)
        result = results_of(transport)[0]
        assert 'exception' not in result and result['type'] == READ_OBJECT
        client = FakeClient.instances[-1]
        assert client.auth == AuthOptions()     # no credentials
        tokens = client.kwargs['tokens']
        assert tokens is worker.handed and tokens.renewable
        assert tokens.current().token == 'AUTH_tk1'
        assert tokens.current().storage_urls == GRANT.storage_urls
        assert client.kwargs['connect_timeout'] == 3.0
        assert client.kwargs['network_timeout'] == 4.0
        assert client.calls == [('get_object', 'c', 'tiny_000001', 1024)]
    finally:
        transport.inbox.append(protocol.pack([{'type': SUICIDE}]))
        runner.join(5)


def test_configure_behind_more_jobs_than_slots_is_still_read():
    """A worker that joined late gets jobs before its CONFIGURE.  They
    must not fill the pool while waiting: the reader, blocked on a free
    slot, would not read the CONFIGURE behind them until configure_wait
    ran out (seen as population objects never written)."""
    transport = FakeTransport()
    for job_id in range(1, 7):
        transport.inbox.append(protocol.pack([job(READ_OBJECT,
                                                  job_id=job_id)]))
    transport.inbox.append(protocol.pack([configure_job(grant=GRANT)]))
    worker = Worker(7, transport, concurrency=2, auth=None,
                    swift_factory=FakeClient, heartbeat_interval=10,
                    configure_wait=30)
    # (Before the fix, nothing came for configure_wait, 30 s.)
    run_until(worker, lambda: len(results_of(transport)) >= 6, timeout=10)
    results = results_of(transport)
    assert sorted(r['job_id'] for r in results) == list(range(1, 7))
    assert not [r for r in results if 'exception' in r]


def test_own_credentials_beat_configure():
    FakeClient.instances = []
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([configure_job(
        1.0, 2.0, grant=GRANT, renewable=True)]))
    transport.inbox.append(protocol.pack([job(READ_OBJECT)]))
    worker = make(transport)
    run_until(worker, lambda: len(results_of(transport)) >= 1)
    client = FakeClient.instances[-1]
    assert client.auth == AUTH and 'tokens' not in client.kwargs
    assert client.kwargs['network_timeout'] == 2.0
    assert worker.handed.grant is None
    beats = [r for r in results_of(transport, True) if r['type'] == HEARTBEAT]
    assert beats and not [b for b in beats if 'token_generation' in b]


def test_no_configure_in_time_is_an_error_result():
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([job(READ_OBJECT)]))
    worker = make(transport, auth=None, configure_wait=0.1)
    run_until(worker, lambda: len(results_of(transport)) >= 1)
    result = results_of(transport)[0]
    assert 'no Swift credentials' in result['exception']
    assert result['error_class'] == 'SsbenchError'
    assert result['status'] is None


def test_incomplete_own_auth_means_unconfigured():
    worker = make(auth=AuthOptions(auth_url='http://a', user='u'))
    assert worker.own_auth is None and not worker.jobs.configured.is_set()


def test_profile_first_jobs(tmp_path):
    path = str(tmp_path / 'w.prof')
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([job(READ_OBJECT, noop=True)] * 5))
    worker = make(transport, profile_count=3, profile_path=path)
    run_until(worker, lambda: len(results_of(transport)) >= 5)
    assert os.path.getsize(path) > 0
    import pstats
    pstats.Stats(path)


def test_a_profile_that_cannot_be_saved_costs_no_job(caplog):
    def full(profiler, path):
        raise SsbenchError('cannot write --profile-file %s: No space left '
                           'on device' % path)
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([job(READ_OBJECT, noop=True)] * 5))
    worker = make(transport, profile_count=2, profile_path='/x/w.prof',
                  save_profile=full)
    run_until(worker, lambda: len(results_of(transport)) >= 5)
    assert [r.getMessage() for r in caplog.records
            if r.levelno == logging.ERROR] == [
        'worker 7: cannot write --profile-file /x/w.prof: No space left on '
        'device']


def test_profile_goes_to_a_new_private_file(tmp_path, monkeypatch, caplog):
    monkeypatch.setattr(tempfile, 'tempdir', str(tmp_path))
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([job(READ_OBJECT, noop=True)] * 2))
    worker = make(transport, profile_count=2)
    with caplog.at_level(logging.INFO, logger='ssbench.worker.mainloop'):
        run_until(worker, lambda: len(results_of(transport)) >= 2)
    (path,) = [str(p) for p in tmp_path.iterdir()]
    assert os.path.basename(path).startswith('ssbench-worker-7-')
    assert path.endswith('.prof') and worker.profile_path == path
    assert os.stat(path).st_mode & 0o077 == 0
    assert os.path.getsize(path) > 0
    assert [r for r in caplog.records if path in r.getMessage()]


class StuckClient(FakeClient):
    """A GET never ends (until its greenlet is killed)."""

    def get_object(self, *args):
        gevent.sleep(3600)


def test_jobs_cut_short_by_an_exit_are_logged(caplog):
    transport = FakeTransport()
    transport.inbox.append(protocol.pack(
        [job(READ_OBJECT, job_id=i, name='tiny_%06d' % i)
         for i in range(1, 7)]))
    worker = make(transport, swift_factory=StuckClient)   # concurrency 4
    with caplog.at_level(logging.WARNING, logger='ssbench.worker.mainloop'):
        run_until(worker, lambda: len(worker.holding) == 6)
    assert 'worker 7: 6 job(s) still running or waiting when it stopped: ' \
        'no result for them' in caplog.text
    assert results_of(transport) == []


def test_a_clean_exit_logs_no_cut_jobs(caplog):
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([job(READ_OBJECT, job_id=1)]))
    worker = make(transport)
    with caplog.at_level(logging.WARNING, logger='ssbench.worker.mainloop'):
        run_until(worker, lambda: len(results_of(transport)) == 1)
    assert 'when it stopped' not in caplog.text


class SlowClient(FakeClient):
    """Each GET takes 20 ms; counts how many run at once."""

    running = 0
    most = 0

    def get_object(self, *args):
        SlowClient.running += 1
        SlowClient.most = max(SlowClient.most, SlowClient.running)
        try:
            gevent.sleep(0.02)
            return self._op('get_object', *args)
        finally:
            SlowClient.running -= 1


def test_at_most_concurrency_jobs_run_at_once_and_all_finish():
    SlowClient.running = SlowClient.most = 0
    transport = FakeTransport()
    transport.inbox.append(protocol.pack(
        [job(READ_OBJECT, job_id=i, name='tiny_%06d' % i)
         for i in range(1, 21)]))
    worker = make(transport, swift_factory=SlowClient)   # concurrency 4
    run_until(worker, lambda: len(results_of(transport)) >= 20)
    results = results_of(transport)
    assert sorted(r['job_id'] for r in results) == list(range(1, 21))
    assert SlowClient.most == 4
    assert not worker.holding


# -- a hostile or broken master ---------------------------------------------

GARBAGE = [
    b'\xc1', b'', b'\x91' * 3000 + b'\xc0', protocol.pack(5),
    protocol.pack(SUICIDE),
    protocol.pack({'type': SUICIDE}),          # a map, not a list of maps
    protocol.pack([[{'type': SUICIDE}]]),
    protocol.pack([5, u'x', None]),
    protocol.pack([dict(job(READ_OBJECT), extra=[[[1]]])]),
    protocol.pack([job(READ_OBJECT, noop='yes')]),
    protocol.pack([job(READ_OBJECT, size=-1)]),
    protocol.pack([job(READ_OBJECT, job_id=[1])]),
    protocol.pack([{'type': PING, 'x': {}}]),
    protocol.pack([{'type': 'CONFIGURE', 'network_timeout': 'soon'}]),
]


def test_malformed_messages_are_dropped_and_the_worker_goes_on(caplog):
    transport = FakeTransport()
    transport.inbox.extend(GARBAGE)
    transport.inbox.append(protocol.pack(
        [7, job(READ_OBJECT, noop=True, job_id=9)]))
    worker = make(transport)
    # Had any of it stopped the worker, job 9 would never be answered.
    run_until(worker, lambda: len(results_of(transport)) >= 1)
    assert [r['job_id'] for r in results_of(transport)] == [9]
    # One fault per message, one per record of [5, u'x', None] and of the
    # last message.
    assert worker.faults.total == len(GARBAGE) + 2 + 1
    assert worker.jobs.network_timeout == 20.0
    dropped = [r.getMessage() for r in caplog.records
               if r.getMessage().startswith('Dropped input from the master')]
    assert len(dropped) == len(worker.faults.counts) < worker.faults.total


@pytest.mark.parametrize('theirs, said', [
    (protocol.PROTOCOL_VERSION + 1,
     'version %d' % (protocol.PROTOCOL_VERSION + 1)),
    (2 ** 63 - 1, 'version %d' % (2 ** 63 - 1))])
def test_a_master_of_another_protocol_is_refused(theirs, said):
    from ssbench.worker.mainloop import Refused
    transport = FakeTransport()
    worker = make(transport)
    told = configure_job()
    told['protocol'] = theirs
    # The jobs behind the CONFIGURE are not taken.
    transport.inbox.append(protocol.pack([told, job('PING')]))
    runner = gevent.spawn(worker.run, 0.01)
    runner.join(5)
    assert isinstance(runner.exception, Refused)
    assert str(runner.exception) == (
        'worker 7 refused: the master speaks wire protocol %s, this worker '
        '%d; run workers of the master\'s ssbench version' % (
            said, protocol.PROTOCOL_VERSION))
    assert results_of(transport) == []
    assert transport.closed


def test_a_worker_the_master_refuses_exits_naming_why():
    from ssbench.worker.mainloop import Refused
    transport = FakeTransport()
    worker = make(transport)
    # The jobs behind the REFUSED are not taken.
    transport.inbox.append(protocol.pack([
        protocol.refused('worker id 7 is held by worker 7 (h1, pid 11)'),
        job('PING')]))
    runner = gevent.spawn(worker.run, 0.01)
    runner.join(5)
    assert isinstance(runner.exception, Refused)
    assert str(runner.exception) == (
        'worker 7 refused by the master: worker id 7 is held by worker 7 '
        '(h1, pid 11)')
    assert results_of(transport) == []
    assert transport.closed


def test_a_configure_without_a_version_is_dropped_not_obeyed():
    """Anyone who reaches the work socket can send a frame: one that
    names no protocol version is malformed input, counted, and the
    worker goes on (only a named other version stops it)."""
    transport = FakeTransport()
    worker = make(transport)
    told = configure_job()
    del told['protocol']
    transport.inbox.append(protocol.pack([told, protocol.ping_job()]))
    runner = gevent.spawn(worker.run, 0.01)
    try:
        wait_for(lambda: results_of(transport), 5, 'the PING answered',
                 sleep=gevent.sleep)
        assert runner.exception is None and worker.refused is None
        assert worker.faults.counts.get('missing protocol') == 1
    finally:
        worker.stopping = True
        runner.join(5)


# -- a CONFIGURE this worker cannot take ------------------------------------

def heartbeats_of(transport):
    return [r for r in results_of(transport, True) if r['type'] == HEARTBEAT]


def refused_configure(caplog, configure, patch=None):
    """Send an unconfigured worker `configure` (a CONFIGURE job), then
    one it can take: (the first heartbeat after the first CONFIGURE, the
    last one after the second, the ERROR lines)."""
    transport = FakeTransport()
    worker = make(transport, auth=None, heartbeat_interval=100)
    if patch is not None:
        patch(worker)
    runner = gevent.spawn(worker.run, 0.01)
    try:
        wait_for(lambda: heartbeats_of(transport), 5, 'a first heartbeat',
                 sleep=gevent.sleep)
        # A master sends another copy each second while it is refused.
        transport.inbox.append(protocol.pack([configure]))
        transport.inbox.append(protocol.pack([configure]))
        # Refused: a heartbeat says so at once, not heartbeat_interval on.
        wait_for(lambda: len(heartbeats_of(transport)) >= 2, 5,
                 'a heartbeat after the CONFIGURE', sleep=gevent.sleep)
        refused = heartbeats_of(transport)[1]
        assert worker.config_refused == refused['config_refused']
        worker.jobs.__dict__.pop('configure', None)     # patch's undone
        transport.inbox.append(protocol.pack([configure_job(grant=GRANT)]))
        wait_for(lambda: worker.jobs.configured.is_set(), 5,
                 'configured', sleep=gevent.sleep)
        assert worker._heartbeat()
        taken = heartbeats_of(transport)[-1]
    finally:
        worker.stopping = True
        runner.join(5)
    errors = [r.getMessage() for r in caplog.records
              if r.levelno == logging.ERROR]
    return refused, taken, errors


def test_a_configure_the_check_drops_is_refused_in_the_heartbeats(caplog):
    told = configure_job(grant=GRANT, renewable=True,
                         token_expires_in=1e10)
    refused, taken, errors = refused_configure(caplog, told)
    assert refused['configured'] is False
    assert refused['config_refused'] == \
        'bad token_expires_in (10000000000.0)'
    # Never the token; said once, not once per copy.
    assert 'AUTH_tk1' not in repr(refused)
    assert errors == ['worker 7 refused a CONFIGURE from the master: bad '
                      'token_expires_in (10000000000.0)']
    # A CONFIGURE it takes ends it.
    assert taken['configured'] is True and 'config_refused' not in taken


@pytest.mark.parametrize('value, said', [
    (['http://127.0.0.1:1/v1/AUTH_test', 5], 'bad storage_urls'),
    (u'AUTH_tk1', 'bad storage_urls')])
def test_a_refusal_names_no_text_value(caplog, value, said):
    """Whatever the field, the reason quotes numbers only: a text may
    be (or hold) a token."""
    told = configure_job(grant=GRANT)
    told['storage_urls'] = value
    refused, taken, errors = refused_configure(caplog, told)
    assert refused['config_refused'] == said
    assert 'AUTH_' not in repr(refused) and 'AUTH_' not in repr(errors)


def test_an_unusable_configure_is_refused_naming_the_error_only(caplog):
    def unusable(job):
        raise ValueError('not a set of signing keys: AUTH_tk1')

    def patch(worker):
        worker.jobs.configure = unusable
    refused, taken, errors = refused_configure(
        caplog, configure_job(grant=GRANT), patch)
    assert refused['config_refused'] == 'unusable CONFIGURE (ValueError)'
    assert errors == ['worker 7 refused a CONFIGURE from the master: '
                      'unusable CONFIGURE (ValueError)']
    assert taken['configured'] is True and 'config_refused' not in taken

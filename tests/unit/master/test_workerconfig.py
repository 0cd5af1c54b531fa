"""ssbench.master.workerconfig: the CONFIGURE job carries a token and no
credential; rejections and expiry renew the token once."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.errors import SwiftAuthError
from ssbench.master.workerconfig import WorkerConfig
from ssbench.swift.auth import AuthOptions, Credentials
from ssbench.wire import protocol
from ssbench.wire.messagecheck import check_from_master
from ssbench.wire.protocol import CONFIGURE, PROTOCOL_VERSION, configure_job
from tests.clocks import FakeClock

pytestmark = pytest.mark.timeout(30)


def test_configure_job_carries_a_token_and_no_credential():
    auth = AuthOptions(auth_url='http://a/auth/v1.0', user='u',
                       key='the-key', os_password='the-password',
                       os_cacert='/etc/ca.pem', insecure=True)
    clock = FakeClock()
    credentials = Credentials(
        auth, authenticator=lambda a, timeout: ('http://s/v1', 'tk', None),
        clock=clock)
    job = WorkerConfig(credentials, 1.5, 2.5, 4096, clock).broadcast()
    assert job == {'type': CONFIGURE, 'connect_timeout': 1.5,
                   'network_timeout': 2.5, 'block_size': 4096,
                   'storage_urls': ['http://s/v1'], 'token': 'tk',
                   'token_generation': 1, 'renewable': True,
                   'insecure': True, 'cacert': '/etc/ca.pem',
                   'protocol': PROTOCOL_VERSION}
    packed = protocol.pack([job])
    assert b'the-key' not in packed and b'the-password' not in packed
    assert configure_job() == {'type': CONFIGURE, 'protocol': PROTOCOL_VERSION}


def test_configure_job_carries_the_retry_backoff():
    assert 'retry_backoff' not in WorkerConfig().broadcast()
    job = WorkerConfig(retry_backoff=(0.05, 2.0)).broadcast()
    assert job['retry_backoff'] == [0.05, 2.0]


def config(clock, fail=None, lifetime=None):
    calls = []

    def authenticator(auth, timeout=None):
        calls.append(auth)
        if fail:
            raise SwiftAuthError(fail)
        return 'http://s/v1', 'tk%d' % len(calls), lifetime
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=authenticator, clock=clock)
    return WorkerConfig(credentials, monotonic=clock), calls


def test_rejections_of_one_generation_renew_once():
    clock = FakeClock()
    worker_config, calls = config(clock)
    worker_config.broadcast()
    rejected = protocol.heartbeat(1, [], True, 1, True)
    assert worker_config.wanted(rejected) is True
    assert len(calls) == 2
    # The other workers' 401s on generation 1: no more authentication,
    # and no more copies within a second.
    for worker_id in (2, 3, 4):
        assert not worker_config.wanted(
            protocol.heartbeat(worker_id, [], True, 1, True))
    assert len(calls) == 2
    clock.now += 1.0
    assert worker_config.wanted(protocol.heartbeat(2, [], True, 1))
    assert not worker_config.wanted(protocol.heartbeat(2, [], True, 2))
    # A worker with credentials of its own gives no generation.
    assert not worker_config.wanted(protocol.heartbeat(5, [], True))


def test_a_failed_renewal_is_tried_again_later():
    clock = FakeClock()
    worker_config, calls = config(clock)
    worker_config.broadcast()
    worker_config.credentials.authenticator = lambda auth, timeout: (
        calls.append(auth), _raise(SwiftAuthError('auth server down')))
    rejected = protocol.heartbeat(1, [], True, 1, True)
    assert not worker_config.wanted(rejected)
    assert not worker_config.wanted(rejected)    # not again at once
    assert len(calls) == 2
    clock.now += 5.0
    assert not worker_config.wanted(rejected)
    assert len(calls) == 3


def _raise(exc):
    raise exc


def test_renewal_before_expiry():
    clock = FakeClock()
    worker_config, calls = config(clock, lifetime=40.0)
    job = worker_config.broadcast()
    # tempauth's tokens may be gone from memcache EARLY (2 s) before.
    assert (job['token'], job['token_expires_in']) == ('tk1', 38.0)
    clock.now += 33.0
    assert not worker_config.renew_if_due()
    assert worker_config.broadcast()['token_expires_in'] == 5.0
    clock.now += 1.0                       # a tenth of 40 s before
    assert worker_config.renew_if_due()
    assert worker_config.broadcast()['token'] == 'tk2'
    assert len(calls) == 2
    assert not worker_config.renew_if_due()


def test_no_expiry_said_none_sent():
    worker_config, _ = config(FakeClock())
    assert 'token_expires_in' not in worker_config.broadcast()


def test_an_expiry_decades_away_is_not_sent_and_the_job_passes():
    # A Keystone stub's token of 2020 that expires in 2099.
    worker_config, _ = config(FakeClock(), lifetime=2.5e9)
    job = worker_config.broadcast()
    assert job['token'] == 'tk1' and 'token_expires_in' not in job
    assert check_from_master(protocol.unpack(protocol.pack(job))) is None


def test_each_renewal_is_a_run_event():
    clock = FakeClock()
    worker_config, calls = config(clock, lifetime=40.0)
    told = []
    worker_config.events = lambda *event: told.append(event)
    worker_config.broadcast()
    clock.now += 36.0
    assert worker_config.renew_if_due()
    assert worker_config.wanted(protocol.heartbeat(1, [], True, 2, True))
    assert told == [
        ('token_renewed', None, 'generation 2, near its expiry'),
        ('token_renewed', None, "generation 3: a worker's Swift token was "
         "rejected (401)")]


def test_a_token_handed_out_again_is_sent_with_its_closer_expiry():
    """tempauth answers the renewal ahead with the token it gave: no
    renewal, no event, but the workers hear when it expires, closer."""
    clock = FakeClock(100.0)
    answers = [('tk1', 3.0), ('tk1', 2.0), ('tk2', 3.0)]

    def authenticator(auth, timeout=None):
        token, left = answers.pop(0)
        return 'http://s/v1', token, left
    credentials = Credentials(AuthOptions(auth_url='http://a', user='u',
                                          key='k'),
                              authenticator=authenticator, clock=clock)
    worker_config = WorkerConfig(credentials, monotonic=clock)
    told = []
    worker_config.events = lambda *event: told.append(event)
    assert worker_config.broadcast()['token_expires_in'] == 1.0
    clock.now += 0.75
    assert worker_config.renew_if_due()
    job = worker_config.broadcast()
    assert job['token'] == 'tk1' and job['token_generation'] == 1
    assert job['token_expires_in'] == pytest.approx(0.25)
    assert told == []
    assert not worker_config.renew_if_due()    # asked again at 101.0
    clock.now += 0.25
    assert worker_config.renew_if_due()
    assert worker_config.broadcast()['token'] == 'tk2'
    assert told == [('token_renewed', None, 'generation 2, near its '
                     'expiry')]


def test_an_s3_run_sends_the_signing_keys_and_renews_them_at_midnight():
    import calendar
    from ssbench.s3.keyring import KeyMaker
    clock = FakeClock(calendar.timegm((2024, 2, 29, 23, 0, 0, 0, 0, 0)))
    endpoint = {'endpoint_url': 'http://127.0.0.1:8080',
                'addressing': 'path', 'signed_payload': False}
    config = WorkerConfig(None, 1.5, 2.5, 4096, clock, s3=(
        endpoint, KeyMaker('test:tester', 'the-secret', 'us-east-1',
                           clock=clock)))
    events = []
    config.events = lambda *event: events.append(event)
    job = config.broadcast()
    assert sorted(job['s3']) == sorted(protocol.S3_KEYS)
    assert list(job['s3']['keys']) == ['20240229']
    assert 'storage_urls' not in job and 'token' not in job
    packed = protocol.pack([job])
    assert b'the-secret' not in packed
    assert config.renew_if_due() is False
    clock.advance(45 * 60)
    assert config.renew_if_due() is True
    assert events and 'S3 signing keys' in events[0][2]
    assert sorted(config.broadcast()['s3']['keys']) == ['20240229',
                                                        '20240301']
    assert config.renew_if_due() is False
    assert config.wanted({'configured': True}) is False

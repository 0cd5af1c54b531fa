"""What a master and a worker accept, record by record and message by
message (ssbench.wire.messagecheck)."""
from __future__ import absolute_import, division, print_function

import random

import pytest

from ssbench.wire import protocol, messagecheck
from ssbench.wire.protocol import HEARTBEAT, PING
from ssbench.wire.messagecheck import check_from_master, check_from_worker

NAN = float('nan')
INF = float('inf')
BEYOND_INT64 = (1 << 64) - 1
FAR = 10 ** 12


# -- what a master accepts --------------------------------------------------

JOB = {'type': 'upload_object', 'size_str': 'tiny', 'container': 'c_1',
       'name': 'tiny_000001', 'size': 10, 'block_size': 65536, 'job_id': 7}


def noop_result(**changes):
    record = protocol.result_ok(dict(JOB, noop=True), 1, 0.0, 0.0, None, 0,
                                1.6e9)
    record.update(changes)
    return record


def swift_result(**changes):
    record = protocol.result_ok(JOB, 'w-2', 0.01, 0.5, 'tx1', 1, 1.6e9,
                                status=201, reconnects=0)
    record.update(changes)
    return record


def error_result(**changes):
    record = protocol.result_error(JOB, 3, 'PUT: 503', 'tb', 2, 'tx3', 1.6e9,
                                   status=503, reconnects=1)
    record.update(changes)
    return record


def without(record, key):
    record = dict(record)
    del record[key]
    return record


def decoded(record):
    """The record as a master would receive it (text keys and values)."""
    return protocol.unpack(protocol.pack([record]))[0]


VALID_FROM_WORKER = [
    ('no-op result', noop_result()),
    ('no-op read', without(noop_result(type='get_object'), 'size')),
    ('Swift success', swift_result()),
    ('HEAD first', swift_result(head_first=True, first_byte_latency=None)),
    ('read with size', swift_result(type='get_object', size=4096)),
    ('integer latencies and time',
     noop_result(last_byte_latency=1, completed_at=1600000000)),
    ('error', error_result()),
    ('error without a status', error_result(status=None,
                                            error_class='timeout')),
    ('text trans_id', noop_result(trans_id='tx')),
    ('extra keys are kept', noop_result(note={'any': ['thing']})),
    ('heartbeat', protocol.heartbeat(4, [1, 2, 3])),
    ('heartbeat with a count of jobs', protocol.heartbeat(4, 3)),
    ('heartbeat with health figures',
     dict(protocol.heartbeat(4, []), window=1.0, cpu=0.5, loop_lag=0.002,
          waiting=3)),
    ('heartbeat of a text id', dict(protocol.heartbeat('w', []),
                                    configured=False)),
    ('PING answer', protocol.result_ok(protocol.ping_job(), 5, 0.0, 0.0,
                                       None, 0)),
    ('huge job id', noop_result(job_id=BEYOND_INT64)),
    ('a --rate job', noop_result(intended_start=1.6e9 - 0.5)),
    ('a --rate job with its send lag',
     noop_result(intended_start=1.6e9 - 0.5, send_lag=0.002)),
    ('heartbeat with a clock probe',
     dict(protocol.heartbeat(4, []), clock_probe=[1234.5, 0.25])),
    ('heartbeat of a worker that refused its CONFIGURE',
     protocol.heartbeat(4, [], False,
                        config_refused='bad token_expires_in (1e+10)')),
    ('a --rate job with its worker time',
     swift_result(intended_start=1.6e9, send_lag=0.0, worker_time=0.25)),
    ('an error with its time to failure', error_result(time_to_failure=3.5)),
    ('an error timed in whole seconds', error_result(time_to_failure=0)),
    ('retries with their causes',
     error_result(retry_causes={'503': 1, 'ConnectionResetError': 1})),
    ('a success retried', swift_result(retry_causes={'timeout': 1})),
    ('heartbeat of a local worker',
     dict(protocol.heartbeat(4, []), local_run='0f' * 16)),
]


@pytest.mark.parametrize('record', [c[1] for c in VALID_FROM_WORKER],
                         ids=[c[0] for c in VALID_FROM_WORKER])
def test_valid_records_from_workers(record):
    assert check_from_worker(decoded(record)) is None


# (case, record, fault kind)
INVALID_FROM_WORKER = [
    ('an int', 5, 'record that is not a map'),
    ('a list', [noop_result()], 'record that is not a map'),
    ('a text', 'upload_object', 'record that is not a map'),
    ('no job_id', without(noop_result(), 'job_id'), 'missing job_id'),
    ('no worker_id', without(noop_result(), 'worker_id'),
     'missing worker_id'),
    ('no completed_at', without(noop_result(), 'completed_at'),
     'missing completed_at'),
    ('no size_str', without(swift_result(), 'size_str'), 'missing size_str'),
    ('no container', without(noop_result(), 'container'),
     'missing container'),
    ('no name', without(error_result(), 'name'), 'missing name'),
    ('no retries', without(error_result(), 'retries'), 'missing retries'),
    ('no trans_id', without(noop_result(), 'trans_id'), 'missing trans_id'),
    ('a success without last_byte_latency',
     without(noop_result(), 'last_byte_latency'),
     'missing last_byte_latency'),
    ('a success with a None last_byte_latency',
     noop_result(last_byte_latency=None), 'missing last_byte_latency'),
    ('text job_id', noop_result(job_id='7'), 'bad job_id'),
    ('bool job_id', noop_result(job_id=True), 'bad job_id'),
    ('float job_id', noop_result(job_id=7.0), 'bad job_id'),
    ('list worker_id', noop_result(worker_id=[1]), 'bad worker_id'),
    ('map worker_id', noop_result(worker_id={'a': 1}), 'bad worker_id'),
    ('None worker_id', noop_result(worker_id=None), 'bad worker_id'),
    ('int type', noop_result(type=1), 'bad type'),
    ('float size_str', noop_result(size_str=3.5), 'bad size_str'),
    ('None container', noop_result(container=None), 'bad container'),
    ('text completed_at', noop_result(completed_at='now'),
     'bad completed_at'),
    ('NaN completed_at', noop_result(completed_at=NAN), 'bad completed_at'),
    ('infinite completed_at', noop_result(completed_at=INF),
     'bad completed_at'),
    ('negative completed_at', noop_result(completed_at=-1.0),
     'bad completed_at'),
    ('completed_at beyond int64', noop_result(completed_at=BEYOND_INT64),
     'bad completed_at'),
    ('negative retries', noop_result(retries=-1), 'bad retries'),
    ('float retries', noop_result(retries=1.5), 'bad retries'),
    ('NaN latency', noop_result(last_byte_latency=NAN),
     'bad last_byte_latency'),
    ('infinite latency', swift_result(first_byte_latency=INF),
     'bad first_byte_latency'),
    ('negative latency', swift_result(last_byte_latency=-0.5),
     'bad last_byte_latency'),
    ('text latency', swift_result(first_byte_latency='0.1'),
     'bad first_byte_latency'),
    ('int trans_id', noop_result(trans_id=5), 'bad trans_id'),
    ('negative size', noop_result(size=-1), 'bad size'),
    ('text intended_start', noop_result(intended_start='now'),
     'bad intended_start'),
    ('NaN intended_start', swift_result(intended_start=NAN),
     'bad intended_start'),
    ('negative send_lag', noop_result(intended_start=1.6e9, send_lag=-1.0),
     'bad send_lag'),
    ('text send_lag', swift_result(intended_start=1.6e9, send_lag='0'),
     'bad send_lag'),
    ('bool send_lag', noop_result(send_lag=True), 'bad send_lag'),
    ('config_refused that is no text',
     protocol.heartbeat(4, [], False, config_refused=5), 'bad config_refused'),
    ('empty config_refused',
     protocol.heartbeat(4, [], False, config_refused=''),
     'bad config_refused'),
    ('config_refused too long', protocol.heartbeat(
        4, [], False, config_refused='x' * (messagecheck.MAX_REASON + 1)),
     'bad config_refused'),
    ('local_run that is no text',
     dict(protocol.heartbeat(4, []), local_run=5), 'bad local_run'),
    ('empty local_run', dict(protocol.heartbeat(4, []), local_run=''),
     'bad local_run'),
    ('local_run too long', dict(protocol.heartbeat(4, []), local_run='a' * (
        messagecheck.MAX_LOCAL_RUN + 1)), 'bad local_run'),
    ('clock probe that is no pair',
     dict(protocol.heartbeat(4, []), clock_probe=[1.0]), 'bad clock_probe'),
    ('clock probe held for a negative time',
     dict(protocol.heartbeat(4, []), clock_probe=[1.0, -1.0]),
     'bad clock_probe'),
    ('clock probe of an infinite time',
     dict(protocol.heartbeat(4, []), clock_probe=[INF, 0.0]),
     'bad clock_probe'),
    ('clock probe in a heartbeat with no time',
     dict(protocol.heartbeat(4, []), clock_probe=[1.0, 0.0],
          completed_at='now'), 'bad completed_at'),
    ('negative worker_time', noop_result(intended_start=1.6e9,
                                         worker_time=-0.1),
     'bad worker_time'),
    ('NaN worker_time', swift_result(worker_time=NAN), 'bad worker_time'),
    ('text size', swift_result(size='big'), 'bad size'),
    ('list exception', error_result(exception=['x']), 'bad exception'),
    ('None exception', error_result(exception=None), 'bad exception'),
    ('text status', error_result(status='503'), 'bad status'),
    ('negative reconnects', error_result(reconnects=-2), 'bad reconnects'),
    ('int error_class', error_result(error_class=7), 'bad error_class'),
    ('negative time_to_failure', error_result(time_to_failure=-0.1),
     'bad time_to_failure'),
    ('NaN time_to_failure', error_result(time_to_failure=NAN),
     'bad time_to_failure'),
    ('text time_to_failure', error_result(time_to_failure='1'),
     'bad time_to_failure'),
    ('bool time_to_failure', error_result(time_to_failure=True),
     'bad time_to_failure'),
    ('a success with a time_to_failure', swift_result(time_to_failure=1.0),
     'bad time_to_failure'),
    ('a no-op with a time_to_failure', noop_result(time_to_failure=1.0),
     'bad time_to_failure'),
    ('retry_causes not a map', error_result(retry_causes=['503', '503']),
     'bad retry_causes'),
    ('retry_causes that do not add up to the retries',
     error_result(retry_causes={'503': 1}), 'bad retry_causes'),
    ('retry_causes on a no-op', noop_result(retry_causes={'503': 0}),
     'bad retry_causes'),
    ('a cause counted 0 times',
     swift_result(retry_causes={'503': 1, 'timeout': 0}),
     'bad retry_causes'),
    ('a cause that is no text', swift_result(retry_causes={5: 1}),
     'bad retry_causes'),
    ('a cause of no name', swift_result(retry_causes={'': 1}),
     'bad retry_causes'),
    ('a cause counted in floats', error_result(retry_causes={'503': 2.0}),
     'bad retry_causes'),
    ('heartbeat without worker_id', {'type': HEARTBEAT, 'in_flight': []},
     'bad worker_id'),
    ('heartbeat with a map of jobs',
     {'type': HEARTBEAT, 'worker_id': 1, 'in_flight': {'a': 1}},
     'bad in_flight'),
    ('heartbeat with a negative count',
     {'type': HEARTBEAT, 'worker_id': 1, 'in_flight': -1}, 'bad in_flight'),
    ('heartbeat with text job ids',
     {'type': HEARTBEAT, 'worker_id': 1, 'in_flight': ['1']},
     'bad in_flight'),
    ('heartbeat with a text configured',
     dict(protocol.heartbeat(1, []), configured='no'), 'bad configured'),
    ('PING answer without worker_id', {'type': PING}, 'bad worker_id'),
    ('heartbeat with a NaN CPU share',
     dict(protocol.heartbeat(1, []), cpu=NAN), 'bad cpu'),
    ('heartbeat with a negative loop lag',
     dict(protocol.heartbeat(1, []), loop_lag=-1.0), 'bad loop_lag'),
    ('heartbeat with a text window',
     dict(protocol.heartbeat(1, []), window='1s'), 'bad window'),
]


@pytest.mark.parametrize('record,kind', [c[1:] for c in INVALID_FROM_WORKER],
                         ids=[c[0] for c in INVALID_FROM_WORKER])
def test_invalid_records_from_workers(record, kind):
    record = decoded(record)
    assert check_from_worker(record)[0] == kind
    if isinstance(record, dict):
        assert messagecheck._check_record(record)[0] == kind


def test_binary_strings_are_not_text():
    record = decoded(noop_result())
    record[u'name'] = b'\xff'       # a msgpack bin value, decoded
    assert check_from_worker(record)[0] == 'bad name'


def mutations(rng, record):
    """Copies of `record` with one key removed or one value replaced."""
    junk = [None, True, False, -1, 0, 2 ** 40, BEYOND_INT64, -2 ** 63, 0.5,
            -0.5, NAN, INF, 1e300, u'', u'x', b'\x00', [], [1], {}, {u'a': 1}]
    for key in list(record):
        yield without(record, key)
        for value in rng.sample(junk, 6):
            yield dict(record, **{key: value})


def test_the_fast_check_agrees_with_the_key_by_key_check():
    rng = random.Random(13)
    seen = {True: 0, False: 0}
    for template in (noop_result(), swift_result(), error_result(),
                     error_result(time_to_failure=2.5,
                                  retry_causes={u'503': 2}),
                     noop_result(type='get_object', size=None),
                     noop_result(intended_start=1.6e9),
                     noop_result(intended_start=1.6e9, send_lag=0.01,
                                 worker_time=0.5)):
        for record in mutations(rng, decoded(template)):
            fast = check_from_worker(record)
            slow = messagecheck._check_record(record)
            assert (fast and fast[0]) == (slow and slow[0]), record
            seen[fast is None] += 1
    assert seen[True] and seen[False]


def refuse(*args):
    raise AssertionError('the fast check did not decide')


@pytest.mark.parametrize('record', [
    noop_result(), without(noop_result(type='get_object'), 'size'),
    noop_result(intended_start=1.6e9 - 0.5),
    noop_result(intended_start=1.6e9 - 0.5, send_lag=0.001,
                worker_time=0.0),
    dict(noop_result(), trans_id=u'tx', first_byte_latency=0.1,
         last_byte_latency=0.5)])
def test_usual_successes_take_the_fast_check(monkeypatch, record):
    monkeypatch.setattr(messagecheck, '_check_record', refuse)
    assert check_from_worker(decoded(record)) is None


# -- what a worker accepts --------------------------------------------------

# What a CONFIGURE of an S3 run carries (ssbench.s3.keyring.KeyMaker's
# wire form and the endpoint).
S3 = {'endpoint_url': 'http://127.0.0.1:8080', 'addressing': 'path',
      'signed_payload': False, 'access_key': 'test:tester',
      'region': 'us-east-1', 'service': 's3', 'keys': {'20240101': '0f' * 32}}


def s3_job(**changes):
    return protocol.configure_job(s3=dict(S3, **changes))


VALID_FROM_MASTER = [
    ('no-op job', dict(JOB, noop=True)),
    ('read', without(JOB, 'size')),
    ('initial upload', dict(JOB, head_first=True)),
    ('upload with delete_after', dict(JOB, delete_after=60)),
    ('a --rate job', dict(JOB, noop=True, intended_start=1.6e9)),
    ('a --rate job with its send lag',
     dict(JOB, intended_start=1.6e9, send_lag=0.001)),
    ('delete', {'type': 'delete_object', 'size_str': 'tiny',
                'container': 'c', 'name': 'n'}),
    ('head', {'type': 'head_object', 'size_str': 'tiny', 'container': 'c',
              'name': 'n', 'block_size': 65536}),
    ('a listing page', {'type': 'list_container', 'size_str': 'tiny',
                        'container': 'c', 'name': '', 'limit': 100}),
    ('a listing page of a prefix', {'type': 'list_container',
                                    'size_str': 'tiny', 'container': 'c',
                                    'name': '', 'limit': 1,
                                    'prefix': 'tiny_'}),
    ('unknown type, answered as an error', {'type': 'frobnicate',
                                            'job_id': 3}),
    ('PING', protocol.ping_job()),
    ('SUICIDE', protocol.suicide_job()),
    ('HEARTBEAT', protocol.heartbeat(1, [])),
    ('CLOCK', protocol.clock_probe(123.25)),
    ('CONFIGURE', protocol.configure_job(connect_timeout=1.5,
                                         network_timeout=2,
                                         block_size=4096)),
    ('CONFIGURE with a retry back-off',
     protocol.configure_job(retry_backoff=(0.05, 2))),
    ('CONFIGURE of an S3 run', protocol.configure_job(s3=S3)),
    ('CONFIGURE of an S3 run at midnight, with two keys',
     protocol.configure_job(s3=dict(S3, keys={'20240101': 'ab' * 32,
                                              '20240102': 'cd' * 32}))),
]


@pytest.mark.parametrize('job', [c[1] for c in VALID_FROM_MASTER],
                         ids=[c[0] for c in VALID_FROM_MASTER])
def test_valid_jobs_from_a_master(job):
    assert check_from_master(decoded(job)) is None


INVALID_FROM_MASTER = [
    ('an int', 7, 'record that is not a map'),
    ('a list', [JOB], 'record that is not a map'),
    ('no type', without(JOB, 'type'), 'bad type'),
    ('list type', dict(JOB, type=['x']), 'bad type'),
    ('a key jobs never have', dict(JOB, auth={'key': 'x'}), 'unknown key'),
    ('int name', dict(JOB, name=5), 'bad name'),
    ('text size', dict(JOB, size='10'), 'bad size'),
    ('bool size', dict(JOB, size=True), 'bad size'),
    ('float block_size', dict(JOB, block_size=1.5), 'bad block_size'),
    ('text noop', dict(JOB, noop='yes'), 'bad noop'),
    ('text send_lag', dict(JOB, send_lag='late'), 'bad send_lag'),
    ('list job_id', dict(JOB, job_id=[7]), 'bad job_id'),
    ('no container', without(JOB, 'container'), 'missing container'),
    ('no name', without(JOB, 'name'), 'missing name'),
    ('no size_str', without(JOB, 'size_str'), 'missing size_str'),
    ('negative size', dict(JOB, size=-1), 'bad size'),
    ('size beyond int64', dict(JOB, size=BEYOND_INT64), 'bad size'),
    ('zero block_size', dict(JOB, block_size=0), 'bad block_size'),
    ('a listing without its container',
     {'type': 'list_container', 'size_str': 't', 'name': '', 'limit': 5},
     'missing container'),
    ('a text limit', dict(JOB, type='list_container', limit='5'),
     'bad limit'),
    ('a limit beyond any count', dict(JOB, type='list_container',
                                      limit=10 ** 6), 'bad limit'),
    ('a prefix that is no text', dict(JOB, type='list_container',
                                      prefix=5), 'bad prefix'),
    ('a job of the container requests the master makes itself',
     {'type': 'create_container', 'container': 'c', 'policy': 'gold'},
     'unknown key'),
    ('PING with more keys', dict(protocol.ping_job(), x=[1]),
     'unknown key'),
    ('PING with a text job_id', dict(protocol.ping_job(), job_id='1'),
     'bad job_id'),
    ('CLOCK without its time', {'type': 'CLOCK'}, 'bad sent'),
    ('CLOCK of a NaN time', protocol.clock_probe(NAN), 'bad sent'),
    ('CLOCK with more keys', dict(protocol.clock_probe(1.0), x=1),
     'unknown key'),
    ('CONFIGURE with a text timeout',
     protocol.configure_job(network_timeout='1'), 'bad network_timeout'),
    ('CONFIGURE with a zero timeout',
     protocol.configure_job(connect_timeout=0), 'bad connect_timeout'),
    ('CONFIGURE with a negative block_size',
     protocol.configure_job(block_size=-1), 'bad block_size'),
    ('CONFIGURE with a back-off of one number',
     dict(protocol.configure_job(), retry_backoff=[0.1]),
     'bad retry_backoff'),
    ('CONFIGURE with a back-off capped below its base',
     protocol.configure_job(retry_backoff=(2, 1)), 'bad retry_backoff'),
    ('CONFIGURE with a zero back-off',
     protocol.configure_job(retry_backoff=(0, 1)), 'bad retry_backoff'),
    ('CONFIGURE with a text back-off',
     protocol.configure_job(retry_backoff=('0.1', 1)), 'bad retry_backoff'),
    ('S3 settings that are no map', protocol.configure_job(s3=['x']),
     'bad s3'),
    ('S3 settings without their keys',
     protocol.configure_job(s3=dict((k, v) for k, v in S3.items()
                                    if k != 'keys')), 'bad s3'),
    ('S3 settings with a secret',
     s3_job(secret='testing'), 'bad s3'),
    ('an S3 endpoint that is no text', s3_job(endpoint_url=8080),
     'bad s3 endpoint_url'),
    ('an empty access key', s3_job(access_key=''), 'bad s3 access_key'),
    ('an S3 region of any length', s3_job(region='r' * 3000),
     'bad s3 region'),
    ('an unknown addressing', s3_job(addressing='dns'),
     'bad s3 addressing'),
    ('a signed_payload that is no flag', s3_job(signed_payload=1),
     'bad s3 signed_payload'),
    ('no signing key', s3_job(keys={}), 'bad s3 keys'),
    ('three signing keys', s3_job(keys=dict(
        ('2024010%d' % day, '00' * 32) for day in (1, 2, 3))),
     'bad s3 keys'),
    ('a signing key of no date', s3_job(keys={'2024-01-01': '00' * 32}),
     'bad s3 keys'),
    ('a signing key too short', s3_job(keys={'20240101': '00' * 16}),
     'bad s3 keys'),
    ('a signing key not in hex', s3_job(keys={'20240101': 'zz' * 32}),
     'bad s3 keys'),
]


@pytest.mark.parametrize('job,kind', [c[1:] for c in INVALID_FROM_MASTER],
                         ids=[c[0] for c in INVALID_FROM_MASTER])
def test_invalid_jobs_from_a_master(job, kind):
    assert check_from_master(decoded(job))[0] == kind


# Values a job's keys may be given in the test below: usual, odd, None.
ODD_VALUES = [None, True, False, 0, 1, -1, 65536, BEYOND_INT64, 10 ** 6,
              1.5, NAN, u'', u'tiny', u'slo', u'dlo', b'x', [1], {}]
JOB_TYPES = [u'upload_object', u'get_object', u'update_object',
             u'delete_object', u'head_object', u'list_container',
             u'frobnicate']


def test_the_fast_pass_over_a_job_agrees_with_the_full_check():
    # A job whose items all pass the one-pass check is what the key-by-key
    # check accepts, and a job it passes on is named by that check.
    rng = random.Random(36)
    keys = [k for k in protocol.JOB_KEYS if k not in ('type', 'noop')]
    accepted = 0
    for _ in range(20000):
        job = decoded(dict(JOB, type=rng.choice(JOB_TYPES)))
        for key in rng.sample(keys, rng.randint(0, 4)):
            if rng.random() < 0.3:
                job.pop(key, None)
            else:
                job[key] = rng.choice(ODD_VALUES)
        if rng.random() < 0.05:
            job[u'auth'] = u'x'
        full = messagecheck._check_job(job, job[u'type'], job.get)
        assert check_from_master(job) == full, job
        accepted += full is None
    # Both ways were taken, often.
    assert 2000 < accepted < 18000


def test_a_bad_s3_map_is_named_by_its_keys_only():
    # The fault is logged: the signing key in it is not.
    fault = check_from_master(decoded(s3_job(secret='testing')))
    assert fault[0] == 'bad s3' and 'testing' not in repr(fault)
    assert ('0f' * 32) not in repr(fault)
    fault = check_from_master(decoded(s3_job(keys={'x': '0f' * 32})))
    assert fault[0] == 'bad s3 keys' and ('0f' * 32) not in repr(fault)


def test_a_no_op_job_is_only_echoed_back():
    # The master checks the result.
    odd = decoded(dict(JOB, noop=True, size=u'x', job_id=[1], note={}))
    assert check_from_master(odd) is None
    # Any other job asks for a request: its keys and values are checked.
    assert check_from_master(dict(odd, noop=False)) == ('unknown key',
                                                        u'note')
    del odd[u'note']
    assert check_from_master(dict(odd, noop=False))[0] == 'bad size'
    assert check_from_master(decoded(dict(JOB, noop=1)))[0] == 'bad noop'


@pytest.mark.parametrize('fault, reason', [
    (('bad token_expires_in', 1e10), 'bad token_expires_in (10000000000.0)'),
    (('bad block_size', 0), 'bad block_size (0)'),
    (('missing protocol', None), 'missing protocol'),
    # Texts and maps may be or hold a token, a signing key: never quoted.
    (('bad token', u'AUTH_tk1'), 'bad token'),
    (('bad s3 keys', ['20250101']), 'bad s3 keys'),
    (('bad renewable', True), 'bad renewable')])
def test_the_reason_of_a_refused_configure_quotes_numbers_only(fault,
                                                               reason):
    assert messagecheck.refusal_reason(fault) == reason

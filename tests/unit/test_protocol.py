from __future__ import absolute_import, division, print_function

import io
import random

import msgpack
import pytest

from ssbench import protocol
from ssbench.faults import Faults
from ssbench.protocol import HEARTBEAT, PING, SUICIDE

NAN = float('nan')
INF = float('inf')
BEYOND_INT64 = (1 << 64) - 1


def test_round_trip_of_a_batch():
    batch = [{'type': 'get_object', 'name': u'caf\xe9', 'size': 3,
              'first_byte_latency': None, 'last_byte_latency': 0.25}]
    assert protocol.unpack(protocol.pack(batch)) == batch


def test_strings_are_packed_as_msgpack_raw_for_old_readers():
    data = protocol.pack({'name': 'x'})
    # fixmap(1), fixraw 'name', fixraw 'x': no str8 and no bin types.
    assert data == b'\x81\xa4name\xa1x'


def test_unpack_garbage_raises_message_error():
    with pytest.raises(protocol.MessageError) as info:
        protocol.unpack(b'\xc1')
    assert 'undecodable message' in str(info.value)


def test_streaming_unpacker_text_and_raw():
    data = protocol.pack([{'a': 'b'}]) + protocol.pack([{'c': 'd'}])
    assert list(protocol.unpacker(io.BytesIO(data))) == [[{'a': 'b'}],
                                                         [{'c': 'd'}]]
    raw = list(protocol.unpacker(io.BytesIO(data), raw=True))
    assert raw == [[{b'a': b'b'}], [{b'c': b'd'}]]


def test_control_jobs_and_heartbeat():
    assert protocol.ping_job() == {'type': PING}
    assert protocol.suicide_job() == {'type': SUICIDE}
    beat = protocol.heartbeat(3, [1, 2])
    assert beat['type'] == HEARTBEAT and beat['in_flight'] == [1, 2]
    assert protocol.is_control(beat)
    assert not protocol.is_control({'type': 'get_object'})


def test_result_records_copy_the_job_and_add_spec_keys():
    job = {'type': 'upload_object', 'size_str': 'tiny', 'container': 'c',
           'name': 'tiny_000001', 'size': 10, 'job_id': 7}
    ok = protocol.result_ok(job, 1, None, 0.5, 'tx1', 2, completed_at=9.0)
    assert ok == dict(job, worker_id=1, first_byte_latency=None,
                      last_byte_latency=0.5, trans_id='tx1', retries=2,
                      completed_at=9.0)
    bad = protocol.result_error(job, 1, 'boom', 'tb', 3, completed_at=9.0)
    assert bad['exception'] == 'boom' and bad['traceback'] == 'tb'
    assert 'first_byte_latency' not in bad and 'last_byte_latency' not in bad
    assert bad['status'] is None and bad['error_class'] is None
    assert 'reconnects' not in bad
    assert 'size' in job and job.get('worker_id') is None   # not mutated


def test_result_records_carry_the_cause_keys_when_given():
    job = {'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
           'name': 'tiny_000001'}
    ok = protocol.result_ok(job, 1, 0.1, 0.5, 'tx1', 0, 9.0, status=200,
                            reconnects=1, size=1234)
    assert (ok['status'], ok['reconnects'], ok['size']) == (200, 1, 1234)
    plain = protocol.result_ok(job, 1, 0.0, 0.0, None, 0, 9.0)
    assert not set(['status', 'reconnects', 'size']) & set(plain)
    http = protocol.result_error(job, 1, 'GET: 404', 'tb', 10, 'tx2', 9.0,
                                 status=404, reconnects=0)
    assert (http['status'], http['error_class'], http['reconnects']) == (
        404, None, 0)
    refused = protocol.result_error(job, 1, 'refused', 'tb', 10,
                                    error_class='ConnectionRefusedError',
                                    reconnects=2)
    assert refused['status'] is None and refused['reconnects'] == 2
    assert refused['error_class'] == 'ConnectionRefusedError'
    assert protocol.unpack(protocol.pack([refused])) == [refused]


def test_a_python2_era_reader_decodes_our_messages():
    data = protocol.pack([{'type': 'get_object', 'trans_id': None}])
    old = msgpack.unpackb(data, raw=True)
    assert old == [{b'type': b'get_object', b'trans_id': None}]


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
    ('heartbeat of a text id', dict(protocol.heartbeat('w', []),
                                    configured=False)),
    ('PING answer', protocol.result_ok(protocol.ping_job(), 5, 0.0, 0.0,
                                       None, 0)),
    ('huge job id', noop_result(job_id=BEYOND_INT64)),
    ('a --rate job', noop_result(intended_start=1.6e9 - 0.5)),
]


@pytest.mark.parametrize('record', [c[1] for c in VALID_FROM_WORKER],
                         ids=[c[0] for c in VALID_FROM_WORKER])
def test_valid_records_from_workers(record):
    assert protocol.check_from_worker(decoded(record)) is None


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
    ('text size', swift_result(size='big'), 'bad size'),
    ('list exception', error_result(exception=['x']), 'bad exception'),
    ('None exception', error_result(exception=None), 'bad exception'),
    ('text status', error_result(status='503'), 'bad status'),
    ('negative reconnects', error_result(reconnects=-2), 'bad reconnects'),
    ('int error_class', error_result(error_class=7), 'bad error_class'),
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
]


@pytest.mark.parametrize('record,kind', [c[1:] for c in INVALID_FROM_WORKER],
                         ids=[c[0] for c in INVALID_FROM_WORKER])
def test_invalid_records_from_workers(record, kind):
    record = decoded(record)
    assert protocol.check_from_worker(record)[0] == kind
    if isinstance(record, dict):
        assert protocol._check_record(record)[0] == kind


def test_binary_strings_are_not_text():
    record = decoded(noop_result())
    record[u'name'] = b'\xff'       # a msgpack bin value, decoded
    assert protocol.check_from_worker(record)[0] == 'bad name'


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
                     noop_result(type='get_object', size=None)):
        for record in mutations(rng, decoded(template)):
            fast = protocol.check_from_worker(record)
            slow = protocol._check_record(record)
            assert (fast and fast[0]) == (slow and slow[0]), record
            seen[fast is None] += 1
    assert seen[True] and seen[False]


# -- what a worker accepts --------------------------------------------------

VALID_FROM_MASTER = [
    ('no-op job', dict(JOB, noop=True)),
    ('read', without(JOB, 'size')),
    ('initial upload', dict(JOB, head_first=True)),
    ('upload with delete_after', dict(JOB, delete_after=60)),
    ('a --rate job', dict(JOB, noop=True, intended_start=1.6e9)),
    ('delete', {'type': 'delete_object', 'size_str': 'tiny',
                'container': 'c', 'name': 'n'}),
    ('container', {'type': protocol.CREATE_CONTAINER, 'container': 'c',
                   'policy': 'gold'}),
    ('unknown type, answered as an error', {'type': 'frobnicate',
                                            'job_id': 3}),
    ('PING', protocol.ping_job()),
    ('SUICIDE', protocol.suicide_job()),
    ('HEARTBEAT', protocol.heartbeat(1, [])),
    ('CONFIGURE', protocol.configure_job(connect_timeout=1.5,
                                         network_timeout=2,
                                         block_size=4096)),
]


@pytest.mark.parametrize('job', [c[1] for c in VALID_FROM_MASTER],
                         ids=[c[0] for c in VALID_FROM_MASTER])
def test_valid_jobs_from_a_master(job):
    assert protocol.check_from_master(decoded(job)) is None


INVALID_FROM_MASTER = [
    ('an int', 7, 'record that is not a map'),
    ('a list', [JOB], 'record that is not a map'),
    ('no type', without(JOB, 'type'), 'bad type'),
    ('list type', dict(JOB, type=['x']), 'bad type'),
    ('a key jobs never have', dict(JOB, auth={'key': 'x'}), 'unknown key'),
    ('a no-op with a nested value', dict(JOB, noop=True, x=[[[]]]),
     'unknown key'),
    ('int name', dict(JOB, name=5), 'bad name'),
    ('text size', dict(JOB, size='10'), 'bad size'),
    ('bool size', dict(JOB, size=True), 'bad size'),
    ('float block_size', dict(JOB, block_size=1.5), 'bad block_size'),
    ('text noop', dict(JOB, noop='yes'), 'bad noop'),
    ('list job_id', dict(JOB, job_id=[7]), 'bad job_id'),
    ('no container', without(JOB, 'container'), 'missing container'),
    ('no name', without(JOB, 'name'), 'missing name'),
    ('no size_str', without(JOB, 'size_str'), 'missing size_str'),
    ('negative size', dict(JOB, size=-1), 'bad size'),
    ('size beyond int64', dict(JOB, size=BEYOND_INT64), 'bad size'),
    ('zero block_size', dict(JOB, block_size=0), 'bad block_size'),
    ('container job without a container',
     {'type': protocol.DELETE_CONTAINER}, 'missing container'),
    ('PING with more keys', dict(protocol.ping_job(), x=[1]),
     'unknown key'),
    ('PING with a text job_id', dict(protocol.ping_job(), job_id='1'),
     'bad job_id'),
    ('CONFIGURE with a text timeout',
     protocol.configure_job(network_timeout='1'), 'bad network_timeout'),
    ('CONFIGURE with a zero timeout',
     protocol.configure_job(connect_timeout=0), 'bad connect_timeout'),
    ('CONFIGURE with a negative block_size',
     protocol.configure_job(block_size=-1), 'bad block_size'),
]


@pytest.mark.parametrize('job,kind', [c[1:] for c in INVALID_FROM_MASTER],
                         ids=[c[0] for c in INVALID_FROM_MASTER])
def test_invalid_jobs_from_a_master(job, kind):
    assert protocol.check_from_master(decoded(job))[0] == kind


# -- decode ---------------------------------------------------------------

FRAMES = [
    ('random bytes', b'\xc1\x00\xff', 'undecodable message'),
    ('truncated', protocol.pack([noop_result()])[:-3],
     'undecodable message'),
    ('extra bytes', protocol.pack([noop_result()]) + b'\x01',
     'undecodable message'),
    ('invalid UTF-8', b'\x91\x81\xa4type\xa2\xff\xfe',
     'undecodable message'),
    ('a map key that is a list', b'\x81\x91\x01\x02', 'undecodable message'),
    ('nested past any limit', b'\x91' * 5000 + b'\xc0',
     'undecodable message'),
    ('empty', b'', 'undecodable message'),
    ('an int', protocol.pack(5), 'message that is not a list'),
    ('uint64', protocol.pack(BEYOND_INT64), 'message that is not a list'),
    ('a map', protocol.pack(noop_result()), 'message that is not a list'),
    ('a text', protocol.pack('x'), 'message that is not a list'),
    ('nil', protocol.pack(None), 'message that is not a list'),
]


@pytest.mark.parametrize('data,kind', [c[1:] for c in FRAMES],
                         ids=[c[0] for c in FRAMES])
def test_decode_drops_frames_that_are_not_a_list_of_maps(data, kind):
    for check in (protocol.check_from_worker, protocol.check_from_master):
        faults = Faults('here')
        assert protocol.decode(data, check, faults) == ([], False)
        assert faults.counts == {kind: 1}


def test_decode_keeps_the_valid_records_of_a_mixed_message():
    good = [noop_result(job_id=1), swift_result(job_id=2)]
    faults = Faults('here')
    data = protocol.pack(good)
    records, intact = protocol.decode(data, protocol.check_from_worker,
                                      faults)
    assert (records, intact, faults.total) == (good, True, 0)
    data = protocol.pack([good[0], 5, without(good[1], 'job_id'),
                          noop_result(retries='x'), good[1]])
    records, intact = protocol.decode(data, protocol.check_from_worker,
                                      faults)
    assert (records, intact) == (good, False)
    assert faults.counts == {'record that is not a map': 1,
                             'missing job_id': 1, 'bad retries': 1}
    assert protocol.decode(protocol.pack([]), protocol.check_from_worker,
                           faults) == ([], True)


def test_pack_records_leaves_out_what_cannot_be_packed_again():
    faults = Faults('here')
    good = noop_result()
    data, kept = protocol.pack_records([good], faults)
    assert (protocol.unpack(data), kept) == ([good], [good])
    odd = noop_result(job_id=8, extra=object())
    data, kept = protocol.pack_records([good, odd], faults)
    assert protocol.unpack(data) == [good] and kept == [good]
    assert faults.counts == {'record that cannot be stored': 1}

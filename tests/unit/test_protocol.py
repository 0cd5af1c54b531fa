from __future__ import absolute_import, division, print_function

import io

import msgpack
import pytest

from ssbench import HEARTBEAT, PING, SUICIDE, protocol


def test_round_trip_of_a_batch():
    batch = [{'type': 'get_object', 'name': u'caf\xe9', 'size': 3,
              'first_byte_latency': None, 'last_byte_latency': 0.25}]
    assert protocol.unpack(protocol.pack(batch)) == batch


def test_strings_are_packed_as_msgpack_raw_for_old_readers():
    data = protocol.pack({'name': 'x'})
    # fixmap(1), fixraw 'name', fixraw 'x': no str8 and no bin types.
    assert data == b'\x81\xa4name\xa1x'


def test_unpack_garbage_raises_protocol_error():
    with pytest.raises(protocol.ProtocolError):
        protocol.unpack(b'\xc1')


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

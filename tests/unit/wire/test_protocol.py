from __future__ import absolute_import, division, print_function

import msgpack
import pytest

from ssbench.wire import protocol
from ssbench.wire.faultlog import Faults
from ssbench.wire.protocol import HEARTBEAT, PING, SUICIDE
from ssbench.wire.messagecheck import check_from_master, check_from_worker
from tests.unit.wire.test_messagecheck import (BEYOND_INT64, noop_result,
                                               swift_result, without)


def test_round_trip_of_a_batch():
    batch = [{'type': 'get_object', 'name': u'caf\xe9', 'size': 3,
              'first_byte_latency': None, 'last_byte_latency': 0.25}]
    assert protocol.unpack(protocol.pack(batch)) == batch


def test_strings_are_packed_as_msgpack_raw_for_old_readers():
    data = protocol.pack({'name': 'x'})
    # fixmap(1), fixraw 'name', fixraw 'x': no str8 and no bin types.
    assert data == b'\x81\xa4name\xa1x'


def test_streaming_unpacker_text_and_raw():
    data = protocol.pack([{'a': 'b'}]) + protocol.pack([{'c': 'd'}])
    text, raw = protocol.unpacker(), protocol.unpacker(raw=True)
    for half in (data[:5], data[5:]):
        text.feed(half)
        raw.feed(half)
    assert list(text) == [[{'a': 'b'}], [{'c': 'd'}]]
    assert list(raw) == [[{b'a': b'b'}], [{b'c': b'd'}]]


def test_control_jobs_and_heartbeat():
    assert protocol.ping_job() == {'type': PING}
    assert protocol.suicide_job() == {'type': SUICIDE}
    beat = protocol.heartbeat(3, [1, 2])
    assert beat['type'] == HEARTBEAT and beat['in_flight'] == [1, 2]


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
    assert 'time_to_failure' not in refused
    assert 'retry_causes' not in refused and 'retry_causes' not in ok


def test_failures_keep_their_time_and_retries_their_causes():
    job = {'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
           'name': 'tiny_000001'}
    causes = {'503': 1, 'timeout': 2}
    failed = protocol.result_error(job, 1, 'GET: 503', 'tb', 3, 'tx2', 9.0,
                                   status=503, reconnects=0,
                                   time_to_failure=4.25, retry_causes=causes)
    assert failed['time_to_failure'] == 4.25
    assert failed['retry_causes'] == causes
    assert protocol.unpack(protocol.pack([failed])) == [failed]
    ok = protocol.result_ok(job, 1, 0.1, 0.5, 'tx1', 1, 9.0, status=200,
                            retry_causes={'503': 1})
    assert ok['retry_causes'] == {'503': 1}
    assert protocol.configure_job(retry_backoff=(0.05, 2.0))[
        'retry_backoff'] == [0.05, 2.0]
    assert 'retry_backoff' not in protocol.configure_job()


def test_a_python2_era_reader_decodes_our_messages():
    data = protocol.pack([{'type': 'get_object', 'trans_id': None}])
    old = msgpack.unpackb(data, raw=True)
    assert old == [{b'type': b'get_object', b'trans_id': None}]


# -- decode ---------------------------------------------------------------

FRAMES = [
    ('random bytes', b'\xc1\x00\xff', 'undecodable message'),
    ('truncated', protocol.pack([noop_result()])[:-3],
     'undecodable message'),
    ('extra bytes', protocol.pack([noop_result()]) + b'\x01',
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
    for check in (check_from_worker, check_from_master):
        faults = Faults('here')
        assert protocol.decode(data, check, faults) == ([], False)
        assert faults.counts == {kind: 1}


def test_a_string_that_is_not_utf8_costs_only_its_record():
    faults = Faults('here')
    good = noop_result(job_id=1)
    # As a worker echoing a bad job's bytes packs it: a msgpack string.
    bad = noop_result(job_id=2, name=b'\xff\xfe')
    data = protocol.pack([good, bad])
    records, intact = protocol.decode(data, check_from_worker, faults)
    assert not intact and len(records) == 2 and records[0] == good
    assert records[1]['name'] == u'\ufffd\ufffd'
    assert faults.total == 0
    # Nothing was dropped, but the message is not stored as it came.
    records, intact = protocol.decode(protocol.pack([good]),
                                      check_from_worker, faults)
    assert intact


def test_decode_keeps_the_valid_records_of_a_mixed_message():
    good = [noop_result(job_id=1), swift_result(job_id=2)]
    faults = Faults('here')
    data = protocol.pack(good)
    records, intact = protocol.decode(data, check_from_worker,
                                      faults)
    assert (records, intact, faults.total) == (good, True, 0)
    data = protocol.pack([good[0], 5, without(good[1], 'job_id'),
                          noop_result(retries='x'), good[1]])
    records, intact = protocol.decode(data, check_from_worker,
                                      faults)
    assert (records, intact) == (good, False)
    assert faults.counts == {'record that is not a map': 1,
                             'missing job_id': 1, 'bad retries': 1}
    assert protocol.decode(protocol.pack([]), check_from_worker,
                           faults) == ([], True)


def test_decode_hands_each_dropped_record_to_dropped():
    good = noop_result(job_id=1)
    bad = noop_result(retries='x')
    dropped = []
    records, intact = protocol.decode(
        protocol.pack([good, 5, bad]), check_from_worker, Faults('here'),
        lambda record, fault: dropped.append((record, fault)))
    assert records == [good] and not intact
    assert dropped == [(5, ('record that is not a map', 5)),
                       (bad, ('bad retries', 'x'))]


def test_pack_records_leaves_out_what_cannot_be_packed_again():
    faults = Faults('here')
    good = noop_result()
    data, kept = protocol.pack_records([good], faults)
    assert (protocol.unpack(data), kept) == ([good], [good])
    odd = noop_result(job_id=8, extra=object())
    data, kept = protocol.pack_records([good, odd], faults)
    assert protocol.unpack(data) == [good] and kept == [good]
    assert faults.counts == {'record msgpack cannot encode': 1}


def test_pack_prefix_packs_what_fits_and_says_what_it_covers():
    faults = Faults('here')
    records = [noop_result(job_id=n) for n in range(1, 11)]
    whole = protocol.pack(records)
    assert protocol.pack_prefix(records, len(whole), faults) == \
        (whole, 10)
    one = len(protocol.pack(records[0]))
    # Room for three records and the array header: three.
    data, used = protocol.pack_prefix(records, 5 + 3 * one + 1, faults)
    assert (protocol.unpack(data), used) == (records[:3], 3)
    assert len(data) <= 5 + 3 * one + 1 and faults.total == 0
    # Past 15 items the array header grows: still one message that
    # msgpack reads as the list.
    many = [noop_result(job_id=n) for n in range(1, 101)]
    data, used = protocol.pack_prefix(many, 60 * one, faults)
    assert protocol.unpack(data) == many[:used] and 50 < used < 60


def test_pack_prefix_leaves_out_a_record_too_large_or_not_packable():
    faults = Faults('here')
    small = [noop_result(job_id=1), noop_result(job_id=3)]
    huge = noop_result(job_id=2, name='x' * 1000)
    odd = noop_result(job_id=4, extra=object())
    limit = 5 + 2 * len(protocol.pack(small[0])) + 10
    data, used = protocol.pack_prefix(small[:1] + [huge, odd] + small[1:],
                                      limit, faults)
    assert (protocol.unpack(data), used) == (small, 4)
    assert faults.counts == {'record too large to send': 1,
                             'record msgpack cannot encode': 1}
    # Nothing left to send: no message, the record still covered.
    assert protocol.pack_prefix([huge], limit, faults) == (None, 1)
    assert faults.counts['record too large to send'] == 2


def test_decode_stops_at_more_maps_and_arrays_than_a_message_s_size_allows():
    # One byte each on the wire, 56 to 280 bytes each in memory: past
    # CONTAINERS_FREE bytes a message may decode to one per
    # CONTAINER_BYTES of it, and CONTAINERS_FREE more.
    def message(maps):
        return protocol.pack([[{}] * maps])

    def allowed(data):
        return protocol.CONTAINERS_FREE + \
            len(data) // protocol.CONTAINER_BYTES

    most = protocol.CONTAINERS_FREE
    while most + 1 + 2 <= allowed(message(most + 1)):
        most += 1
    assert len(message(most)) > protocol.CONTAINERS_FREE
    for check in (check_from_worker, check_from_master):
        # At the allowance (the two arrays count too) it decodes...
        faults = Faults('here')
        assert protocol.decode(message(most), check, faults) == ([], False)
        assert faults.counts == {'record that is not a map': 1}
        # ... one more and it is undecodable.
        faults = Faults('here')
        assert protocol.decode(message(most + 1), check, faults) == (
            [], False)
        assert faults.counts == {'undecodable message': 1}


def test_a_batch_of_results_is_well_within_the_allowance():
    good = [swift_result(job_id=n) for n in range(1, 1001)]
    data = protocol.pack(good)
    assert len(data) > protocol.CONTAINERS_FREE
    assert protocol.decode(data, check_from_worker, Faults('here')) == (
        good, True)


def test_the_longest_heartbeat_decodes_and_no_array_is_longer():
    from ssbench.wire.wirelimits import HELD_IDS
    beat = protocol.heartbeat(1, [protocol.INT64 - 1] * HELD_IDS)
    records, intact = protocol.decode(protocol.pack([beat]),
                                      check_from_worker, Faults('here'))
    assert intact and records[0]['in_flight'] == beat['in_flight']
    faults = Faults('here')
    beat['in_flight'].append(1)
    assert protocol.decode(protocol.pack([beat]), check_from_worker,
                           faults) == ([], False)
    assert faults.counts == {'undecodable message': 1}

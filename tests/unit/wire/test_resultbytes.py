from __future__ import absolute_import, division, print_function

import random
from collections import OrderedDict

from ssbench.compat import text_type
from ssbench.measure import record as record_spec
from ssbench.wire import protocol, resultbytes
from ssbench.wire.faultlog import Faults
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire.resultbytes import MAX_SHAPES, ResultShapes, eligible

# A no-op success as our workers write it: the two ids, the job's keys,
# then the result's.
NOOP = (('job_id', 7), ('worker_id', 2), ('type', 'upload_object'),
        ('size_str', 'tiny'), ('container', 'ssbench_000045_default'),
        ('name', 'tiny_000301'), ('block_size', 65536), ('size', 6042),
        ('noop', True), ('first_byte_latency', 0.0),
        ('last_byte_latency', 0.0), ('trans_id', None), ('retries', 0),
        ('completed_at', 1795636700.8471718))
KEYS = tuple(text_type(key) for key, _ in NOOP)


def record(**changes):
    """NOOP in its wire order, with `changes`."""
    fields = OrderedDict((text_type(k), v) for k, v in NOOP)
    for key, value in changes.items():
        fields[text_type(key)] = value
    return fields


def message(*records):
    return protocol.pack(list(records))


def shapes(*orders):
    known = ResultShapes()
    for keys in orders or (KEYS,):
        assert known.add(keys)
    return known


def test_a_message_of_a_known_shape_is_taken_on_its_bytes():
    data = message(*[record(job_id=n) for n in (1, 300, 70000, 2 ** 40)])
    assert ResultShapes().scan(data) is None      # nothing learned yet
    assert shapes().scan(data) == ([1, 300, 70000, 2 ** 40], 2, None)


def test_head_and_listing_results_are_taken_on_their_bytes():
    head = record(type=u'head_object')
    listing = record(type=u'list_container', name=u'', limit=100,
                     prefix=u'tiny_')
    known = shapes(tuple(head), tuple(listing))
    assert known.scan(message(head, listing)) == ([7, 7], 2, None)
    # A limit beyond the record spec's counts goes the full way.
    assert known.scan(message(record(type=u'list_container', name=u'',
                                     limit=10 ** 6, prefix=u'x'))) is None


def test_results_naming_their_endpoint_are_taken_on_their_bytes():
    tagged = record(endpoint=1)
    known = shapes(tuple(tagged))
    assert known.scan(message(tagged, record(endpoint=0))) == ([7, 7], 2, None)
    # An index beyond the record spec's counts goes the full way.
    assert known.scan(message(record(endpoint=10 ** 6))) is None


def test_sixteen_records_and_more_and_text_worker_ids():
    data = message(*[record(job_id=n, worker_id='host-a.3')
                     for n in range(40)])
    assert shapes().scan(data) == (list(range(40)), 'host-a.3', None)


def test_a_learned_record_makes_a_shape_where_maps_keep_their_order():
    known = ResultShapes()
    data = message(record(), record(job_id=8))
    known.learn(protocol.unpack(data))
    if resultbytes.KEYS_IN_WIRE_ORDER:
        assert known.shapes == [KEYS]
        assert known.scan(data) == ([7, 8], 2, None)
    else:
        assert known.shapes == [] and known.scan(data) is None


def test_our_workers_put_the_ids_first():
    job = dict((text_type(k), v) for k, v in NOOP[2:9])
    job[text_type('job_id')] = 9
    for result in (protocol.result_ok(job, 3, 0.0, 0.1, None, 0),
                   protocol.result_error(job, 3, 'boom', '', 0)):
        assert result['job_id'] == 9 and result['worker_id'] == 3
        if resultbytes.KEYS_IN_WIRE_ORDER:
            assert list(result)[:2] == ['job_id', 'worker_id']
    assert 'job_id' not in protocol.result_ok({'type': 'PING'}, 3, 0.0, 0.0,
                                              None, 0)


def test_messages_not_wholly_of_plain_successes_go_the_full_way():
    known = shapes()
    fine = record()
    cases = [
        message(fine, record(worker_id=3)),              # two workers
        message(fine) + b'\x00',                          # trailing byte
        b'\x92' + message(fine)[1:],                      # count too high
        protocol.pack({'a': 1}),                          # not a list
        message(),                                        # nothing
        message(record(last_byte_latency=record_spec.MAX_SECONDS)),
        message(record(last_byte_latency=-0.5)),
        message(record(last_byte_latency=float('nan'))),
        message(record(completed_at=record_spec.MAX_EPOCH)),
        message(record(name=u'caf\xe9')),
        message(record(name='n' * 64)),
        message(record(size='12')),
        message(record(size=-1)),
        message(record(job_id=-1)),
        message(record(type='HEARTBEAT')),
        message(record(trans_id=b'\xff\xfe')),
        message(OrderedDict(list(fine.items())[::-1])),   # another order
    ]
    for data in cases:
        assert known.scan(data) is None, data
    assert known.scan(message(record(name='n' * 63))) == ([7], 2, None)


def test_failures_and_foreign_orders_never_become_shapes():
    error = tuple(KEYS) + (text_type('exception'),)
    assert not eligible(error)
    assert not eligible(KEYS[1:])                       # no job id first
    assert not eligible(KEYS[:1] + KEYS[2:] + KEYS[1:2])
    assert not eligible(tuple(k for k in KEYS if k != 'trans_id'))
    known = ResultShapes()
    assert not known.add(error) and known.shapes == []


def test_shapes_are_bounded():
    known = ResultShapes()
    optional = [text_type(k) for k in (
        'send_lag', 'worker_time', 'status', 'reconnects', 'delete_after')]
    added = 0
    for mask in range(2 ** len(optional)):
        extra = tuple(k for i, k in enumerate(optional) if mask >> i & 1)
        added += known.add(KEYS + extra)
    assert added == MAX_SHAPES == len(known.shapes) == 8


def _value(rng, key):
    """A value for `key`, often fine, sometimes out of any rule."""
    pool = [None, True, 0, 1, 127, 128, 65535, 2 ** 32, 2 ** 63, -1, -2 ** 40,
            0.0, 0.5, 1e8, 2.0 ** 29, 1e9, 1.8e9, 2.0 ** 36, 1e10, 1e11,
            -0.0,
            999, 1000, 10 ** 6 - 1, 10 ** 6, 2 ** 53 - 1, 2 ** 53,
            -1.5, float('inf'), float('nan'), u'', u'x', u'a' * 31, u'b' * 32,
            u'c' * 63, u'd' * 64, u'\xe9', b'raw', [1], {u'k': 1},
            u'upload_object', u'get_object', u'HEARTBEAT']
    if rng.random() < 0.7:
        return dict(NOOP)[key]
    return rng.choice(pool)


def test_whatever_the_bytes_scan_takes_only_what_the_full_check_takes():
    rng = random.Random(20261125)
    known = shapes(KEYS, KEYS[:8] + KEYS[9:])
    faults = Faults('test')
    taken = 0
    for _ in range(3000):
        records = []
        for job_id in range(rng.randint(1, 20)):
            fields = record(job_id=job_id)
            for key in list(fields):
                if rng.random() < 0.03:
                    fields[key] = _value(rng, key)
            records.append(fields)
        data = bytearray(message(*records))
        for _ in range(rng.choice([0, 0, 1, 3])):
            data[rng.randrange(len(data))] = rng.randrange(256)
        data = bytes(data)
        scanned = known.scan(data)
        if scanned is None:
            continue
        taken += 1
        decoded, intact = protocol.decode(data, check_from_worker, faults)
        assert intact and len(decoded) == len(scanned[0])
        assert [r['job_id'] for r in decoded] == scanned[0]
        assert set(r['worker_id'] for r in decoded) == set([scanned[1]])
    assert taken > 300


def test_shapes_compiled_in_the_background_all_take_effect():
    import sys
    known = ResultShapes(background=True)
    orders = [KEYS]
    for extra in ('status', 'reconnects', 'delete_after'):
        orders.append(orders[-1] + (text_type(extra),))
    interval = getattr(sys, 'getswitchinterval', lambda: None)()
    for keys in orders:     # faster than a compile: the thread coalesces
        assert known.add(keys)
    assert known.settle(timeout=30)
    assert known._compiler is None
    # Each shape, the last learned included, is in the pattern now.
    for count, keys in enumerate(orders):
        fields = record(job_id=count + 1)
        for key in keys[len(KEYS):]:
            fields[key] = 3
        assert known.scan(message(fields)) == ([count + 1], 2, None)
    # The GIL's switch interval is the process's own again.
    assert getattr(sys, 'getswitchinterval', lambda: None)() == interval
    assert ResultShapes().settle() is True      # nothing ever to compile


def test_the_values_of_the_keys_asked_for_come_with_a_scan():
    open_loop = record(job_id=3, intended_start=1000.0)
    known = shapes(KEYS, tuple(open_loop))
    data = message(record(job_id=1), record(job_id=2), open_loop,
                   record(job_id=4, size=7))
    assert known.scan(data)[2] is None        # nothing asked for
    known.capture([u'type', u'size', (u'completed_at', u'intended_start')])
    asked = known._pattern
    known.capture([u'size'])                  # asked already: no compile
    assert known._pattern is asked
    job_ids, worker_id, (captured, values) = known.scan(data)
    assert (job_ids, worker_id) == ([1, 2, 3, 4], 2)
    values = list(values)
    # Equal values, equal tuples: the ids are not among them.
    assert values[0] == values[1] != values[3]
    assert [captured.record(v) for v in values] == [
        {u'type': u'upload_object', u'size': 6042}] * 2 + [
        {u'type': u'upload_object', u'size': 6042,
         u'completed_at': 1795636700.8471718},
        {u'type': u'upload_object', u'size': 7}]

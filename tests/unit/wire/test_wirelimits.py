"""The wire's bounds in bytes, derived from what a legitimate peer sends
(ssbench.wire.wirelimits; the sockets' options: test_transport.py)."""
from __future__ import absolute_import, division, print_function

from ssbench.load import scenario
from ssbench.wire import protocol
from ssbench.wire.wirelimits import (
    CONTROL_RCVHWM, CONTROL_RECORDS, CURVE_OVERHEAD, LARGEST_HEARTBEAT,
    LARGEST_JOB, MARGIN, MAX_CONTROL_MESSAGE, MAX_MASTER_MESSAGE, OVERSTEP,
    MAX_RESULTS_MESSAGE, RESULT_RECORDS, RESULTS_RCVHWM, RESULTS_SPLIT,
    WORKER_RCVHWM, bound, excess, queued_bytes)

MIB = 1024 * 1024


def test_each_bound_is_the_largest_legitimate_message_and_a_margin():
    assert bound(1000) == 1000 + CURVE_OVERHEAD + MARGIN
    assert bound(1000, 3) == 3000 + CURVE_OVERHEAD + MARGIN
    assert MAX_CONTROL_MESSAGE == bound(LARGEST_HEARTBEAT, 2)
    assert MAX_RESULTS_MESSAGE == bound(RESULTS_SPLIT, 8)
    assert MAX_MASTER_MESSAGE == bound(LARGEST_JOB)
    assert LARGEST_HEARTBEAT == 2 * 100000 * 9 + 16 * 1024
    assert OVERSTEP == {'heartbeat': 2, 'results': 8, 'jobs': 1}


def test_what_the_sockets_took_before_is_read_and_logged():
    # Frames of 2 and 8 MiB (the former bounds) are dropped and logged,
    # not only cut off.
    assert LARGEST_HEARTBEAT < 2 * MIB < MAX_CONTROL_MESSAGE
    assert RESULTS_SPLIT < 8 * MIB < MAX_RESULTS_MESSAGE


def test_one_connection_queues_a_few_megabytes_at_the_master():
    # The full queue and the frame being read.
    assert queued_bytes(10, 4) == 50
    work = queued_bytes(MAX_CONTROL_MESSAGE, CONTROL_RCVHWM)
    results = queued_bytes(MAX_RESULTS_MESSAGE, RESULTS_RCVHWM)
    assert (work, results) == (11095011, 25362531)
    assert work + results < 40 * MIB
    assert queued_bytes(MAX_MASTER_MESSAGE, WORKER_RCVHWM) < 80 * MIB


def test_the_largest_job_fits():
    # A size class's name as long as a scenario file may be, three times
    # in a job (its size_str, its objects' names, a listing's prefix),
    # in a container named after a policy as long as a command line's
    # argument may be (Linux's MAX_ARG_STRLEN).
    text = 'n' * scenario.MAX_SCENARIO_BYTES
    job = dict((key, protocol.INT64 - 1) for key in protocol.JOB_KEYS)
    job.update(type='CREATE_OBJECT', size_str=text, name=text + '_000001',
               container='ssbench_000001_' + 'p' * 131072,
               large_object='dlo', prefix=text, intended_start=1e300,
               send_lag=1e300)
    assert len(protocol.pack([job, protocol.clock_probe(1e300)])) <= \
        LARGEST_JOB


def test_a_configure_fits():
    configure = protocol.configure_job(
        1e300, 1e300, protocol.INT64 - 1, retry_backoff=[1e300, 1e300],
        s3={'endpoint_url': 'u' * 8192, 'addressing': 'virtual',
            'signed_payload': True, 'access_key': 'a' * 1024,
            'region': 'r' * 256, 'service': 's3',
            'keys': dict(('2026%04d' % day, 'k' * 64)
                         for day in range(400))})
    assert len(protocol.pack([configure])) <= LARGEST_JOB


def test_excess_names_what_a_worker_never_sends():
    records = protocol.pack([{}] * 17)
    assert excess(records, 100, 16) == \
        'message of more records than a worker sends'
    assert excess(records, 100, 17) is None
    assert excess(records, len(records) - 1, 17) == \
        'message larger than a worker sends'
    many = protocol.pack([1] * 70000)      # a 32-bit array header
    assert excess(many, len(many), 69999) == \
        'message of more records than a worker sends'
    assert excess(many, len(many), RESULT_RECORDS) is None
    # Not an array, or cut short: decode() says what is wrong with it.
    for data in (b'', b'\xdc', b'\xdd\x00', protocol.pack({'a': 1}),
                 protocol.pack([{}] * 15)):
        assert excess(data, 100, CONTROL_RECORDS) is None

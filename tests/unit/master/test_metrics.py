from __future__ import absolute_import, division, print_function

import sys

import mock
import pytest

from ssbench.errors import UsageError
from ssbench.master import metrics
from ssbench.master.exposition import render
from ssbench.master.livestats import LiveStats
from ssbench.measure import loghist
from ssbench.master.liveview import Snapshot


@pytest.mark.parametrize('text, address', [
    ('9100', ('127.0.0.1', 9100)),
    (':9100', ('127.0.0.1', 9100)),
    ('0.0.0.0:9100', ('0.0.0.0', 9100)),
    ('[::1]:0', ('::1', 0)),
    ('bench-host:80', ('bench-host', 80)),
])
def test_address_defaults_to_loopback(text, address):
    assert metrics.parse_address(text) == address


@pytest.mark.parametrize('text', ['', 'host', 'host:', ':99999', '::1:80',
                                  'a:b'])
def test_bad_addresses_are_refused(text):
    with pytest.raises(ValueError):
        metrics.parse_address(text)


def test_a_missing_client_is_one_line_naming_the_extra():
    with mock.patch.dict(sys.modules, {'prometheus_client': None}):
        with pytest.raises(UsageError) as caught:
            metrics.require_client()
    assert 'ssbench[metrics]' in str(caught.value)
    assert '\n' not in str(caught.value)


def _snapshot():
    now = [100.0]
    stats = LiveStats(lambda: now[0])
    stats.start_phase('benchmark', total=10)
    stats.add([{'type': 'get_object', 'size_str': 'tiny', 'status': 200,
                'first_byte_latency': 0.003, 'last_byte_latency': latency,
                'size': 1000, 'retries': 1}
               for latency in (0.003, 0.005, 0.1, 500.0)])
    stats.add([{'type': 'delete_object', 'size_str': 'tiny',
                'exception': 'x', 'status': None, 'error_class': 'timeout',
                'retries': 2, 'reconnects': 1}])
    now[0] += 2
    stats.end_phase()
    return Snapshot(stats.totals(), {'benchmark': 2.0}, 'benchmark', 0.5,
                    workers=3, saturated=1, intended_rate=100.0,
                    achieved_rate=98.5, events={'mark': 2})


def _parsed(snapshot, openmetrics):
    """{(sample name, label pairs...): value} of the exposition of a
    snapshot, as prometheus-client's parser of that format reads it."""
    if openmetrics:
        from prometheus_client.openmetrics.parser import \
            text_string_to_metric_families
    else:
        from prometheus_client.parser import text_string_to_metric_families
    text = render(metrics.families(snapshot), openmetrics).decode('utf-8')
    out = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            key = (sample[0],) + tuple(sorted(sample[1].items()))
            out[key] = sample[2]
    return out


def _samples(snapshot):
    samples = _parsed(snapshot, False)
    assert _parsed(snapshot, True) == samples
    return samples


def test_families_name_requests_bytes_latency_workers_and_rates():
    samples = _samples(_snapshot())
    phase = ('phase', 'benchmark')
    get = ('operation', 'get_object')
    assert samples[('ssbench_requests_total', get, ('outcome', '200'),
                    phase, ('result', 'ok'), ('size', 'tiny'))] == 4
    assert samples[('ssbench_requests_total',
                    ('operation', 'delete_object'), ('outcome', 'timeout'),
                    phase, ('result', 'error'), ('size', 'tiny'))] == 1
    assert samples[('ssbench_object_bytes_total', get, phase)] == 4000
    assert ('ssbench_object_bytes_total', ('operation', 'delete_object'),
            phase) not in samples
    assert samples[('ssbench_retries_total', get, phase)] == 4
    assert samples[('ssbench_reconnects_total',
                    ('operation', 'delete_object'), phase)] == 1
    bucket = 'ssbench_last_byte_latency_seconds_bucket'
    # Cumulative, at 10 ** (k / 4) seconds from 1 ms to 100 s.
    assert samples[(bucket, ('le', '0.001'), get, phase)] == 0
    assert samples[(bucket, ('le', '0.00316228'), get, phase)] == 1
    assert samples[(bucket, ('le', '0.00562341'), get, phase)] == 2
    assert samples[(bucket, ('le', '0.177828'), get, phase)] == 3
    assert samples[(bucket, ('le', '100'), get, phase)] == 3
    assert samples[(bucket, ('le', '+Inf'), get, phase)] == 4
    assert len([key for key in samples if key[0] == bucket and
                key[2:] == (get, phase)]) == 22
    assert samples[('ssbench_last_byte_latency_seconds_count', get,
                    phase)] == 4
    assert samples[('ssbench_last_byte_latency_seconds_sum', get,
                    phase)] == pytest.approx(500.108)
    assert samples[('ssbench_phase', phase)] == 1
    assert samples[('ssbench_phase_elapsed_seconds', phase)] == 2.0
    assert samples[('ssbench_phase_fraction_done',)] == 0.5
    assert samples[('ssbench_workers_connected',)] == 3
    assert samples[('ssbench_workers_saturated',)] == 1
    assert samples[('ssbench_open_loop_intended_rate',)] == 100.0
    assert samples[('ssbench_open_loop_achieved_rate',)] == 98.5
    # Every stored event kind from 0, so that its first is an increase.
    assert samples[('ssbench_run_events_total', ('event', 'mark'))] == 2
    assert samples[('ssbench_run_events_total',
                    ('event', 'worker_lost'))] == 0
    assert len([key for key in samples
                if key[0] == 'ssbench_run_events_total']) == 6


def test_export_edges_are_every_tenth_bin_edge():
    assert metrics.EXPORT_EDGES[0] == 0.001
    assert metrics.EXPORT_EDGES[-1] == 100.0
    assert metrics.EXPORT_EDGES[4] == 0.01
    for b, edge in zip(metrics.EXPORT_BINS, metrics.EXPORT_EDGES):
        assert (b - loghist.SHIFT) % metrics.EXPORT_STEP == 0
        assert loghist.bin_of(edge * 1.000001) == b
        assert loghist.bin_of(edge * 0.999999) == b - 1


def test_a_closed_loop_run_has_no_rate_gauges():
    names = set(key[0] for key in _samples(Snapshot()))
    assert 'ssbench_open_loop_intended_rate' not in names
    assert 'ssbench_workers_connected' in names
    assert 'ssbench_suite_step' not in names


def test_a_suite_step_is_a_gauge_labelled_with_its_values():
    samples = _samples(Snapshot(step=(3, 8, 'u32.rate400')))
    assert samples[('ssbench_suite_step', ('values', 'u32.rate400'))] == 3
    assert samples[('ssbench_suite_steps',)] == 8

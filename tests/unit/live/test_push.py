from __future__ import absolute_import, division, print_function

import base64
import calendar

import pytest

from ssbench.live import push
from ssbench.live.livestats import LiveStats
from ssbench.live.liveview import Snapshot


def test_the_run_id_is_the_name_and_the_utc_start():
    started = calendar.timegm((2026, 12, 7, 11, 34, 5, 0, 0, 0))
    assert push.run_id('Small test', started) == \
        'Small test-2026-12-07.113405'


@pytest.mark.parametrize('job, run, path', [
    ('ssbench', 'Small test-2026-12-07.113405',
     '/metrics/job/ssbench/run/Small%20test-2026-12-07.113405'),
    ('ssbench', 'a/b', '/metrics/job/ssbench/run@base64/' +
     base64.urlsafe_b64encode(b'a/b').decode('ascii')),
    ('nightly', u'caf\xe9', '/metrics/job/nightly/run/caf%C3%A9'),
    ('', 'x', '/metrics/job@base64/=/run/x'),
])
def test_the_group_path_encodes_what_a_path_cannot_hold(job, run, path):
    assert push.group_path(job, run) == path


@pytest.mark.parametrize('url, parsed', [
    ('http://127.0.0.1:9091', ('127.0.0.1', 9091, '')),
    ('http://gw.example/', ('gw.example', 80, '')),
    ('http://[::1]:9091/prefix/', ('::1', 9091, '/prefix')),
])
def test_gateway_urls(url, parsed):
    assert push.parse_url(url) == parsed


@pytest.mark.parametrize('url', [
    '127.0.0.1:9091', 'https://gw:9091', 'http://', 'http://gw:port',
    'http://gw:9091/?x=1'])
def test_bad_gateway_urls_are_refused(url):
    with pytest.raises(ValueError):
        push.parse_url(url)


def _snapshot():
    now = [100.0]
    stats = LiveStats(lambda: now[0])
    stats.start_phase('benchmark', total=10)
    stats.add([{'type': 'get_object', 'size_str': 'tiny', 'status': 200,
                'first_byte_latency': 0.003, 'last_byte_latency': 0.01,
                'size': 1000, 'retries': 0}] * 3)
    now[0] += 2
    stats.end_phase()
    return Snapshot(stats.totals(), {'benchmark': 2.0}, 'benchmark', 0.5,
                    workers=0, saturated=0, intended_rate=100.0,
                    achieved_rate=90.0)


def _names(data):
    from prometheus_client.parser import text_string_to_metric_families
    return dict((family.name, family.samples) for family in
                text_string_to_metric_families(data.decode('utf-8')))


def test_a_push_while_running_is_what_the_endpoint_serves():
    from ssbench.live.exposition import render
    from ssbench.live.metrics import families
    snapshot = _snapshot()
    assert push.body(snapshot) == render(families(snapshot))


def test_the_final_push_marks_no_phase_running_and_no_workers():
    snapshot = _snapshot()
    assert set(push.LIVE_ONLY) <= set(_names(push.body(snapshot)))
    pushed = _names(push.body(push.final(snapshot), last=True))
    for name in push.LIVE_ONLY:
        assert name not in pushed
    requests = pushed['ssbench_requests']
    assert [(s.labels['operation'], s.value) for s in requests
            if s.name == 'ssbench_requests_total'] == [('get_object', 3.0)]
    assert 'ssbench_phase_elapsed_seconds' in pushed
    # The snapshot the endpoint serves is left as it was.
    assert snapshot.phase == 'benchmark'
    assert snapshot.fraction_done == 0.5


def test_families_without_a_sample_are_left_out():
    # No phase yet: ssbench_phase has no sample, which the gateway
    # would refuse.
    assert b'ssbench_phase ' not in push.body(Snapshot())
    assert b'# TYPE ssbench_phase gauge' not in push.body(Snapshot())


def test_a_failing_gateway_is_one_warning_for_the_run(monkeypatch, caplog):
    sent = []

    def refuse(address, path, data, timeout):
        sent.append((address, path, timeout))
        raise IOError('Connection refused')
    monkeypatch.setattr(push, '_put', refuse)
    pusher = push.Pusher('http://127.0.0.1:9/gw', 'run 1', job='nightly')
    pusher.publish(_snapshot())
    for _ in range(3):
        assert pusher.push(b'x') is False
    pusher.stop()
    assert sent == [(('127.0.0.1', 9), '/gw/metrics/job/nightly/run/run%201',
                     push.TIMEOUT)] * 4
    warnings = [r.getMessage() for r in caplog.records
                if r.levelname == 'WARNING']
    assert warnings == ['--push http://127.0.0.1:9/gw: the Pushgateway did '
                        'not take the figures (Connection refused)']


def test_stop_pushes_the_final_figures_of_the_last_snapshot(monkeypatch):
    bodies = []
    monkeypatch.setattr(push, '_put', lambda address, path, data, timeout:
                        bodies.append(data) or 202)
    pusher = push.Pusher('http://127.0.0.1:9091', 'r')
    pusher.stop()
    assert bodies == []          # nothing published, nothing to push
    snapshot = _snapshot()
    pusher.publish(snapshot)
    pusher.stop()
    assert bodies == [push.body(push.final(snapshot), last=True)]
    assert pusher.pushed == 1 and not pusher.warned


def test_an_error_status_is_a_failure_too(monkeypatch, caplog):
    monkeypatch.setattr(push, '_put', lambda *args: 400)
    assert push.Pusher('http://gw:9091', 'r').push(b'x') is False
    assert 'HTTP status 400' in caplog.text

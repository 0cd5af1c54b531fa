from __future__ import absolute_import, division, print_function

import socket
import time

import mock
import pytest

from ssbench.errors import UsageError
from ssbench.live import metrics
from ssbench.live.liveview import Snapshot
from tests.clocks import FakeClock
from tests.waiting import wait_for

from tests.unit.live.test_metrics import _snapshot


def _get(address, path='/metrics', accept=None):
    conn = socket.create_connection(address, timeout=10)
    try:
        request = 'GET %s HTTP/1.1\r\nHost: x\r\n' % path
        if accept:
            request += 'Accept: %s\r\n' % accept
        conn.sendall((request + '\r\n').encode('ascii'))
        data = b''
        while True:
            chunk = conn.recv(65536)
            if not chunk:
                break
            data += chunk
    finally:
        conn.close()
    head, _, body = data.partition(b'\r\n\r\n')
    return head.decode('latin-1'), body.decode('utf-8')


def test_the_server_answers_scrapes_from_its_own_thread():
    server = metrics.MetricsServer('127.0.0.1', 0, Snapshot())
    server.start()
    try:
        head, body = _get(server.address)
        assert head.startswith('HTTP/1.1 200')
        assert 'ssbench_workers_connected 0.0' in body
        server.publish(_snapshot())
        head, body = _get(server.address, accept='application/'
                          'openmetrics-text; version=1.0.0')
        assert 'application/openmetrics-text' in head
        assert body.endswith('# EOF\n')
        assert 'ssbench_workers_connected 3.0' in body
        assert _get(server.address, '/other')[0].startswith(
            'HTTP/1.1 404')
        assert server.scrapes == 2
    finally:
        began = time.time()
        server.stop(linger=False)        # scraped, yet no wait
    assert server.stopped
    assert time.time() - began < metrics.MAX_LINGER / 3
    with pytest.raises(socket.error):
        _get(server.address)


def test_after_the_run_it_waits_for_one_more_scrape_when_scraped():
    server = metrics.MetricsServer('127.0.0.1', 0, Snapshot())
    assert server.linger() == 0.0        # nobody scraped: no wait
    server.scraped_at = [10.0, 10.2, 10.7]
    assert server.linger() == 1.0        # twice the longest gap
    server.scraped_at = [10.0, 100.0]
    assert server.linger() == metrics.MAX_LINGER == 2.0
    server.scraped_at = [10.0]           # no gap known: the most
    assert server.linger() == metrics.MAX_LINGER
    server.server.listener.close()


def test_the_linger_is_bounded_and_a_ctrl_c_ends_it_at_once():
    clock = FakeClock(step=0.05)
    server = metrics.MetricsServer('127.0.0.1', 0, Snapshot(), monotonic=clock)
    server.start()
    server.scraped_at = [clock() - 100, clock()]
    began = clock.now
    server.stop()
    assert server.stopped
    assert metrics.MAX_LINGER <= clock.now - began < metrics.MAX_LINGER + 1

    server = metrics.MetricsServer('127.0.0.1', 0, Snapshot())
    server.start()
    server.scraped_at = [1.0, 2.0]
    with mock.patch.object(server.server, 'sleep',
                           side_effect=KeyboardInterrupt):
        with pytest.raises(KeyboardInterrupt):
            server.stop()
    wait_for(lambda: server.stopped, 10, 'the endpoint closed')


def test_a_port_in_use_is_one_line():
    taken = socket.socket()
    taken.bind(('127.0.0.1', 0))
    taken.listen(1)
    try:
        with pytest.raises(UsageError) as caught:
            metrics.MetricsServer('127.0.0.1', taken.getsockname()[1],
                                  Snapshot())
    finally:
        taken.close()
    assert 'cannot listen there' in str(caught.value)


def test_stop_waits_for_a_scraper_to_take_the_final_figures():
    import threading
    server = metrics.MetricsServer('127.0.0.1', 0, Snapshot())
    server.start()
    _get(server.address)
    # A scraper seen every 5 s: up to 10 s for its next scrape.
    server.scraped_at = [time.time() - 5, time.time()]
    server.publish(_snapshot())
    bodies = []
    late = threading.Timer(0.3, lambda: bodies.append(
        _get(server.address)[1]))
    late.start()
    began = time.time()
    server.stop()
    late.join(10)
    assert time.time() - began < 10
    assert server.scrapes == 2
    assert 'ssbench_workers_connected 3.0' in bodies[0]

from __future__ import absolute_import, division, print_function

import logging

from ssbench.live.liveview import LiveView, live_view
from ssbench.master.pipeline import Message
from ssbench.master.runevents import RunEvents
from ssbench.measure.needs import SCANNED
from tests.clocks import FakeClock


class Stream(object):
    def __init__(self):
        self.parts = []

    def write(self, text):
        self.parts.append(text)

    def flush(self):
        pass


class Tracker(object):
    workers = {'w1': None, 'w2': None}


class Schedule(object):
    rate = 50.0
    taken = 240


class Master(object):
    tracker = Tracker()
    schedule = None


class Metrics(object):
    def __init__(self):
        self.snapshots = []
        self.stopped = False

    def publish(self, snapshot):
        self.snapshots.append(snapshot)

    def stop(self, linger=True):
        self.stopped = 'lingered' if linger else 'at once'


def result():
    return {'type': 'get_object', 'size_str': 'tiny', 'status': 200,
            'first_byte_latency': 0.01, 'last_byte_latency': 0.02,
            'retries': 0}


def decoded(*records):
    return Message(None, list(records))


def test_a_phase_feeds_the_live_figures_drawn_and_published_now_and_then():
    clock = FakeClock(0.0)
    stream, sink = Stream(), Metrics()
    view = LiveView(status_stream=stream, metrics=sink, monotonic=clock,
                    width=lambda: 300)
    master = Master()
    view.begin(master, 'benchmark', 100)
    master.schedule = Schedule()
    for _ in range(8):
        clock.advance(0.25)
        view.results(decoded(result()))
        view.idle(clock())
    view.heartbeat({'worker_id': 'w1', 'window': 1.0, 'cpu': 0.95,
                    'loop_lag': 0.0, 'waiting': 0})
    # Drawn and published at the start and every 0.5 s, not every turn.
    assert len(sink.snapshots) == 5
    assert len(stream.parts) == 5
    assert '8/100 req' in view.line()
    assert view.line().endswith('workers 2 (1 saturated)')
    last = view.snapshot()
    assert last.workers == 2 and last.saturated == 1
    assert last.intended_rate == 50.0
    assert last.achieved_rate == 120.0       # 240 jobs in 2 s
    assert last.fraction_done == 0.08
    assert last.events == {}              # no events sink: none
    master.events = RunEvents()
    master.events.attach(object())     # kept, never flushed here
    master.events.mark()
    assert view.snapshot().events == {'mark': 1}
    view.close()
    assert stream.parts[-1] == '\n'          # the last line stays
    assert sink.stopped == 'lingered'
    assert sink.snapshots[-1].totals['benchmark'].count() == 8
    assert sink.snapshots[-1].elapsed == {'benchmark': 2.0}


def test_a_phase_ends_once():
    view = LiveView(monotonic=FakeClock(5.0))
    view.begin(Master(), 'cleanup')
    view.results(decoded(result(), result()))
    view.idle()
    assert view.stats.phase_done == 2
    view.end()
    view.end()                               # once is enough
    view.close()


def test_nothing_is_built_when_nothing_asks_for_it():
    assert live_view('chars') is None
    assert live_view('none') is None
    view = live_view('line')
    assert view.status is not None and view.metrics is None


def test_a_log_line_takes_the_place_of_the_status_line():
    root = logging.getLogger()
    handler = logging.StreamHandler(Stream())
    root.addHandler(handler)
    stream = Stream()
    view = live_view('line')
    view.status.stream = stream
    try:
        view.begin(Master(), 'benchmark')
        assert stream.parts[-1].startswith('\r\x1b[Kbenchmark')
        handler.handle(logging.makeLogRecord({'msg': 'a warning'}))
        assert stream.parts[-1] == '\r\x1b[K'     # the line is cleared
    finally:
        view.close()
        root.removeHandler(handler)
    assert handler.filters == []


def test_a_run_stopped_by_a_signal_does_not_wait_for_a_last_scrape():
    sink = Metrics()
    view = LiveView(metrics=sink, monotonic=FakeClock(0.0))
    master = Master()
    master.stop_requested = True
    view.begin(master, 'benchmark')
    view.close()
    assert sink.stopped == 'at once'


def test_a_message_checked_on_its_bytes_is_only_unpacked():
    from ssbench.wire import protocol
    view = LiveView(monotonic=FakeClock(5.0))
    assert view.needs == SCANNED             # the master may scan bytes
    view.begin(Master(), 'benchmark')
    data = protocol.pack([result(), result()])
    view.results(Message(data, entries=[None, None]))
    view.results(decoded(result()))
    assert view.stats.phase_done == 3
    view.close()
    assert view.stats.totals()['benchmark'].count() == 3


def test_a_message_with_captured_values_is_not_unpacked():
    class Captured(object):
        def record(self, values):
            return dict(result(), last_byte_latency=values[0])
    view = LiveView(monotonic=FakeClock(5.0))
    view.begin(Master(), 'benchmark')
    # No bytes to unpack: the values are all the view takes.
    view.results(Message(None, entries=[None] * 3,
                         captured=(Captured(), iter([(0.5,), (0.5,), (2,)]))))
    assert view.stats.phase_done == 3
    view.close()
    benchmark = view.stats.totals()['benchmark']
    assert benchmark.count() == 3
    assert benchmark.last_byte_sum == {'get_object': 3.0}

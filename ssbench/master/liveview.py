"""What a run shows while it runs: the status line on a terminal and the
Prometheus endpoint, both fed by one LiveStats from the callbacks the
master already has (ssbench.master.dispatch.Master.run_jobs' on_results
or on_raw, and on_idle, and on_heartbeat)."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.compat import monotonic
from ssbench.master.livestats import RAW_KEYS, LiveStats
from ssbench.master.statusline import INTERVAL, StatusLine, format_line


def unpack_raw(data):
    """The records of a message checked on its bytes, strings left raw
    (bytes): they unpack in about half the time of text."""
    import msgpack
    return msgpack.unpackb(data, raw=True, strict_map_key=False)


class Snapshot(object):
    """The figures a metrics scrape reads: built by the run loop, never
    changed afterwards, so another thread may read them as they are.

    totals: {phase: normalised livestats.Slot}; elapsed: {phase:
    seconds}; phase: the current one (None before the first);
    fraction_done: of the current phase (None when unknown); workers,
    saturated: counts; intended_rate, achieved_rate: a --rate run's jobs
    per second (None in a closed-loop run); step: (number, of, values) of
    a run-suite step, else None; events: {event: count} of the run
    events kept so far (ssbench.master.runevents).
    """

    def __init__(self, totals=None, elapsed=None, phase=None,
                 fraction_done=None, workers=0, saturated=0,
                 intended_rate=None, achieved_rate=None, step=None,
                 events=None):
        self.totals = totals or {}
        self.elapsed = elapsed or {}
        self.phase = phase
        self.fraction_done = fraction_done
        self.workers = workers
        self.saturated = saturated
        self.intended_rate = intended_rate
        self.achieved_rate = achieved_rate
        self.step = step
        self.events = events or {}


class LiveView(object):
    """Hooks a run's phases into LiveStats, redraws the status line on
    `status_stream` (None: no line) and publishes Snapshots to `metrics`
    (a ssbench.master.metrics.MetricsServer, or None), each at most every
    `interval` seconds from the run loop's idle callback."""

    def __init__(self, status_stream=None, metrics=None, clock=monotonic,
                 interval=INTERVAL, width=None):
        self.stats = LiveStats(clock)
        self.clock = clock
        self.interval = interval
        self.metrics = metrics
        self.master = None
        self.elapsed = {}          # phase -> seconds, of finished phases
        self._ticked_at = None
        self._next_tick = 0.0
        self._in_phase = False
        # (number, of, values) of the run-suite step running, or None.
        self.step = None
        self.status = None
        if status_stream is not None:
            self.status = StatusLine(status_stream, self.line,
                                     interval=interval, clock=clock,
                                     width=width)

    def attach(self, master):
        """Read workers and the open-loop schedule from `master` (a
        ssbench.master.dispatch.Master)."""
        self.master = master

    def _live_workers(self):
        return self.master.tracker.workers if self.master is not None \
            else {}

    def line(self):
        """The status line's text now."""
        workers = self._live_workers()
        return format_line(self.stats.window(), len(workers),
                           self.stats.saturated_count(workers), self.step)

    def phase(self, name, total=None, seconds=None, on_results=None,
              on_idle=None, on_heartbeat=None, on_raw=None):
        """Start phase `name`: (on_results, on_idle, on_heartbeat, on_raw)
        for Master.run_jobs and Master.on_heartbeat, the given ones (each
        may be None) with the live view's own added.

        A phase that has an `on_raw` is followed through it, each message
        once, and its on_results is left as given: so a message of plain
        successes that the master checks on its bytes (see run_jobs'
        on_done) is not decoded and checked field by field for the live
        view, only unpacked (one C call, strings left raw), which costs a
        fraction of it."""
        self.end_phase()
        stats = self.stats
        stats.start_phase(name, total, seconds)
        self._in_phase = True
        self._ticked_at = None
        self._next_tick = 0.0
        add = stats.add
        tick = self.tick
        heartbeat = stats.heartbeat

        def results(records):
            on_results(records)
            add(records)

        def idle():
            on_idle()
            tick()

        def heartbeats(record):
            on_heartbeat(record)
            heartbeat(record)

        def messages(data, records):
            on_raw(data, records)
            if records is None:
                # A message checked on its bytes: unpacked with raw
                # strings, the quicker way.
                add(unpack_raw(data), RAW_KEYS)
            else:
                add(records)
        self.tick()
        if on_raw is not None:
            return (on_results, tick if on_idle is None else idle,
                    heartbeat if on_heartbeat is None else heartbeats,
                    messages)
        return (add if on_results is None else results,
                tick if on_idle is None else idle,
                heartbeat if on_heartbeat is None else heartbeats, None)

    def end_phase(self):
        """The current phase is over: its figures are published and the
        status line is left on screen with them."""
        stats = self.stats
        if not self._in_phase:
            return
        self._in_phase = False
        self.elapsed[stats.phase] = stats.elapsed()
        stats.end_phase()
        if self.status is not None:
            self.status.finish()
        self.publish()

    def tick(self):
        """From the run loop, once per turn: move LiveStats to the next
        second when one began; redraw and publish when `interval` has
        passed.  One clock reading and one comparison otherwise."""
        now = self.clock()
        if now < self._next_tick:
            return
        self.stats.turn(now)
        if self._ticked_at is None or now - self._ticked_at >= \
                self.interval:
            self._ticked_at = now
            if self.status is not None:
                self.status.draw(now)
            self.publish()
        self._next_tick = min(self._ticked_at + self.interval,
                              int(now) + 1)

    def snapshot(self):
        stats = self.stats
        elapsed = dict(self.elapsed)
        if self._in_phase:
            elapsed[stats.phase] = stats.elapsed()
        workers = self._live_workers()
        intended = achieved = None
        schedule = getattr(self.master, 'schedule', None)
        if schedule is not None and stats.phase == 'benchmark':
            intended = schedule.rate
            seconds = stats.elapsed()
            achieved = schedule.taken / seconds if seconds > 0 else 0.0
        events = getattr(self.master, 'events', None)
        return Snapshot(stats.totals(), elapsed, stats.phase,
                        stats.fraction_done(), len(workers),
                        stats.saturated_count(workers), intended, achieved,
                        self.step, events and dict(events.counts))

    def publish(self):
        if self.metrics is not None:
            self.metrics.publish(self.snapshot())

    def close(self, linger=True):
        """End the last phase and the endpoint (after its final scrape
        if `linger` and the run was not stopped by a signal, see
        MetricsServer.stop)."""
        self.end_phase()
        if self.status is not None:
            _ClearBeforeLogging.remove()
        if self.metrics is not None:
            stopped = getattr(self.master, 'stop_requested', False)
            self.metrics.stop(linger and not stopped)
            self.metrics = None


def live_view(progress, metrics_address=None):
    """The LiveView a run needs for its progress `mode` (see
    ssbench.master.progress.mode: 'line' draws on stderr) and a
    --metrics (host, port), or None when neither asks for one.  The
    endpoint is listening (and serving) once this returns."""
    import sys
    metrics = None
    if metrics_address is not None:
        from ssbench.master.metrics import MetricsServer
        metrics = MetricsServer(metrics_address[0], metrics_address[1],
                                Snapshot())
    if metrics is None and progress != 'line':
        return None
    view = LiveView(status_stream=sys.stderr if progress == 'line'
                    else None, metrics=metrics)
    if view.status is not None:
        _ClearBeforeLogging.install(view.status)
    if metrics is not None:
        metrics.start()
    return view


class _ClearBeforeLogging(logging.Filter):
    """On the root logger's handlers while a status line is shown: a log
    line takes the status line's place (redrawn below it at the next
    tick) instead of being written after its text."""

    def __init__(self, status):
        logging.Filter.__init__(self)
        self.status = status

    def filter(self, record):
        self.status.clear()
        return True

    @classmethod
    def install(cls, status):
        for handler in logging.getLogger().handlers:
            handler.addFilter(cls(status))

    @classmethod
    def remove(cls):
        for handler in logging.getLogger().handlers:
            for installed in [f for f in handler.filters
                              if isinstance(f, cls)]:
                handler.removeFilter(installed)

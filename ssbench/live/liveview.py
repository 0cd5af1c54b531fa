"""What a run shows while it runs: the status line on a terminal and the
Prometheus endpoint, both fed by one LiveStats, a sink of the master's
results (docs/internals.rst, "Results: one pipeline")."""
from __future__ import absolute_import, division, print_function

import msgpack

from ssbench.compat import monotonic
from ssbench.live.livestats import FIELDS, RAW_KEYS, LiveStats
from ssbench.live.statusline import (INTERVAL, BeforeLogging, StatusLine,
                                     format_line)
from ssbench.measure.needs import SCANNED


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
    """A sink of every phase's results: counts them in LiveStats, redraws
    the status line on `status_stream` (None: no line; with `ops`,
    a row per operation under it: ssbench.live.opsview) and publishes
    Snapshots to `metrics` (with publish() and stop(): the --metrics
    endpoint, ssbench.live.metrics.MetricsServer, or the --push
    ssbench.live.push.Pusher, or both; or None), each at most every
    `interval` seconds of the `monotonic` clock, from the run loop's idle
    turns.

    Of a message the master checked on its bytes it takes the values of
    the keys it counts (`fields`) as the check captured them, or when
    there are none, unpacks it (one C call, strings left raw): it needs
    no record decoded and checked field by field."""

    needs = SCANNED
    fields = FIELDS

    def __init__(self, status_stream=None, metrics=None, monotonic=monotonic,
                 interval=INTERVAL, width=None, ops=False):
        self.stats = LiveStats(monotonic)
        self.monotonic = monotonic
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
            if ops:
                from ssbench.live import opsview
                self.status = opsview.StatusBlock(
                    status_stream, lambda: opsview.block(self),
                    width, monotonic)
            else:
                self.status = StatusLine(status_stream, self.line,
                                         width)
            # A log line takes the status line's place (redrawn below it
            # at the next tick) instead of being written after its text.
            self.logging = BeforeLogging(self.status.clear)
        self.heartbeat = self.stats.heartbeat

    def _live_workers(self):
        return self.master.tracker.workers if self.master is not None \
            else {}

    def line(self):
        """The status line's text now."""
        workers = self._live_workers()
        return format_line(self.stats.window(), len(workers),
                           self.stats.saturated_count(workers), self.step)

    def begin(self, master, name, total=None, seconds=None):
        """Phase `name` starts (`total` requests, or `seconds` long, when
        known); workers and the open-loop schedule are read from `master`
        (a ssbench.master.dispatch.Master)."""
        self.end()
        self.master = master
        self.stats.start_phase(name, total, seconds)
        self._in_phase = True
        self._ticked_at = None
        self._next_tick = 0.0
        self.idle()

    def results(self, message):
        if message.captured is not None:
            self.stats.add_captured(message.captured, message.count)
        elif message.scanned:
            # Strings left raw (bytes) unpack in half the time of text.
            self.stats.add(msgpack.unpackb(message.data, raw=True,
                                           strict_map_key=False), RAW_KEYS)
        else:
            self.stats.add(message.records)

    def end(self):
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

    def idle(self, now=None):
        """From the run loop, once per turn (`now` on the monotonic clock):
        move LiveStats to the next second when one began; redraw and
        publish when `interval` has passed.  One comparison otherwise."""
        if now is None:
            now = self.monotonic()
        if now < self._next_tick:
            return
        self.stats.turn(now)
        if self._ticked_at is None or now - self._ticked_at >= \
                self.interval:
            self._ticked_at = now
            if self.status is not None:
                self.status.draw()
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
        self.end()
        if self.status is not None:
            self.logging.remove()
        if self.metrics is not None:
            stopped = getattr(self.master, 'stop_requested', False)
            self.metrics.stop(linger and not stopped)
            self.metrics = None


def live_view(progress, metrics_address=None, push=None):
    """The LiveView a run needs for its progress `mode` (see
    ssbench.live.progress.mode: 'line' and 'ops' draw on stderr), a
    --metrics (host, port) and a --push ssbench.live.push.Pusher, or
    None when none asks for one.  The endpoint is listening (and serving)
    once this returns."""
    import sys
    outlets = []
    if metrics_address is not None:
        from ssbench.live.metrics import MetricsServer
        outlets.append(MetricsServer(metrics_address[0], metrics_address[1],
                                     Snapshot()))
    if push is not None:
        outlets.append(push)
    shown = progress in ('line', 'ops')
    if not outlets and not shown:
        return None
    view = LiveView(status_stream=sys.stderr if shown else None,
                    metrics=_Outlets(outlets) if outlets else None,
                    ops=progress == 'ops')
    if view.status is not None:
        view.logging.install()
    for outlet in outlets:
        outlet.start()
    return view


class _Outlets(object):
    """The endpoint and the push as one: each takes every Snapshot."""

    def __init__(self, outlets):
        self.outlets = outlets

    def publish(self, snapshot):
        for outlet in self.outlets:
            outlet.publish(snapshot)

    def stop(self, linger=True):
        for outlet in self.outlets:
            outlet.stop(linger)

"""`--metrics ADDR:PORT`: the run's figures for Prometheus (OpenMetrics or
the Prometheus text format, as the scraper asks).

The master's run loop publishes a Snapshot (ssbench.master.liveview) at
most twice a second; MetricsServer answers scrapes from a thread of its
own (ssbench.master.scrapeserver: no client can stall it) with families()
of the latest one, so a scrape never touches what the loop is changing
and the loop never waits for a scrape.
"""
from __future__ import absolute_import, division, print_function

import logging
import re

from ssbench.compat import monotonic
from ssbench.errors import UsageError
from ssbench.master.exposition import OPENMETRICS, Family, labels_text, \
    render
from ssbench.master.livestats import EXPORT_BINS, EXPORT_STEP  # noqa
from ssbench.master.scrapeserver import ScrapeServer
from ssbench.measure import loghist
from ssbench.results import eventrecords

log = logging.getLogger(__name__)

EXTRA_HINT = ("--metrics needs the prometheus-client package: install "
              "ssbench[metrics] (pip install 'ssbench[metrics]')")
# After the run, how long the master may wait for a scraper to take the
# final figures: twice the gap seen between scrapes, at most this.
MAX_LINGER = 2.0
# The latency histograms' bucket edges: every EXPORT_STEP-th bin edge of
# ssbench.measure.loghist (4 a decade), from 1 ms to 100 s (defined with
# the totals that keep latencies at that resolution).
EXPORT_EDGES = tuple(loghist.bin_edge(b) for b in EXPORT_BINS)
EXPORT_LABELS = tuple('%g' % edge for edge in EXPORT_EDGES)
_ADDRESS = re.compile(r'^(?:\[(?P<v6>[^\]]+)\]|(?P<host>[^:\[\]]*)):'
                      r'(?P<port>\d+)$')


def parse_address(text):
    """(host, port) of ADDR:PORT, [V6ADDR]:PORT, :PORT or PORT; no
    address means loopback.  Raises ValueError."""
    text = text.strip()
    if text.isdigit():
        host, port = '', text
    else:
        match = _ADDRESS.match(text)
        if match is None:
            raise ValueError('%r is not ADDR:PORT' % (text,))
        host = match.group('v6') or match.group('host') or ''
        port = match.group('port')
    port = int(port)
    if not 0 <= port <= 65535:
        raise ValueError('port %d is not 0-65535' % port)
    return host or '127.0.0.1', port


def require_client():
    """prometheus_client's exposition module (its content negotiation), or
    UsageError naming the extra that installs it."""
    try:
        from prometheus_client import exposition
    except ImportError:
        raise UsageError(EXTRA_HINT)
    return exposition


def _labels(pairs, cache={}):
    """labels_text(pairs), remembered: a run has a few hundred label
    sets, written again at every scrape."""
    text = cache.get(pairs)
    if text is None:
        if len(cache) > 10000:
            cache.clear()
        text = cache[pairs] = labels_text(pairs)
    return text


def _by_kind(histogram):
    """{operation: [(bin, count)] sorted} of {(operation, bin): count}."""
    out = {}
    for (kind, index), count in histogram.items():
        out.setdefault(kind, []).append((index, count))
    for counts in out.values():
        counts.sort()
    return out


def _bucket_samples(counts):
    """[(le, cumulative count)] at EXPORT_EDGES of one operation's sorted
    [(bin, count)]: bins below EXPORT_BINS[i] count under
    EXPORT_EDGES[i]."""
    out = []
    seen = 0
    i = 0
    for b, edge in zip(EXPORT_BINS, EXPORT_LABELS):
        while i < len(counts) and counts[i][0] < b:
            seen += counts[i][1]
            i += 1
        out.append((edge, seen))
    out.append(('+Inf', sum(count for _, count in counts)))
    return out


def families(snapshot):
    """The metric families of a Snapshot (ssbench.master.exposition.Family
    objects)."""
    requests = Family(
        'ssbench_requests', 'counter', 'Requests done, by phase, '
        'operation, size class, outcome (HTTP status, "ok" for a no-op, or '
        'the error class of a failure without a status) and result (ok or '
        'error)')
    moved = Family(
        'ssbench_object_bytes', 'counter', 'Object bytes uploaded (CREATE, '
        'UPDATE) or downloaded (READ) by requests that succeeded (none for '
        'a population object its HEAD found there)')
    retries = Family('ssbench_retries', 'counter', 'Request attempts '
                     'retried')
    reconnects = Family('ssbench_reconnects', 'counter', 'Connections '
                        'found closed and opened again')
    latency = dict(
        (name, Family(
            'ssbench_%s_latency_seconds' % name, 'histogram',
            '%s latency of requests that succeeded; in an open-loop '
            '(--rate) run, response time from the intended start' % title))
        for name, title in (('first_byte', 'First-byte'),
                            ('last_byte', 'Last-byte')))
    elapsed = Family('ssbench_phase_elapsed_seconds', 'gauge',
                     'Seconds each phase has run (so far, for the current '
                     'one)')
    for phase, slot in sorted(snapshot.totals.items()):
        for (kind, size, outcome, failed), cell in sorted(
                slot.requests.items(), key=lambda item: '%s' % (item[0],)):
            requests.add(_labels((
                ('phase', phase), ('operation', kind), ('size', size),
                ('outcome', outcome),
                ('result', 'error' if failed else 'ok'))), cell[0],
                '_total')
        histograms = (
            (latency['first_byte'], _by_kind(slot.first_byte),
             slot.first_byte_sum),
            (latency['last_byte'], _by_kind(slot.last_byte),
             slot.last_byte_sum))
        kinds = set(key[0] for key in slot.requests)
        for kind in sorted(kinds, key=str):
            labels = (('phase', phase), ('operation', kind))
            text = _labels(labels)
            if kind != 'delete_object':
                moved.add(text, sum(
                    cell[1] for key, cell in slot.requests.items()
                    if key[0] == kind and not key[3]), '_total')
            retries.add(text, slot.retries.get(kind, 0), '_total')
            reconnects.add(text, slot.reconnects.get(kind, 0), '_total')
            for family, by_kind, sums in histograms:
                if kind in sums:
                    buckets = _bucket_samples(by_kind.get(kind, []))
                    for le, count in buckets:
                        family.add(_labels(labels + (('le', le),)),
                                   count, '_bucket')
                    family.add(text, buckets[-1][1], '_count')
                    family.add(text, sums[kind], '_sum')
        elapsed.add(_labels((('phase', phase),)),
                    snapshot.elapsed.get(phase, 0.0))
    current = Family('ssbench_phase', 'gauge', '1 for the phase the run is '
                     'in')
    if snapshot.phase is not None:
        current.add(labels_text((('phase', snapshot.phase),)), 1)
    out = [requests, moved, retries, reconnects, latency['first_byte'],
           latency['last_byte'], current, elapsed]
    if snapshot.fraction_done is not None:
        out.append(_gauge('ssbench_phase_fraction_done',
                          'Fraction of the current phase done (of its '
                          'requests, or of its seconds for a timed run)',
                          snapshot.fraction_done))
    # Every kind from 0, so that the first of each is an increase a
    # dashboard's annotation query sees.
    events = Family('ssbench_run_events', 'counter', 'Run events stored '
                    'in the stats file, by event (docs/live-view.rst)')
    for event in eventrecords.STORED:
        events.add(_labels((('event', event),)),
                   snapshot.events.get(event, 0), '_total')
    out.append(events)
    out.append(_gauge('ssbench_workers_connected', 'Workers heard from '
                      'lately', snapshot.workers))
    out.append(_gauge('ssbench_workers_saturated', 'Connected workers '
                      'whose last health window passed a limit (loop lag '
                      'or CPU)', snapshot.saturated))
    if snapshot.intended_rate is not None:
        out.append(_gauge('ssbench_open_loop_intended_rate',
                          'Jobs per second the open-loop schedule (--rate) '
                          'intends', snapshot.intended_rate))
        out.append(_gauge('ssbench_open_loop_achieved_rate',
                          'Jobs per second the open-loop schedule sent, '
                          'since the benchmark began',
                          snapshot.achieved_rate))
    if snapshot.step is not None:
        number, of, values = snapshot.step
        step = Family('ssbench_suite_step', 'gauge', 'The run-suite step '
                      'running (its number), labelled with the values it '
                      'tries')
        step.add(labels_text((('values', values),)), number)
        out.append(step)
        out.append(_gauge('ssbench_suite_steps', 'Steps of the run-suite '
                          'suite (known so far, for a capacity search)', of))
    return out


def _gauge(name, help_text, value):
    family = Family(name, 'gauge', help_text)
    family.add('', value)
    return family


class MetricsServer(object):
    """An HTTP endpoint answering GET /metrics (and /) with the latest
    published Snapshot from a thread of its own that no client can
    stall (ssbench.master.scrapeserver); see the module docstring."""

    def __init__(self, host, port, snapshot, clock=monotonic):
        self.exposition = require_client()
        self.snapshot = snapshot
        self.clock = clock
        self.scrapes = 0
        self.scraped_at = []       # the last few scrape times
        self.published = 0
        self._body = None          # (snapshot, openmetrics, bytes)
        self.server = ScrapeServer(host, port, self._respond, self._sent,
                                   clock=clock)
        self.address = self.server.address

    @property
    def stopped(self):
        return self.server.stopped

    def start(self):
        self.server.start()
        log.info('Metrics for Prometheus at http://%s/metrics',
                 _url_host(self.address))

    def publish(self, snapshot):
        """Serve `snapshot` from now on (from the run loop's thread)."""
        self.snapshot = snapshot
        self.published += 1

    def stop(self, linger=True):
        """End the endpoint.  With `linger`, if anything scraped it, wait
        for one more scrape first (so the final figures are seen), at
        most linger() seconds; a KeyboardInterrupt meanwhile ends it at
        once."""
        wait = self.linger() if linger else 0.0
        try:
            if wait:
                seen = self.scrapes
                deadline = self.clock() + wait
                while self.scrapes == seen and self.clock() < deadline:
                    self.server.sleep(0.02)
        finally:
            self.server.stop()

    def linger(self):
        """Seconds to wait for the final scrape: none when nothing
        scraped, twice the longest gap seen between the last scrapes,
        at most MAX_LINGER (a scraper that comes more seldom misses the
        last second of figures)."""
        times = self.scraped_at
        if not times:
            return 0.0
        if len(times) < 2:
            return MAX_LINGER
        gap = max(b - a for a, b in zip(times, times[1:]))
        return min(MAX_LINGER, 2 * gap)

    def _respond(self, head):
        lines = head.split('\r\n')
        words = lines[0].split()
        if len(words) < 2 or words[0] != 'GET':
            return '405 Method Not Allowed', 'text/plain', b'GET only\n'
        path = words[1].split('?', 1)[0]
        if path not in ('/', '/metrics'):
            return '404 Not Found', 'text/plain', b'see /metrics\n'
        accept = ''
        for line in lines[1:]:
            name, _, value = line.partition(':')
            if name.strip().lower() == 'accept':
                accept = value.strip()
        # prometheus-client tells which format the scraper takes; the
        # body is written here (ssbench.master.exposition), once per
        # snapshot and format however many scrape it.
        content_type = self.exposition.choose_encoder(accept)[1]
        openmetrics = content_type.startswith(OPENMETRICS)
        snapshot = self.snapshot
        cached = self._body
        if cached is None or cached[0] is not snapshot or \
                cached[1] != openmetrics:
            cached = self._body = (snapshot, openmetrics, render(
                families(snapshot), openmetrics))
        return '200 OK', content_type, cached[2]

    def _sent(self, status):
        if status.startswith('200'):
            self.scrapes += 1
            self.scraped_at = (self.scraped_at + [self.clock()])[-5:]


def _url_host(address):
    host, port = address
    return '[%s]:%d' % (host, port) if ':' in host else '%s:%d' % (host,
                                                                   port)

"""Figures of a run while it runs, from the results the master receives.

LiveStats takes each list of result records once (add()), and nothing per
message on the wire; or, of a message the master checked on its bytes,
each record's values of the keys it reads (FIELDS, as
ssbench.wire.resultbytes captures them: add_captured()), which it counts
as they are, in C, and decodes once per distinct set (settle()) when the
figures are read or the second ends: a --noop run's results differ in
few of those values.  It keeps two things, both of bounded size:

- a ring of WINDOW one-second Slots, each counting requests and bytes
  per (operation, size class, outcome, failed), retries and reconnects
  per operation, and first- and last-byte latency per (operation, bin
  of ssbench.measure.loghist); the status line's rate, percentiles and
  errors come from the ring (window());
- every closed second, summed per phase: the run's totals (totals(), for
  the Prometheus endpoint, a second behind at most).

Only the current second's slot counts under raw keys (see Slot); a
second is normalised once, when it is over.

A --noop master takes tens of thousands of results a second: Slot.add()
is the one loop per result (or per distinct set of values), kept short.

Latencies are counted in the bins of the one log histogram
(ssbench.measure.loghist, 40 a decade; zero in ZERO_BIN): the window's
p50 and p99 are the nearest-rank rule over those bins, within
loghist.RELATIVE_ERROR (2.9%) of the exact percentiles, and the exported
histograms (ssbench.live.metrics) sum the bins between a few of their
edges.  In an open-loop (--rate) run they are response times, from each
job's intended start (ssbench.measure.record.response_wait), as in the
reports; a closed loop's are the latencies as measured.

Object bytes are those the requests moved: a population job that found
its object there (its HEAD answered, no PUT's 201 Created) moved none.
"""
from __future__ import absolute_import, division, print_function

import math
from collections import Counter
from itertools import repeat

from ssbench.compat import monotonic
from ssbench.measure import loghist
from ssbench.measure import record as spec
from ssbench.measure.record import response_wait
from ssbench.results import healthrecords

WINDOW = 10          # seconds the ring spans: p50/p99 and errors
RATE_WINDOW = 5      # seconds the request rate is taken over
# The exported histograms' bucket edges (ssbench.live.metrics): every
# EXPORT_STEP-th loghist bin, from 1 ms to 100 s.  The totals keep their
# latencies at that resolution (coarse()), so that a scrape's work does
# not grow with the bins a run has seen.
EXPORT_STEP = 10
EXPORT_BINS = tuple(range(loghist.SHIFT - 3 * loghist.BINS_PER_DECADE,
                          loghist.SHIFT + 2 * loghist.BINS_PER_DECADE + 1,
                          EXPORT_STEP))
# The status of a PUT that created an object (a population job's upload).
CREATED = 201


def outcome_of(result):
    """A result's outcome label: its HTTP status ('201'), 'ok' without
    one (a no-op), or for a failure its status or else its error class."""
    status = result.get('status')
    if status is not None:
        return '%s' % (status,)
    if 'exception' in result:
        return '%s' % (result.get('error_class') or 'error')
    return 'ok'


class Slot(object):
    """Counters of one second of results (or of a phase's past seconds).

    requests: {(operation, size, outcome, failed): [count, bytes]};
    errors: {outcome: count} of failures; retries, reconnects:
    {operation: sum}; first_byte, last_byte: {(operation, bin): count}
    of successes (loghist bins), first_byte_sum, last_byte_sum:
    {operation: seconds}.  add() counts successes under one raw key
    (operation, size, status, first-byte bin, last-byte bin) in `raw`
    ([count, bytes, first-byte seconds, last-byte seconds]), one
    dictionary update per result; merge() and normalised() give the
    documented keys.
    """

    __slots__ = ('second', 'raw', 'requests', 'errors', 'retries',
                 'reconnects', 'first_byte', 'last_byte', 'first_byte_sum',
                 'last_byte_sum')

    def __init__(self, second=None):
        self.second = second
        self.raw = {}
        self.requests = {}
        self.errors = {}
        self.retries = {}
        self.reconnects = {}
        self.first_byte = {}
        self.last_byte = {}
        self.first_byte_sum = {}
        self.last_byte_sum = {}

    def count(self):
        """Results counted in this slot."""
        return sum(cell[0] for cell in self.raw.values()) + \
            sum(cell[0] for cell in self.requests.values())

    def latencies(self, histogram):
        """Add this slot's last-byte latencies, all operations together,
        to a {bin: count} `histogram`."""
        for key, cell in self.raw.items():
            index = key[4]
            histogram[index] = histogram.get(index, 0) + cell[0]
        for (_, index), count in self.last_byte.items():
            histogram[index] = histogram.get(index, 0) + count

    def add(self, results, keys=None, counts=None):
        """Count a list of result records: the one loop per result of a
        live run, hence the local names.  `keys`: RAW_KEYS for records
        unpacked with raw strings (bytes keys and text values), which
        unpack in about half the time.  `counts`: how many results each
        record stands for (default: one each)."""
        (k_exception, k_first, k_last, k_intended, k_type, k_size_str,
         k_status, k_head_first, k_size, k_retries, k_reconnects) = \
            (keys or TEXT_KEYS)[:11]
        raw = self.raw
        # loghist.bin_of() inline: one log and an int per latency; the
        # constants are floats, as mixing an int into float arithmetic
        # or comparisons costs more than the logarithm.
        log, scale, shift = math.log, loghist.SCALE, float(loghist.SHIFT)
        zero, nothing = loghist.ZERO_BIN, 0.0
        for result, n in zip(results, counts or repeat(1)):
            if k_exception in result:
                self._add_failure(_text_record(result) if keys else result,
                                  n)
                continue
            # Keys every success has (ssbench.wire.messagecheck) are
            # subscripted, the rest got: this loop's cost is the live
            # view's.
            get = result.get
            latency = get(k_first)
            last_latency = result[k_last]
            if get(k_intended) is not None:
                latency, last_latency = _response_times(
                    result, latency, last_latency, keys or TEXT_KEYS)
            if latency is None:
                first = None
            elif latency > nothing:
                first = int(log(latency) * scale + shift)
            else:
                first = zero
            if last_latency > nothing:
                last = int(log(last_latency) * scale + shift)
            else:
                last = zero
            key = (result[k_type], result[k_size_str], get(k_status), first,
                   last)
            cell = raw.get(key)
            if cell is None:
                cell = raw[key] = [0, 0, 0.0, 0.0]
            cell[0] += n
            if get(k_head_first) and key[2] != CREATED:
                pass        # its HEAD found the object: nothing sent
            else:
                cell[1] += (get(k_size) or 0) * n
            if first is not None:
                cell[2] += latency * n
            cell[3] += last_latency * n
            if result[k_retries] or get(k_reconnects):
                self._add_retries(key[0], result, n, k_retries,
                                  k_reconnects)

    def _add_retries(self, kind, result, n, k_retries='retries',
                     k_reconnects='reconnects'):
        for name, sums in ((k_retries, self.retries),
                           (k_reconnects, self.reconnects)):
            value = result.get(name)
            if value:
                kind = _text(kind)
                sums[kind] = sums.get(kind, 0) + value * n

    def _add_failure(self, result, n):
        kind = result.get('type')
        outcome = outcome_of(result)
        self.errors[outcome] = self.errors.get(outcome, 0) + n
        key = (kind, result.get('size_str'), outcome, True)
        cell = self.requests.get(key)
        if cell is None:
            cell = self.requests[key] = [0, 0]
        cell[0] += n
        self._add_retries(kind, result, n)

    def merge(self, other):
        """Add `other`'s counts to this slot's, under documented keys."""
        requests = self.requests
        first_byte, last_byte = self.first_byte, self.last_byte
        for (kind, size, status, first, last), cell in other.raw.items():
            kind, size = _text(kind), _text(size)
            _add_cell(requests, (kind, size, 'ok' if status is None
                                 else '%s' % (status,), False), cell)
            for index, histogram, sums, total in (
                    (first, first_byte, self.first_byte_sum, cell[2]),
                    (last, last_byte, self.last_byte_sum, cell[3])):
                if index is not None:
                    key = (kind, index)
                    histogram[key] = histogram.get(key, 0) + cell[0]
                    sums[kind] = sums.get(kind, 0.0) + total
        for key, cell in other.requests.items():
            _add_cell(requests, key, cell)
        for mine, theirs in ((self.errors, other.errors),
                             (self.retries, other.retries),
                             (self.reconnects, other.reconnects),
                             (self.first_byte, other.first_byte),
                             (self.last_byte, other.last_byte),
                             (self.first_byte_sum, other.first_byte_sum),
                             (self.last_byte_sum, other.last_byte_sum)):
            for key, count in theirs.items():
                mine[key] = mine.get(key, 0) + count

    def normalised(self):
        """A copy under documented keys, that another thread may read."""
        copy = Slot(self.second)
        copy.merge(self)
        return copy


# The keys Slot.add() reads, in that order: as text, and as raw strings.
TEXT_KEYS, RAW_KEYS = spec.keys(
    'exception', 'first_byte_latency', 'last_byte_latency', 'intended_start',
    'type', 'size_str', 'status', 'head_first', 'size', 'retries',
    'reconnects', 'completed_at', 'send_lag', 'worker_time')
# Those a success may have: the values add_captured() takes; the last
# three only of a result with an intended_start (an open-loop run's), as
# Slot.add() reads them only then, and they differ from one result to
# the next.
FIELDS = TEXT_KEYS[1:11] + tuple((key, TEXT_KEYS[3]) for key in
                                 TEXT_KEYS[11:])


def _text(value):
    """A raw string (bytes) as text; anything else as it is."""
    if isinstance(value, bytes) and not isinstance(value, str):
        return value.decode('utf-8', 'replace')
    return value


def _text_record(record):
    """A record unpacked with raw strings, keys and strings made text."""
    return dict((_text(key), _text(value)) for key, value in record.items())


def _response_times(result, first, last, keys):
    """(first, last) latencies of an open-loop result made response
    times, from its intended start, as the reports make them
    (ssbench.results.recordview)."""
    k_intended, k_completed, k_lag, k_held = (keys[3],) + keys[11:]
    wait = response_wait(last, result[k_completed], result[k_intended],
                         result.get(k_lag), result.get(k_held))
    if wait > 0:
        last += wait
        if first is not None:
            first += wait
    return first, last


def coarse(index):
    """The bin that stands for loghist bin `index` in the totals: one
    below the first EXPORT_BINS edge above it (the last edge itself past
    them all), so that it is below exactly the edges `index` is below."""
    first = EXPORT_BINS[0]
    if index < first:
        return first - 1
    above = (index - first) // EXPORT_STEP + 1
    if above >= len(EXPORT_BINS):
        return EXPORT_BINS[-1]
    return first + above * EXPORT_STEP - 1


def _coarse_copy(slot):
    """A copy of a slot with its latencies in coarse() bins."""
    copy = Slot(slot.second)
    copy.merge(slot)
    for histogram in (copy.first_byte, copy.last_byte):
        binned = {}
        for (kind, index), n in histogram.items():
            key = (kind, coarse(index))
            binned[key] = binned.get(key, 0) + n
        histogram.clear()
        histogram.update(binned)
    return copy


def _add_cell(cells, key, cell):
    mine = cells.get(key)
    if mine is None:
        cells[key] = list(cell[:2])
    else:
        mine[0] += cell[0]
        mine[1] += cell[1]


class LiveStats(object):
    """The live figures: see the module docstring.  `monotonic` gives
    seconds of the monotonic clock; tests inject their own."""

    def __init__(self, monotonic=monotonic):
        self.monotonic = monotonic
        self.phase = None
        self.phase_started = None
        self.phase_total = None       # requests the phase will make, if known
        self.phase_seconds = None     # how long a timed phase lasts
        self.phase_done = 0
        self.past = {}                # phase -> Slot of its closed seconds
        self.ring = []                # closed Slots of WINDOW s, oldest first
        self.slot = None
        self.saturated = {}           # worker id -> its last verdict
        # Captured values counted into the current slot at settle():
        # {values: results}, and the Captured that decodes them.
        self.pending = Counter()
        self.captured = None

    # -- phases ---------------------------------------------------------

    def start_phase(self, name, total=None, seconds=None):
        """A new phase (one of ssbench.measure.needs.PHASES): the ring
        starts empty."""
        self._close()
        self.ring = []
        self.phase = name
        self.phase_started = self.monotonic()
        self.phase_total = total
        self.phase_seconds = seconds
        self.phase_done = 0
        self.past.setdefault(name, Slot())
        self.turn(self.phase_started)

    def _close(self):
        """The current slot's second is over: normalised once, it joins
        the ring and the phase's totals (reading either then costs the
        same however many results the second had)."""
        self.settle()
        slot = self.slot
        self.slot = None
        if slot is None:
            return
        closed = slot.normalised()
        self.ring.append(closed)
        self.past[self.phase].merge(_coarse_copy(closed))

    def turn(self, now):
        """The clock reads `now`: results added from here on count in
        its second's slot; the ring rotates as seconds pass.  The run
        loop calls this once per turn (LiveView.idle), so that add()
        reads no clock per message."""
        second = int(now)
        slot = self.slot
        if slot is not None and slot.second == second:
            return
        self._close()
        self.slot = Slot(second)
        ring = self.ring
        cut = 0
        while cut < len(ring) and ring[cut].second <= second - WINDOW:
            cut += 1
        del ring[:cut]

    # -- taking results in ----------------------------------------------

    def add(self, results, keys=None):
        """Count a list of result records (`keys` as Slot.add() takes
        them) in the slot of the last turn()."""
        slot = self.slot
        if slot is not None:
            slot.add(results, keys)
            self.phase_done += len(results)

    def add_captured(self, captured, count):
        """Count `count` results of a message checked on its bytes:
        `captured` is (ssbench.wire.resultbytes.Captured, each record's
        values of FIELDS), counted here as they come and decoded at the
        next settle()."""
        if self.slot is not None:
            layout, values = captured
            if layout is not self.captured:
                self.settle()
                self.captured = layout
            self.pending.update(values)
            self.phase_done += count

    def settle(self):
        """Count the values add_captured() took in the current slot, each
        distinct set decoded once; before its figures are read."""
        pending = self.pending
        if pending:
            record = self.captured.record
            self.slot.add([record(values) for values in pending], None,
                          list(pending.values()))
            pending.clear()

    def heartbeat(self, record):
        """Note whether a worker's latest health window passed a
        limit."""
        sample = healthrecords.record(record)
        if sample is not None:
            self.saturated[record.get('worker_id')] = \
                healthrecords.over_limit(sample)

    def saturated_count(self, live_ids):
        """How many of the live workers' last windows passed a limit."""
        saturated = self.saturated
        return sum(1 for worker_id in live_ids if saturated.get(worker_id))

    # -- reading --------------------------------------------------------

    def elapsed(self):
        if self.phase_started is None:
            return 0.0
        return max(0.0, self.monotonic() - self.phase_started)

    def window(self):
        """The status line's figures: a dict of phase, elapsed, left
        (seconds, None when unknown), done, total, rate (requests/s over
        the last RATE_WINDOW whole seconds), p50 and p99 (last-byte
        latency in seconds over the last WINDOW s, None without results:
        the nearest-rank rule over the window's loghist bins) and errors
        ({outcome: count} over the last WINDOW s)."""
        self.settle()
        elapsed = self.elapsed()
        current = int(self.monotonic())
        histogram = {}
        errors = {}
        recent = 0
        slots = self.ring + ([self.slot] if self.slot is not None else [])
        for slot in slots:
            if slot.second <= current - WINDOW:
                continue
            if current - RATE_WINDOW <= slot.second < current:
                recent += slot.count()
            slot.latencies(histogram)
            for outcome, count in slot.errors.items():
                errors[outcome] = errors.get(outcome, 0) + count
        # Whole seconds once there are RATE_WINDOW of them; before that,
        # everything since the phase began.
        if self.phase_started is not None and \
                current - RATE_WINDOW >= self.phase_started:
            rate = recent / RATE_WINDOW
        else:
            rate = self.phase_done / elapsed if elapsed > 0 else 0.0
        hist = loghist.from_bins(histogram)
        p50, p99 = hist.percentiles((50, 99)) if hist else (None, None)
        return {
            'phase': self.phase, 'elapsed': elapsed,
            'left': self.time_left(elapsed, rate), 'done': self.phase_done,
            'total': self.phase_total, 'rate': rate,
            'p50': p50, 'p99': p99, 'errors': errors}

    def time_left(self, elapsed, rate):
        """Seconds left: of a timed phase, to its end; else of the
        requests still to make at `rate`; None when neither is known."""
        if self.phase_seconds is not None:
            return max(0.0, self.phase_seconds - elapsed)
        if self.phase_total is not None and rate > 0:
            return max(0, self.phase_total - self.phase_done) / rate
        return None

    def fraction_done(self):
        """How much of the phase is done, 0..1 (None when unknown)."""
        if self.phase_seconds:
            return min(1.0, self.elapsed() / self.phase_seconds)
        if self.phase_total:
            return min(1.0, self.phase_done / self.phase_total)
        return None

    def totals(self):
        """{phase: Slot} of the run up to the last whole second (the
        current one is counted under raw keys; end_phase() closes it),
        normalised copies that another thread may read, their latencies
        in coarse() bins."""
        return dict((phase, slot.normalised())
                    for phase, slot in self.past.items())

    def end_phase(self):
        """The phase is over: its last second joins the totals."""
        self._close()

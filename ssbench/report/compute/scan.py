"""One pass over a stats file, for the analysis and the text report.

Per (type, size) *cell*: counts, errors, retries, reconnects, bytes, the
first request start and last completion, the worst latencies, and the
latencies themselves in sortedruns.LatencyBuffers (exact statistics in
bounded memory, as ssbench.report.compute.classicstats); with detail, the
failures' times to failure too (``time_to_failure``: from the job's first
send to giving up; failures without one, as in 0.3.x files, are counted in
``untimed``).  Per operation *slot* (ssbench.OPERATION_TYPES order, then
OTHER for unknown job types): results and failures per second
(seconds.SecondCounts), and per adaptive time bucket the bytes and LogHists of
both latencies (timebuckets.TimeBuckets).  Failures also go to a
causes.CauseTable.  With detail, the causes of retries go to a
retrycauses.RetryTable (results without retries never reach it), and
successful READs are counted per object (``reads``, see
ssbench.report.compute.popularity).  The text report
(ssbench.report.compute.classicstats) takes the same pass with
``detail=False``: without what only the analysis reads (time buckets,
bytes unless asked for, reconnects, causes of failures and retries, reads
per object).
Both count each worker's successes and failures.  With detail and an
ssbench.report.compute.endpoints EndpointTable (``endpoints``, a run of
several storage URLs), each result is counted per endpoint too.

The hot loop keeps everything in locals and handles only successes of
known cells; anything else takes _slow().  Per-second counts accumulate
in a small list for the current second and the current time bucket's row
is cached: results arrive nearly in completion order, so both change
rarely.

Warm-up (``skip`` seconds, 0 for none): results that completed before
the run's first request start + skip are left out.  That start is the
minimum over all results, known for sure only at the end; the threshold
thus starts high and only moves down.  Results left out early that end up
past the final threshold are detected (``needs_rescan``), and the caller
then scans again with the threshold fixed.
"""
from __future__ import absolute_import, division, print_function

import logging
import math

from ssbench import OPERATION_TYPES, READ_OBJECT
from ssbench.measure import record as spec
from ssbench.results import sortedruns
from ssbench.measure import loghist
from ssbench.report.compute.causes import CauseTable
from ssbench.report.compute.endpoints import EndpointTable
from ssbench.report.compute.retrycauses import RetryTable
from ssbench.report.compute.seconds import SecondCounts
from ssbench.report.compute.timebuckets import TimeBuckets
from ssbench.errors import StatsFileError
from ssbench.report.compute.cells import GROUPS, as_text
from ssbench.results.recordview import narrow

log = logging.getLogger(__name__)

# The record keys read, in the order the scanner unpacks them.
TEXT_KEYS, RAW_KEYS = spec.keys(
    'type', 'size_str', 'exception', 'completed_at', 'first_byte_latency',
    'last_byte_latency', 'trans_id', 'retries', 'worker_id', 'reconnects',
    'size', 'status', 'error_class', 'time_to_failure', 'container', 'name',
    'retry_causes')

# Slots: one per job type of OPERATION_TYPES in its order, then every
# other job type.
OTHER = len(OPERATION_TYPES)
SLOTS = OTHER + 1
# The operation name of each slot but OTHER, as the reports spell it.
OPERATIONS = tuple(dict((job, key) for _, key, job in GROUPS)[job]
                   for job in OPERATION_TYPES)

# Latency values buffered in memory before the largest buffer is spilled.
BUFFER_BUDGET = 1 << 18
# Records between two checks of the buffer budget.
BUDGET_CHECK = 1 << 14

_INF = float('inf')
_NINF = float('-inf')


def failure_time(value):
    """A failure's time_to_failure as a float, or None when it has none
    that is a time (missing, or not seconds as the record spec,
    ssbench.measure.record, bounds them)."""
    if not spec.within(spec.SECONDS, value):
        return None
    return float(value)


class Cell(object):
    """One (type, size_str) pair; ``slot`` is its operation slot."""
    __slots__ = ('type', 'size', 'first_seen', 'slot')

    def __init__(self, type_, size, first_seen):
        self.type = as_text(type_)
        self.size = as_text(size)
        self.first_seen = first_seen
        self.slot = (OPERATION_TYPES.index(self.type)
                     if self.type in OPERATION_TYPES else OTHER)


class Scan(object):
    """The state of one pass; call scan() with the batches, then finish().

    ``skip_until``: a fixed warm-up threshold (epoch seconds) for a
    second pass; otherwise it follows the first request start.
    ``detail``: False for the text report's pass (see the module
    docstring); ``buckets`` is then None.  ``count_reads``: count the
    successful READs per object (in ``reads``; else it is None).
    ``urls``: a run's storage URLs when it has several: an EndpointTable
    (``endpoints``) then takes each result too (with detail).
    ``sizes``: count the successes' bytes without detail too (the
    summary line's MB/s).
    """

    def __init__(self, store, keys=TEXT_KEYS, skip=0, skip_until=None,
                 detail=True, count_reads=False, urls=(), sizes=False):
        self.store = store
        self.sizes = sizes or detail
        self.endpoints = EndpointTable(urls, store, keys) \
            if urls and detail else None
        self.keys = keys
        self.detail = detail
        self.skip = skip
        self.fixed_threshold = skip_until is not None
        self.skip_until = skip_until if skip_until is not None else _NINF
        self.first_start = _INF
        self.excluded = 0
        self.excluded_last = _NINF
        self.cell_map = {}
        self.cells = []
        # Per-cell columns, indexed by cell number (fast in the loop).
        self.count = []
        self.errors = []
        self.retries = []
        self.reconnects = []
        self.bytes = []
        self.start = []
        self.stop = []
        self.worst_first = []
        self.worst_first_id = []
        self.worst_last = []
        self.worst_last_id = []
        self.worst_failed = []
        self.worst_failed_id = []
        self.untimed = []
        self.cell_slot = []
        self.buffers = sortedruns.LatencyBuffers(store, BUFFER_BUDGET)
        # Worker id -> successes (0: failures only), and -> failures.
        self.workers = {}
        self.worker_errors = {}
        # Slots 0..SLOTS-1 count successes, SLOTS.. failures.
        self.seconds = SecondCounts(2 * SLOTS)
        self.buckets = TimeBuckets(SLOTS) if detail else None
        self.causes = CauseTable()
        self.retry_causes = RetryTable()
        # hash((container, name)) -> successful READs: ~100 bytes per
        # object read, where the names would take twice that.
        self.reads = {} if count_reads and detail else None
        self.sec_counts = [0] * (2 * SLOTS)
        self.current_second = None
        self.min_second = _INF
        self.start_time = None
        self.records = 0
        self.controls = 0
        self.skipped = 0
        self.reconnects_recorded = False
        self.cause_keys_seen = False

    def _new_cell(self, type_, size, seq):
        index = self.cell_map[type_, size] = len(self.cells)
        cell = Cell(type_, size, seq)
        self.cells.append(cell)
        for column, init in ((self.count, 0), (self.errors, 0),
                             (self.retries, 0), (self.reconnects, 0),
                             (self.bytes, None), (self.start, _INF),
                             (self.stop, _NINF), (self.worst_first, _NINF),
                             (self.worst_first_id, None),
                             (self.worst_last, _NINF),
                             (self.worst_last_id, None),
                             (self.worst_failed, _NINF),
                             (self.worst_failed_id, None),
                             (self.untimed, 0),
                             (self.cell_slot, cell.slot)):
            column.append(init)
        self.buffers.add_cell()
        return index

    def _slow(self, result, seq):
        """Any record the fast path refused: new cell, failure, odd keys.

        Returns (cell, completed_at, last, first, retries, worker, failed)
        or None for a record to leave out.
        """
        k_type, k_size, k_exc, k_completed, k_first, k_last = self.keys[:6]
        k_retries, k_worker = self.keys[7:9]
        try:
            completed_at = result[k_completed]
        except (KeyError, TypeError, IndexError):
            if isinstance(result, dict):
                # A control record (worker health, run events): no result.
                self.controls += 1
                return None
            self._skip(result)
            return None
        try:
            type_ = result[k_type]
            size = result[k_size]
            worker = result[k_worker]
            hash((type_, size, worker))
        except (KeyError, TypeError, IndexError):
            self._skip(result)
            return None
        cell = self.cell_map.get((type_, size))
        if cell is None:
            cell = self._new_cell(type_, size, seq)
        retries = result.get(k_retries) or 0
        if k_exc in result:
            return cell, completed_at, None, None, retries, worker, True
        if k_last not in result:
            self._skip(result)
            return None
        return (cell, completed_at, result[k_last], result.get(k_first),
                retries, worker, False)

    def _skip(self, result):
        self.skipped += 1
        if log.isEnabledFor(logging.DEBUG):
            log.debug('Skipped result with missing keys: %r', result)

    def _failure(self, cell, result, completed_at, retries, worker, seq):
        (_, _, k_exc, _, _, _, k_txid, _, _, k_reconn, _, k_status,
         k_error_class, k_ttf, _, _, _) = self.keys
        self.errors[cell] += 1
        self.retries[cell] += retries
        if retries and self.detail:
            self._retried(cell, result, retries)
        if log.isEnabledFor(logging.DEBUG):
            log.debug('exception from worker %s: %s', worker, result[k_exc])
        self.workers.setdefault(worker, 0)
        errors = self.worker_errors
        errors[worker] = errors.get(worker, 0) + 1
        if not self.detail:
            return
        reconnects = result.get(k_reconn)
        if reconnects is not None:
            self.reconnects_recorded = True
            self.reconnects[cell] += reconnects
        if k_status in result or k_error_class in result:
            self.cause_keys_seen = True
        spent = failure_time(result.get(k_ttf))
        if self.endpoints is not None:
            self.endpoints.failure(result, seq, retries, spent)
        if spent is None:
            self.untimed[cell] += 1
        else:
            self.buffers.failed[cell].append(spent)
            if spent > self.worst_failed[cell]:
                self.worst_failed[cell] = spent
                self.worst_failed_id[cell] = (seq, result.get(k_txid))
        self.causes.add(self._operation(cell), result.get(k_status),
                        result.get(k_error_class), completed_at,
                        result.get(k_txid), result.get(k_exc))

    def _operation(self, cell):
        """The operation name of a cell, as the reports spell it."""
        cell_obj = self.cells[cell]
        return (cell_obj.type if cell_obj.slot == OTHER
                else OPERATIONS[cell_obj.slot])

    def _retried(self, cell, result, retries):
        """Count the causes of a result's retries (a positive number)."""
        self.retry_causes.add(self._operation(cell),
                              result.get(self.keys[-1]), retries)

    def _note_size(self, cell, size):
        """The first ``size`` of a cell (its bytes were None)."""
        if self.bytes[cell] is None and isinstance(size, (int, float)):
            self.bytes[cell] = size

    def _switch(self, completed_at):
        """Flush the current second's counts; cache completed_at's second.

        Returns (second start, second end, row bytes, row hists); the
        row's parts are None without detail.
        """
        if self.current_second is not None:
            self.seconds.add(self.current_second, self.sec_counts)
        second = int(math.floor(completed_at))
        self.current_second = second
        if self.buckets is None:
            return float(second), second + 1.0, None, None
        row = self.buckets.row(second)
        return float(second), second + 1.0, row.bytes, row.hists

    def scan(self, batches):
        """Consume result batches; the hot loop of both reports.

        Raises StatsFileError for a record whose values have the wrong
        type (say a text completed_at).
        """
        try:
            self._scan(batches)
        except (TypeError, ValueError, OverflowError) as exc:
            raise StatsFileError('not a valid ssbench stats file: a result '
                                 'has a bad value (%s)' % (exc,))

    def _scan(self, batches):
        # Everything the loop touches is a local: attribute and global
        # lookups would cost more than the work itself.
        cell_map = self.cell_map
        count = self.count
        retries = self.retries
        reconnects = self.reconnects
        nbytes = self.bytes
        start = self.start
        stop = self.stop
        first_buf = self.buffers.first
        last_buf = self.buffers.last
        worst_first = self.worst_first
        worst_first_id = self.worst_first_id
        worst_last = self.worst_last
        worst_last_id = self.worst_last_id
        cell_slot = self.cell_slot
        detail = self.detail
        sizes = self.sizes
        workers = self.workers
        sec_counts = self.sec_counts
        slow = self._slow
        failure = self._failure
        retried = self._retried
        note_size = self._note_size
        switch = self._switch
        add_value = loghist.add_value
        ln = math.log
        scale = loghist.SCALE
        shift = loghist.SHIFT
        slots = SLOTS
        (k_type, k_size, k_exc, k_completed, k_first, k_last, k_txid,
         k_retries, k_worker, k_reconn, k_bytes, _, _, _, k_container,
         k_name, _) = self.keys
        reads = self.reads
        endpoints = self.endpoints
        reads_get = reads.get if reads is not None else None
        # No slot is -1: without a count, nothing is counted.
        read_slot = OPERATION_TYPES.index(READ_OBJECT) if reads is not None \
            else -1
        skip = self.skip
        moving = bool(skip) and not self.fixed_threshold
        first_start = self.first_start
        skip_until = self.skip_until
        excluded = 0
        excluded_last = self.excluded_last
        min_second = self.min_second
        start_time = self.start_time
        reconnects_recorded = False
        # An empty range: the first result switches to its second.
        sec_lo = sec_hi = 0.0
        row_bytes = row_hists = None
        seq = 0
        check_at = BUDGET_CHECK
        for batch in batches:
            for result in batch:
                seq += 1
                try:
                    cell = cell_map[result[k_type], result[k_size]]
                    if k_exc in result:
                        raise KeyError(k_exc)
                    completed_at = result[k_completed]
                    last = result[k_last]
                    first = result[k_first]
                    retry = result[k_retries]
                    worker = result[k_worker]
                except Exception:
                    fields = slow(result, seq)
                    if fields is None:
                        continue
                    (cell, completed_at, last, first, retry, worker,
                     failed) = fields
                    if failed:
                        if skip:
                            if completed_at < first_start:
                                first_start = completed_at
                                if moving:
                                    skip_until = first_start + skip
                            if completed_at < skip_until:
                                excluded += 1
                                if completed_at > excluded_last:
                                    excluded_last = completed_at
                                continue
                        if not sec_lo <= completed_at < sec_hi:
                            sec_lo, sec_hi, row_bytes, row_hists = switch(
                                completed_at)
                        sec_counts[slots + cell_slot[cell]] += 1
                        failure(cell, result, completed_at, retry, worker,
                                seq)
                        continue
                began = completed_at - last if last else completed_at
                if skip:
                    if began < first_start:
                        first_start = began
                        if moving:
                            skip_until = first_start + skip
                    if completed_at < skip_until:
                        excluded += 1
                        if completed_at > excluded_last:
                            excluded_last = completed_at
                        continue
                count[cell] += 1
                if retry:
                    retries[cell] += retry
                    if detail:
                        retried(cell, result, retry)
                slot = cell_slot[cell]
                if not sec_lo <= completed_at < sec_hi:
                    sec_lo, sec_hi, row_bytes, row_hists = switch(
                        completed_at)
                sec_counts[slot] += 1
                if last:
                    last_buf[cell].append(last)
                    if last > worst_last[cell]:
                        worst_last[cell] = last
                        worst_last_id[cell] = (seq, result.get(k_txid))
                else:
                    if last is not None and last > worst_last[cell]:
                        worst_last[cell] = last
                        worst_last_id[cell] = (seq, result.get(k_txid))
                    last = 0.0
                if first:
                    first_buf[cell].append(first)
                    if first > worst_first[cell]:
                        worst_first[cell] = first
                        worst_first_id[cell] = (seq, result.get(k_txid))
                elif first is not None and first > worst_first[cell]:
                    worst_first[cell] = first
                    worst_first_id[cell] = (seq, result.get(k_txid))
                try:
                    workers[worker] += 1
                except KeyError:
                    workers[worker] = 1
                size = result.get(k_bytes) if sizes else None
                if size is not None:
                    try:
                        if detail:
                            row_bytes[slot] += size
                        nbytes[cell] += size
                    except TypeError:
                        note_size(cell, size)
                if detail:
                    if endpoints is not None:
                        endpoints.success(result, seq, completed_at, began,
                                          first, last, retry)
                    if slot == read_slot:
                        obj = hash((result.get(k_container),
                                    result.get(k_name)))
                        reads[obj] = reads_get(obj, 0) + 1
                    reconnect = result.get(k_reconn)
                    if reconnect is not None:
                        reconnects_recorded = True
                        if reconnect:
                            reconnects[cell] += reconnect
                    if last:
                        try:
                            hist = row_hists[slot]
                            i = int(ln(last) * scale + shift) - hist.off
                            if i < 0:
                                raise IndexError(i)
                            hist.counts[i] += 1
                        except Exception:
                            add_value(row_hists, slot, last)
                    if first:
                        try:
                            hist = row_hists[slots + slot]
                            i = int(ln(first) * scale + shift) - hist.off
                            if i < 0:
                                raise IndexError(i)
                            hist.counts[i] += 1
                        except Exception:
                            add_value(row_hists, slots + slot, first)
                if began < start[cell]:
                    start[cell] = began
                if completed_at > stop[cell]:
                    stop[cell] = completed_at
                # The text report's run start: the earliest completion
                # second, less the latency of the first result seen in it.
                if completed_at < min_second:
                    min_second = int(completed_at)
                    start_time = min_second - last
            if seq >= check_at:
                check_at = seq + BUDGET_CHECK
                self.buffers.enforce_budget()
                if endpoints is not None:
                    endpoints.buffers.enforce_budget()
        if self.current_second is not None:
            self.seconds.add(self.current_second, sec_counts)
        self.records = seq - self.controls
        self.first_start = first_start
        self.skip_until = skip_until
        self.excluded = excluded
        self.excluded_last = excluded_last
        self.min_second = min_second
        self.start_time = start_time
        self.reconnects_recorded = (self.reconnects_recorded or
                                    reconnects_recorded)

    @property
    def needs_rescan(self):
        """Whether a result was left out as warm-up that the final
        threshold keeps: scan again with skip_until fixed."""
        return bool(self.excluded) and self.excluded_last >= self.skip_until

    def successes_per_second(self):
        """(second, successes) ascending, for every second with any."""
        return self.seconds.items(range(SLOTS))

    def finish(self):
        """Spill the last buffers; the runs are then readable."""
        # The text report says its own, with the control records.
        if self.skipped and self.detail:
            log.warning('Total number of results skipped: %d', self.skipped)
        if self.endpoints is not None:
            self.endpoints.buffers.finish()
        self.buffers.finish()


def scan_file(stats_file, store, skip=0, skip_until=None, **options):
    """A Scan (see the class; `options` are its own) through
    ``stats_file``'s batches; raw strings when it has them: undecoded
    strings make msgpack ~40% faster, and only a handful (names, trans
    ids, messages) are ever decoded."""
    raw = getattr(stats_file, 'raw_strings', False)
    scan = Scan(store, RAW_KEYS if raw else TEXT_KEYS, skip, skip_until,
                **options)
    scan.scan(stats_file.iter_batches(raw=True) if raw
              else stats_file.iter_batches())
    return scan


def scanned(stats_file, use, skip=0, **options):
    """use(scan) of a finished scan_file() of ``stats_file`` (with
    ``options``), its runs in a store of their own, closed afterwards."""
    store = sortedruns.RunStore()
    try:
        scan = scan_file(stats_file, store, skip, **options)
        if narrow(stats_file):
            # Results far outside the run are left out from now on
            # (ssbench.results.timewindow): scan without them.
            store.close()
            store = sortedruns.RunStore()
            scan = scan_file(stats_file, store, skip, **options)
        if scan.needs_rescan:
            # Rare: the first request start moved after results were left
            # out as warm-up that it now keeps.
            store.close()
            store = sortedruns.RunStore()
            scan = scan_file(stats_file, store, skip, scan.skip_until,
                             **options)
        scan.finish()
        return use(scan)
    finally:
        store.close()

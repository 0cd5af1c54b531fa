"""Figures per storage URL (endpoint) of a run that had several.

A stats header that lists the run's storage URLs (ENDPOINTS of the record
spec, written only when there were two or more) makes the analysis keep,
per endpoint, what it keeps per operation: successes, failures, retries,
requests per second, the exact latency series and the failures' times
(ssbench.report.compute.scan hands every result to an EndpointTable).
The document's "endpoints" section is then one map per URL, in the
header's order, shaped like an operation's map (so that metricnames,
compare and the gate read both alike), with its `index` and `url`.

A result without a usable `endpoint` (a job whose request never went
out, or an index past the list) counts in "unattributed".
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import text_type
from ssbench.measure import record as spec
from ssbench.report.compute import throughput
from ssbench.report.compute.cells import as_text, worst_of
from ssbench.report.compute.series import latency_entry
from ssbench.results import sortedruns

# Latency values buffered in memory before the largest buffer is spilled
# (the scan's own buffers have a budget as large).
BUFFER_BUDGET = 1 << 18
# The metric name's form of an endpoint (ssbench.report.compute
# .metricnames): its index in the header's list.
NAME = 'endpoint[%d]'

_INF = float('inf')
_NINF = float('-inf')


def urls_of(header):
    """The storage URLs a stats header lists, as text, when they are two
    or more; else None (a run of one, or a header without the list)."""
    urls = header.get(spec.ENDPOINTS)
    if not isinstance(urls, (list, tuple)) or len(urls) < 2:
        return None
    urls = [as_text(url) for url in urls]
    if not all(isinstance(url, text_type) for url in urls):
        return None
    return urls


class EndpointTable(object):
    """Per-endpoint figures of one scan over results keyed as `keys`
    (the scan's TEXT_KEYS or RAW_KEYS, trans_id the seventh), latencies
    in `store`."""

    def __init__(self, urls, store, keys):
        self.urls = list(urls)
        raw = isinstance(keys[0], bytes)
        self.key = spec.ENDPOINT.encode('ascii') if raw else spec.ENDPOINT
        self.k_txid = keys[6]
        count = len(self.urls)
        self.count = [0] * count
        self.errors = [0] * count
        self.retries = [0] * count
        self.start = [_INF] * count
        self.stop = [_NINF] * count
        self.worst_first = [_NINF] * count
        self.worst_first_id = [None] * count
        self.worst_last = [_NINF] * count
        self.worst_last_id = [None] * count
        self.worst_failed = [_NINF] * count
        self.worst_failed_id = [None] * count
        self.untimed = [0] * count
        # Per endpoint {second: successes}: a run's seconds are few.
        self.seconds = [{} for _ in self.urls]
        self.unattributed = 0
        self.buffers = sortedruns.LatencyBuffers(store, BUFFER_BUDGET)
        for _ in self.urls:
            self.buffers.add_cell()

    def _index(self, result):
        index = result.get(self.key)
        if type(index) is int and 0 <= index < len(self.urls):
            return index
        self.unattributed += 1
        return None

    def success(self, result, seq, completed_at, began, first, last,
                retries):
        """Count a success (its latencies as the scan read them)."""
        index = self._index(result)
        if index is None:
            return
        self.count[index] += 1
        self.retries[index] += retries or 0
        second = int(completed_at)
        per_second = self.seconds[index]
        per_second[second] = per_second.get(second, 0) + 1
        if began < self.start[index]:
            self.start[index] = began
        if completed_at > self.stop[index]:
            self.stop[index] = completed_at
        for value, buffers, worst, ids in (
                (last, self.buffers.last, self.worst_last,
                 self.worst_last_id),
                (first, self.buffers.first, self.worst_first,
                 self.worst_first_id)):
            if value is None:
                continue
            if value:
                buffers[index].append(value)
            if value > worst[index]:
                worst[index] = value
                ids[index] = (seq, result.get(self.k_txid))

    def failure(self, result, seq, retries, spent):
        """Count a failure; `spent` its time to failure (None: none)."""
        index = self._index(result)
        if index is None:
            return
        self.errors[index] += 1
        self.retries[index] += retries or 0
        if spent is None:
            self.untimed[index] += 1
            return
        self.buffers.failed[index].append(spent)
        if spent > self.worst_failed[index]:
            self.worst_failed[index] = spent
            self.worst_failed_id[index] = (seq, result.get(self.k_txid))

    def section(self, pctiles):
        """The document's "endpoints": {'unattributed', 'endpoints': one
        map per URL}; call once the scan finished."""
        return {'unattributed': self.unattributed,
                'endpoints': [self._entry(index, pctiles)
                              for index in range(len(self.urls))]}

    def _entry(self, index, pctiles):
        count = self.count[index]
        start, stop = self.start[index], self.stop[index]
        timed = count and stop > start
        buffers = self.buffers
        store = buffers.store
        first = latency_entry(store, buffers.first_runs[index], worst_of(
            self.worst_first, self.worst_first_id, [index]), pctiles, None)
        last = latency_entry(store, buffers.last_runs[index], worst_of(
            self.worst_last, self.worst_last_id, [index]), pctiles, None)
        every = latency_entry(
            store, buffers.last_runs[index] + buffers.failed_runs[index],
            worst_of(self.worst_last + self.worst_failed,
                     self.worst_last_id + self.worst_failed_id,
                     [index, len(self.urls) + index]), pctiles, None)
        every['failures'] = sum(run.n for run in buffers.failed_runs[index])
        every['failures_without_time'] = self.untimed[index]
        return {
            'operation': NAME % index,
            'index': index,
            'url': self.urls[index],
            'count': count,
            'errors': self.errors[index],
            'retries': self.retries[index],
            'start': start if count else None,
            'stop': stop if count else None,
            'req_per_s': count / (stop - start) if timed else None,
            'throughput': throughput.summarize(
                sorted(self.seconds[index].items())),
            'latency': {'first_byte': [first], 'last_byte': [last],
                        'all_requests': [every]},
        }

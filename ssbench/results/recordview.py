"""What the reports read: a stats file's results, with the warm-up left
out, control records dropped and, for an open-loop (--rate) run, the
latencies turned into response times.

ssbench.report.compute.classicstats.compute() and the analysis scan take any
object with
``header`` and ``iter_batches()``; RecordView is one over an open stats
file.  It drops control records (maps without ``completed_at``, e.g.
worker health; they are stored in batches of their own, so a look at a
batch's first record finds them) and, with ``skip`` > 0, every record that
completed before the run's first request start + ``skip`` seconds.  That
start and that threshold are those of ssbench.report.analyze(skip=...):
the earliest completion less its last-byte latency (a failure's
completion itself).

With ``response=True``, a result with an ``intended_start`` (epoch
seconds, set by the master of a --rate run) gets the time from then to its
actual start added to both latencies: its response time, which counts
every wait (in the master, for a free greenlet) the service time (from the
actual send) leaves out.  Each clock measures its own part: the master's
``send_lag`` (how late the job left it) plus the worker's ``worker_time``
(from its receipt of the job to the result) make the response time, so
no time of one host is subtracted from another's.  A result without them
(an older master or worker) falls back to its ``completed_at`` less its
latency less its ``intended_start``, which mixes the two clocks; a
negative difference counts as none.  A failure's ``time_to_failure`` (from
its first send) gets the same wait, so that the all-requests figures
compare like with like.
"""
from __future__ import absolute_import, division, print_function

from ssbench.measure import record as spec
from ssbench.measure.finite import is_finite

_INF = float('inf')


def stored_warmup(header):
    """The seconds of warm-up a stats header asks the reports to leave
    out (run-scenario --warmup): 0 when it names none, or names something
    that is not a number of seconds."""
    warmup = header.get('warmup')
    if is_finite(warmup) and warmup > 0:
        return warmup
    return 0


# (text keys, raw keys): _KEYS[raw].
_KEYS = spec.keys('completed_at', 'last_byte_latency', 'exception',
                  'first_byte_latency', 'intended_start', 'send_lag',
                  'worker_time', 'time_to_failure')


def first_request_start(batches, raw=False):
    """The earliest request start over every result of `batches`, or None
    when there is none."""
    k_completed, k_last, k_exc = _KEYS[raw][:3]
    first = _INF
    for batch in batches:
        for record in batch:
            try:
                began = record[k_completed]
            except (KeyError, TypeError, IndexError):
                continue
            if k_exc not in record:
                last = record.get(k_last)
                if last:
                    began -= last
            if began < first:
                first = began
    return None if first == _INF else first


class RecordView(object):
    """A stats file seen without its warm-up and control records.

    Once iter_batches() has been consumed, ``skipped`` counts the results
    left out as warm-up and ``controls`` holds the control records.
    """

    def __init__(self, stats_file, skip=0, response=False):
        self.stats_file = stats_file
        self.response = response
        self.header = stats_file.header
        self.raw_strings = getattr(stats_file, 'raw_strings', False)
        self.path = getattr(stats_file, 'path', '')
        self.skip = skip
        self.skipped = 0
        self.skip_until = None
        self.controls = []

    def iter_batches(self, raw=False):
        raw = raw and self.raw_strings
        batches = self._source(raw)
        if not self.skip:
            return self._results(batches, raw)
        if self.skip_until is None:
            start = first_request_start(self._results(self._source(raw),
                                                      raw), raw)
            if self.narrow():
                start = first_request_start(self._results(
                    self._source(raw), raw), raw)
            self.skip_until = (start + self.skip if start is not None
                               else _INF)
        return self._after(self._results(batches, raw), raw)

    def narrow(self):
        """True when the stats file's last full pass found results far
        outside the run, left out from now on: build again (see
        ssbench.results.statsreader.StatsFile.narrow)."""
        if not narrow(self.stats_file):
            return False
        self.skip_until = None
        return True

    def _source(self, raw):
        if raw:
            batches = self.stats_file.iter_batches(raw=True)
        else:
            batches = self.stats_file.iter_batches()
        if self.response:
            return _response_times(batches, raw)
        return batches

    def _results(self, batches, raw):
        """Batches without the control ones (see the module docstring);
        the control records of the last pass are kept in `controls`."""
        k_completed = _KEYS[raw][0]
        controls = self.controls = []
        for batch in batches:
            if batch and isinstance(batch[0], dict) and \
                    k_completed not in batch[0]:
                kept = []
                for record in batch:
                    if isinstance(record, dict) and \
                            k_completed not in record:
                        controls.append(record)
                    else:
                        kept.append(record)
                if not kept:
                    continue
                batch = kept
            yield batch

    def _after(self, batches, raw):
        k_completed = _KEYS[raw][0]
        until = self.skip_until
        skipped = 0
        for batch in batches:
            kept = [record for record in batch
                    if not _before(record, k_completed, until)]
            skipped += len(batch) - len(kept)
            if kept:
                yield kept
        self.skipped = skipped


def narrow(source):
    """``source.narrow()`` of a stats file or a view; False for other
    sources of batches (which hold no profile)."""
    method = getattr(source, 'narrow', None)
    return bool(method()) if method is not None else False


def _before(record, key, until):
    try:
        return record[key] < until
    except (KeyError, TypeError, IndexError):
        return False


def _response_times(batches, raw):
    """Batches with the latencies of open-loop results made response
    times (see the module docstring); records are changed in place."""
    (k_completed, k_last, k_exc, k_first, k_intended, k_lag,
     k_held, k_ttf) = _KEYS[raw]
    for batch in batches:
        for record in batch:
            try:
                intended = record[k_intended]
                failed = k_exc in record
                if failed:
                    k_spent = k_ttf
                    if not spec.within(spec.SECONDS, record[k_ttf]):
                        continue
                else:
                    k_spent = k_last
                last = record[k_spent] or 0.0
                wait = spec.response_wait(last, record[k_completed], intended,
                                          record.get(k_lag),
                                          record.get(k_held))
            except (KeyError, TypeError, IndexError, AttributeError):
                continue
            if wait > 0:
                record[k_spent] = last + wait
                first = None if failed else record.get(k_first)
                if first is not None:
                    record[k_first] = first + wait
        yield batch


def as_text(value):
    """`value`, bytes (a raw read's string) made text."""
    if isinstance(value, bytes):
        return value.decode('utf-8', 'replace')
    return value


def as_text_keys(value):
    """A decoded record with bytes (raw msgpack strings) made text."""
    if isinstance(value, dict):
        return dict((as_text_keys(k), as_text_keys(v))
                    for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return [as_text_keys(v) for v in value]
    return as_text(value)


def controls_of_kind(controls, kind):
    """The control records (with text keys) whose `kind` is `kind`."""
    texts = (as_text_keys(record) for record in controls)
    return [record for record in texts if record.get('kind') == kind]

"""Workers' clock offsets as stored in a stats file, and their judging.

A master estimates each worker's wall-clock offset to its own (see
ssbench.master.clockoffset) and stores one control record per worker
(docs/internals.rst, "Records": a map without `completed_at`):

    kind        CLOCK_RECORD
    worker_id   the worker
    offset      seconds the worker's wall clock is ahead of the master's
                (negative: behind)
    rtt         the round trip of the probe the estimate comes from: the
                offset is known to within half of it
    samples     probes returned

Latencies and response times never depend on it (each is measured on one
clock); `completed_at`, and so the run's span and per-second figures, do:
an offset above OFFSET_LIMIT is worth a warning, and the reports put that
worker's completion times on the master's clock (subtract its offset,
known to within half the probe's round trip; see corrections()).  Below
the limit the times are used as they are: that is within a second's
rounding of any per-second figure, and often within the estimate's
error.

A worker's clock that stepped during the run (an NTP step, a VM resumed:
ssbench.master.clockoffset) has one record per *period*, each with
`period` (0, 1, ...), `first` and `last` (the worker's wall clock at
the period's first and last estimate).  Its results are put on the
master's clock by the offset in force when each was taken (Periods):
a worker stamps its results in the order it sends them, so in file
order they only move forward, but for a step.  A result stamped at or
after the next period's first time, less STEP_SLACK, is of the next
period when the clock stepped forward; one stamped more than half the
step before the result before it, when it stepped back.
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import string_types
from ssbench.measure.finite import is_finite
from ssbench.results.recordview import controls_of_kind

CLOCK_RECORD = 'clock_offset'
OFFSET_LIMIT = 0.1
#: Seconds a result may precede its period's first estimate (it came in
#: the heartbeat after the step, a second or so later).
STEP_SLACK = 5.0


def record(worker_id, offset, rtt, samples):
    """The control record of one worker's estimate."""
    return {'kind': CLOCK_RECORD, 'worker_id': worker_id, 'offset': offset,
            'rtt': rtt, 'samples': samples}


def workers(records):
    """The usable records (text keys) of `records`, one per worker (its
    first period's, else its last record), as plain maps sorted by
    worker id; a worker whose clock stepped also has "first" and "last"
    (the worker's times of its first period's first and last estimates)
    and "steps": the later periods, [{"offset", "rtt", "first", "last"}]
    in order."""
    by_worker = {}
    firsts = {}         # worker id -> the first period's (first, last)
    for rec in records:
        if rec.get('kind') != CLOCK_RECORD or not is_finite(
                rec.get('offset')) or not is_finite(rec.get('rtt')):
            continue
        worker_id = rec.get('worker_id')
        if not isinstance(worker_id, string_types + (int,)) or \
                isinstance(worker_id, bool):
            continue
        if _period(rec):
            by_worker.setdefault(worker_id, {}).setdefault(
                'periods', {})[rec['period']] = rec
            continue
        samples = rec.get('samples')
        entry = by_worker.setdefault(worker_id, {})
        if rec.get('period') == 0:
            firsts[worker_id] = (rec.get('first'), rec.get('last'))
        entry.update({
            'worker_id': worker_id, 'offset': rec['offset'],
            'rtt': rec['rtt'],
            'samples': samples if is_finite(samples) else None,
            'over_limit': abs(rec['offset']) > OFFSET_LIMIT})
    out = []
    for key in sorted(by_worker, key=str):
        entry = by_worker[key]
        later = entry.pop('periods', {})
        if 'offset' not in entry:
            continue            # a later period without the first
        if later:
            entry['first'], entry['last'] = firsts.get(key, (None, None))
            entry['steps'] = [
                dict((key, later[index][key])
                     for key in ('offset', 'rtt', 'first', 'last'))
                for index in sorted(later)]
            entry['over_limit'] = True
        out.append(entry)
    return out


def _period(rec):
    """Whether `rec` is a later period of a stepped clock (with its
    worker times), not the first or only one."""
    period = rec.get('period')
    return isinstance(period, int) and not isinstance(period, bool) and \
        period > 0 and is_finite(rec.get('first')) and \
        is_finite(rec.get('last'))


class Periods(object):
    """The offsets of a worker whose clock stepped, and the period of
    each of its results in file order (see the module docstring): call
    restart() before each pass, then offset_of() for each result.  A
    result outside the worker's times of the period it would move to (a
    stray, which the reports leave out) moves nothing."""

    def __init__(self, offsets, firsts, lasts):
        self.offsets = offsets
        # The worker's times of each period's first and last estimates.
        self.firsts = firsts
        self.lasts = lasts
        self.restart()

    def restart(self):
        """Start again from the first period (a new pass)."""
        self.index = 0
        self.previous = None

    def _within(self, index, stamped):
        return self.firsts[index] - STEP_SLACK <= stamped <= \
            self.lasts[index] + STEP_SLACK

    def offset_of(self, stamped):
        """The offset in force when the worker stamped `stamped`."""
        index, offsets = self.index, self.offsets
        while index + 1 < len(offsets) and self._within(index + 1, stamped):
            step = offsets[index + 1] - offsets[index]
            if step < 0 and (self.previous is None or
                             stamped >= self.previous + step / 2.0):
                break
            index += 1
        self.index = index
        if self._within(index, stamped):
            self.previous = stamped
        return offsets[index]


def periods_of(entry):
    """The Periods of a workers() entry with steps, else None."""
    steps = entry.get('steps')
    if not steps or not is_finite(entry.get('first')) or \
            not is_finite(entry.get('last')):
        return None
    return Periods(*[[entry[key]] + [step[key] for step in steps]
                     for key in ('offset', 'first', 'last')])


def is_record(record, raw=False):
    """Whether `record` (anything from a stats file's batches, its
    strings bytes when `raw`) is a clock offset record."""
    if not isinstance(record, dict):
        return False
    kind = record.get(b'kind' if raw else 'kind')
    return kind == CLOCK_RECORD or kind == _RAW_KIND


_RAW_KIND = CLOCK_RECORD.encode('ascii')


def corrections(records):
    """{worker id: offset} of the workers of `records` (clock offset
    records, their strings text or bytes) whose offset is above
    OFFSET_LIMIT: what their completion times are put on the master's
    clock by; None when there is none."""
    found = dict((w['worker_id'], periods_of(w) or w['offset'])
                 for w in workers(controls_of_kind(records, CLOCK_RECORD))
                 if w['over_limit'])
    return found or None


def warning(judged):
    """One line naming the workers whose clock is off by more than
    OFFSET_LIMIT, or stepped during the run, or None."""
    off = [w for w in judged if w['over_limit']]
    if not off:
        return None
    return ('clock offset above %d ms: %s; latencies are not affected, '
            'and the reports put completion times on the master\'s clock '
            'by these offsets (sync the clocks, e.g. with NTP)' % (
                OFFSET_LIMIT * 1000, ', '.join(
                    'worker %s %+.3f s' % (w['worker_id'], w['offset']) +
                    ''.join(', then %+.3f s (its clock stepped %+.3f s '
                            'during the run)' % (step['offset'],
                                                 step['offset'] - before)
                            for before, step in zip(
                                [w['offset']] + [
                                    s['offset'] for s in w.get('steps', [])],
                                w.get('steps', [])))
                    for w in off)))


def section(controls):
    """The "clock" part of the analysis document's "client" map, from a
    stats file's control records: {"limit", "warning", "workers":
    [{"worker_id", "offset", "rtt", "samples", "over_limit"}]}; None
    when the file stored no offsets."""
    judged = workers(controls_of_kind(controls, CLOCK_RECORD))
    if not judged:
        return None
    return {'limit': OFFSET_LIMIT, 'warning': warning(judged),
            'workers': judged}


def restart(offsets):
    """Start every Periods among corrections() `offsets` (or None) from
    its first period: a new pass over the file."""
    for offset in (offsets or {}).values():
        if isinstance(offset, Periods):
            offset.restart()


def offset_at(offset, stamped):
    """A corrections() value (seconds, or Periods) at `stamped`."""
    if isinstance(offset, Periods):
        return offset.offset_of(stamped)
    return offset

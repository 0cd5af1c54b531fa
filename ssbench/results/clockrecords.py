"""Workers' clock offsets as stored in a stats file, and their judging.

A master estimates each worker's wall-clock offset to its own (see
ssbench.master.clockoffset) and stores one control record per worker
(SPEC section 4: a map without `completed_at`):

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
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import string_types
from ssbench.results.recordview import controls_of_kind

CLOCK_RECORD = 'clock_offset'
OFFSET_LIMIT = 0.1


def record(worker_id, offset, rtt, samples):
    """The control record of one worker's estimate."""
    return {'kind': CLOCK_RECORD, 'worker_id': worker_id, 'offset': offset,
            'rtt': rtt, 'samples': samples}


def _number(value):
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and value == value and abs(value) < float('inf')


def workers(records):
    """The usable records (text keys) of `records`, one per worker (the
    last), as plain maps sorted by worker id."""
    by_worker = {}
    for rec in records:
        if rec.get('kind') != CLOCK_RECORD or not _number(
                rec.get('offset')) or not _number(rec.get('rtt')):
            continue
        worker_id = rec.get('worker_id')
        if not isinstance(worker_id, string_types + (int,)) or \
                isinstance(worker_id, bool):
            continue
        samples = rec.get('samples')
        by_worker[worker_id] = {
            'worker_id': worker_id, 'offset': rec['offset'],
            'rtt': rec['rtt'],
            'samples': samples if _number(samples) else None,
            'over_limit': abs(rec['offset']) > OFFSET_LIMIT}
    return [by_worker[key] for key in sorted(by_worker, key=str)]


def is_record(record, raw=False):
    """Whether `record` (anything from a stats file's batches, its
    strings bytes when `raw`) is a clock offset record."""
    if not isinstance(record, dict):
        return False
    kind = record.get(b'kind' if raw else 'kind')
    return kind == CLOCK_RECORD or kind == _RAW_KIND


_RAW_KIND = CLOCK_RECORD.encode('ascii')


def _as_text(value):
    return value.decode('utf-8', 'replace') if isinstance(value, bytes) \
        else value


def corrections(records):
    """{worker id: offset} of the workers of `records` (clock offset
    records, their strings text or bytes) whose offset is above
    OFFSET_LIMIT: what their completion times are put on the master's
    clock by; None when there is none."""
    texts = [dict((_as_text(key), _as_text(value))
                  for key, value in rec.items()) for rec in records]
    found = dict((w['worker_id'], w['offset']) for w in workers(texts)
                 if w['over_limit'])
    return found or None


def warning(judged):
    """One line naming the workers whose clock is off by more than
    OFFSET_LIMIT, or None."""
    off = [w for w in judged if w['over_limit']]
    if not off:
        return None
    return ('clock offset above %d ms: %s; latencies are not affected, '
            'and the reports put completion times on the master\'s clock '
            'by these offsets (sync the clocks, e.g. with NTP)' % (
                OFFSET_LIMIT * 1000, ', '.join(
                    'worker %s %+.3f s' % (w['worker_id'], w['offset'])
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

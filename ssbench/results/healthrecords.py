"""Worker health in the stats file, and what it says about a run.

The master stores each heartbeat's health keys (ssbench.wire.protocol
HEALTH_KEYS, and the HOST_KEYS a worker's system tells; measured by
ssbench.worker.health) as a stats-file control record (record(): a map
without `completed_at`, `kind` = HEALTH_RECORD, `at` = epoch seconds).

judge() reads them back.  A window passed a limit when its loop lag was
over LOOP_LAG_LIMIT or its CPU over CPU_LIMIT; cause() says why:

- "cpu": the worker's own CPU: over CPU_LIMIT, or at least OWN_BUSY of a
  core while its loop lagged;
- "host": the loop lagged while the worker used little CPU and waited
  for one (run_delay at least half the lag; without it, other processes
  using HOST_BUSY_SHARE of the cores): the host was busy, not the client;
- "stall": the loop lagged with neither to explain it: a blocking call,
  a paused process;
- "limit": a record without the host figures (a worker of an earlier
  version): over a limit, cause unknown.

Besides, a window whose jobs waiting for a runner grew twice in a row is
"queue" (in records with host figures): the worker gets jobs faster than
its concurrency runs them.  A
worker past a limit for more than SHARE_LIMIT of its time for its own
causes ("cpu", "stall", "limit") was saturated: the figures are the
client's limit, not the cluster's.  A busy host and a growing queue get
warnings of their own.

The master samples itself too (ssbench.master.selfhealth) and its
records, `worker_id` MASTER_ID, are judged alike: its CPU, and as loop
lag the p99 of the stretches its loop spent away from receiving (how long
a result that arrived meanwhile waited).  A master past a limit gets a
warning of its own: every job and result goes through it, so its limit
is the run's.
"""
from __future__ import absolute_import, division, print_function

import time

from ssbench.measure.finite import is_finite, is_non_negative
from ssbench.wire.protocol import HEALTH_KEYS, HOST_KEYS

HEALTH_RECORD = 'worker_health'
MASTER_ID = 'master'
LOOP_LAG_LIMIT = 0.010
CPU_LIMIT = 0.9
SHARE_LIMIT = 0.05
OWN_BUSY = 0.5
HOST_BUSY_SHARE = 0.25
# The causes that make a worker saturated: the client's own.
OWN_CAUSES = ('cpu', 'stall', 'limit')
CAUSES = OWN_CAUSES + ('host', 'queue')


def record(heartbeat, now=None):
    """The stats-file control record of a heartbeat's health keys, or
    None when it has none (a worker of another version)."""
    values = [heartbeat.get(key) for key in HEALTH_KEYS]
    if not all(is_finite(value) for value in values):
        return None
    out = dict(zip(HEALTH_KEYS, values))
    for key in HOST_KEYS:
        value = heartbeat.get(key)
        if is_non_negative(value):
            out[key] = value
    out['kind'] = HEALTH_RECORD
    out['worker_id'] = heartbeat.get('worker_id')
    out['at'] = time.time() if now is None else now
    return out


def over_limit(sample):
    """True when a window passed a limit."""
    return sample['loop_lag'] > LOOP_LAG_LIMIT or sample['cpu'] > CPU_LIMIT


def cause(sample):
    """Why a window passed a limit (see the module docstring), or None
    when it did not."""
    if sample['cpu'] > CPU_LIMIT:
        return 'cpu'
    lag = sample['loop_lag']
    if lag <= LOOP_LAG_LIMIT:
        return None
    if sample['cpu'] >= OWN_BUSY:
        return 'cpu'
    waited = sample.get('run_delay')
    if waited is not None:
        return 'host' if waited >= lag / 2 else 'stall'
    host, cores = sample.get('host_cpu'), sample.get('cores')
    if host is None or not cores:
        return 'limit'
    return 'host' if host - sample['cpu'] >= HOST_BUSY_SHARE * cores \
        else 'stall'


def sample_of(rec):
    """The figures of a record as floats (host figures when there), or
    None for a record without usable health keys."""
    try:
        sample = dict((key, float(rec[key])) for key in HEALTH_KEYS)
    except (KeyError, TypeError, ValueError):
        return None
    for key in HOST_KEYS:
        value = rec.get(key)
        if is_finite(value):
            sample[key] = float(value)
    return sample


def judge(records):
    """Per worker, what its health records say, worst share first:
    [{worker_id, seconds, over_seconds, share, saturated, cpu_max,
    loop_lag_max, waiting_max, causes ({cause: share of its time}),
    host_busy, queue_growing, host_cpu_max, cores, run_delay_max}]
    (the host figures None when its records have none)."""
    workers = {}
    for rec in records:
        sample = sample_of(rec)
        if sample is None:
            continue
        entry = workers.setdefault(rec.get('worker_id'), {
            'worker_id': rec.get('worker_id'), 'seconds': 0.0,
            'over_seconds': 0.0, 'cpu_max': 0.0, 'loop_lag_max': 0.0,
            'waiting_max': 0, 'host_cpu_max': None, 'cores': None,
            'run_delay_max': None, '_causes': {}, '_waiting': []})
        window = sample['window']
        entry['seconds'] += window
        if over_limit(sample):
            entry['over_seconds'] += window
        why = cause(sample)
        waiting = entry['_waiting'][-2:] + [sample['waiting']]
        entry['_waiting'] = waiting
        # Judged on the records of this version's workers only, as the
        # host figures are; earlier verdicts stay as they were.
        if len(waiting) == 3 and waiting[0] < waiting[1] < waiting[2] \
                and 'cores' in sample:
            entry['_causes']['queue'] = \
                entry['_causes'].get('queue', 0.0) + window
        if why is not None:
            entry['_causes'][why] = entry['_causes'].get(why, 0.0) + window
        entry['cpu_max'] = max(entry['cpu_max'], sample['cpu'])
        entry['loop_lag_max'] = max(entry['loop_lag_max'],
                                    sample['loop_lag'])
        entry['waiting_max'] = max(entry['waiting_max'],
                                   int(sample['waiting']))
        for key, out in (('host_cpu', 'host_cpu_max'),
                         ('run_delay', 'run_delay_max'),
                         ('cores', 'cores')):
            if key in sample:
                entry[out] = max(entry[out] or 0.0, sample[key])
    out = []
    for entry in workers.values():
        seconds = entry['seconds']
        shares = dict((why, spent / seconds if seconds > 0 else 0.0)
                      for why, spent in entry.pop('_causes').items())
        del entry['_waiting']
        entry['share'] = (entry['over_seconds'] / seconds if seconds > 0
                          else 0.0)
        entry['causes'] = shares
        entry['saturated'] = sum(shares.get(why, 0.0)
                                 for why in OWN_CAUSES) > SHARE_LIMIT
        entry['host_busy'] = shares.get('host', 0.0) > SHARE_LIMIT
        entry['queue_growing'] = shares.get('queue', 0.0) > SHARE_LIMIT
        if entry['cores'] is not None:
            entry['cores'] = int(entry['cores'])
        out.append(entry)
    out.sort(key=lambda e: (-e['share'], '%s' % (e['worker_id'],)))
    return out


def _names(entries):
    return 'worker%s %s' % ('s' if len(entries) > 1 else '',
                            ', '.join('%s' % (e['worker_id'],)
                                      for e in entries))


def _shares(entries, causes):
    return '%s of %s time' % (
        ', '.join('%.0f%%' % (100 * sum(e['causes'].get(why, 0.0)
                                        for why in causes))
                  for e in entries),
        'their' if len(entries) > 1 else 'its')


# What each of the client's own causes means, said after the workers.
_OWN_WORDS = {
    'cpu': 'its own CPU',
    'stall': 'its loop stalled with no CPU busy to explain it: a blocking '
             'call or a paused process',
}


def warnings(judged):
    """One line per kind of trouble the judged workers show: the client
    saturated, the host busy, a queue growing; [] when none."""
    lines = []
    master = [e for e in judged if e['worker_id'] == MASTER_ID]
    if master and master[0]['saturated']:
        lines.append(
            'master at its limit: the master passed a limit (loop lag p99 '
            '> %g ms or CPU > %.0f%% of a core) for %s; every job and '
            'result goes through it, so the figures show the master\'s '
            'limit, not the cluster\'s: use a larger --batch-size or a '
            'faster master host' % (
                LOOP_LAG_LIMIT * 1e3, CPU_LIMIT * 100,
                _shares(master, OWN_CAUSES)))
    judged = [e for e in judged if e['worker_id'] != MASTER_ID]
    bad = [e for e in judged if e['saturated']]
    if bad:
        # Say what the new figures tell about each worker.
        known = ['%s: %s' % (e['worker_id'], ' and '.join(
            _OWN_WORDS[why] for why in ('cpu', 'stall')
            if e['causes'].get(why))) for e in bad
            if e['causes'].get('cpu') or e['causes'].get('stall')]
        lines.append(
            'client saturated: %s passed a limit (loop lag p99 > %g ms or '
            'CPU > %.0f%% of a core) for %s%s; the figures show the '
            'client\'s limit, not the cluster\'s' % (
                _names(bad), LOOP_LAG_LIMIT * 1e3, CPU_LIMIT * 100,
                _shares(bad, OWN_CAUSES),
                ' (worker %s)' % '; worker '.join(known) if known else ''))
    busy = [e for e in judged if e['host_busy']]
    if busy:
        lines.append(
            'host busy: %s lagged (loop lag p99 > %g ms) for %s while '
            'waiting for a CPU that other processes kept busy (%s own '
            'CPU stayed under %.0f%% of a core); not the client\'s limit, '
            'but latencies include those waits: give the workers cores or '
            'hosts of their own for cleaner figures' % (
                _names(busy), LOOP_LAG_LIMIT * 1e3, _shares(busy, ['host']),
                'their' if len(busy) > 1 else 'its', OWN_BUSY * 100))
    queued = [e for e in judged if e['queue_growing']]
    if queued:
        lines.append(
            'queue growing: %s had more and more jobs waiting for a free '
            'connection for %s (up to %d): jobs come faster than %s '
            'concurrency runs them; add workers or raise --concurrency' % (
                _names(queued), _shares(queued, ['queue']),
                max(e['waiting_max'] for e in queued),
                'their' if len(queued) > 1 else 'its'))
    return lines


def warning(judged):
    """warnings() as one line, or None."""
    return '; '.join(warnings(judged)) or None


def store_health(writer):
    """A Master.on_heartbeat callback: each heartbeat's health as a
    control record, a batch of its own, in `writer` (a StatsWriter)."""
    def on_heartbeat(heartbeat):
        rec = record(heartbeat)
        if rec is not None:
            writer.write_batch([rec])
    return on_heartbeat

"""Worker health in the stats file, and what it says about a run.

The master stores each heartbeat's health keys (ssbench.wire.protocol
HEALTH_KEYS, measured by ssbench.worker.health) as a stats-file control
record (record(): a map without `completed_at`, `kind` = HEALTH_RECORD,
`at` = epoch seconds).  judge() reads them back: a worker whose windows
passed a limit (loop lag over LOOP_LAG_LIMIT or CPU over CPU_LIMIT) for
more than SHARE_LIMIT of its time was saturated, and the run's figures are
then the client's limit, not the cluster's.
"""
from __future__ import absolute_import, division, print_function

import time

from ssbench.wire.protocol import HEALTH_KEYS

HEALTH_RECORD = 'worker_health'
LOOP_LAG_LIMIT = 0.010
CPU_LIMIT = 0.9
SHARE_LIMIT = 0.05


def record(heartbeat, now=None):
    """The stats-file control record of a heartbeat's health keys, or
    None when it has none (a worker of another version)."""
    values = [heartbeat.get(key) for key in HEALTH_KEYS]
    if not all(isinstance(value, (int, float)) and
               not isinstance(value, bool) for value in values):
        return None
    out = dict(zip(HEALTH_KEYS, values))
    out['kind'] = HEALTH_RECORD
    out['worker_id'] = heartbeat.get('worker_id')
    out['at'] = time.time() if now is None else now
    return out


def over_limit(sample):
    """True when a window passed a limit."""
    return sample['loop_lag'] > LOOP_LAG_LIMIT or sample['cpu'] > CPU_LIMIT


def judge(records):
    """Per worker, what its health records say, worst share first:
    [{worker_id, seconds, over_seconds, share, saturated, cpu_max,
    loop_lag_max, waiting_max}]."""
    workers = {}
    for rec in records:
        try:
            sample = dict((key, float(rec[key])) for key in HEALTH_KEYS)
        except (KeyError, TypeError, ValueError):
            continue
        entry = workers.setdefault(rec.get('worker_id'), {
            'worker_id': rec.get('worker_id'), 'seconds': 0.0,
            'over_seconds': 0.0, 'cpu_max': 0.0, 'loop_lag_max': 0.0,
            'waiting_max': 0})
        entry['seconds'] += sample['window']
        if over_limit(sample):
            entry['over_seconds'] += sample['window']
        entry['cpu_max'] = max(entry['cpu_max'], sample['cpu'])
        entry['loop_lag_max'] = max(entry['loop_lag_max'],
                                    sample['loop_lag'])
        entry['waiting_max'] = max(entry['waiting_max'],
                                   int(sample['waiting']))
    out = []
    for entry in workers.values():
        share = (entry['over_seconds'] / entry['seconds']
                 if entry['seconds'] > 0 else 0.0)
        entry['share'] = share
        entry['saturated'] = share > SHARE_LIMIT
        out.append(entry)
    out.sort(key=lambda e: (-e['share'], '%s' % (e['worker_id'],)))
    return out


def warning(judged):
    """One line naming the saturated workers, or None."""
    bad = [e for e in judged if e['saturated']]
    if not bad:
        return None
    return ('client saturated: worker%s %s passed a limit (loop lag p99 > '
            '%g ms or CPU > %.0f%% of a core) for %s of %s time; the '
            'figures show the client\'s limit, not the cluster\'s' % (
                's' if len(bad) > 1 else '',
                ', '.join('%s' % (e['worker_id'],) for e in bad),
                LOOP_LAG_LIMIT * 1e3, CPU_LIMIT * 100,
                ', '.join('%.0f%%' % (100 * e['share']) for e in bad),
                'their' if len(bad) > 1 else 'its'))


def store_health(writer):
    """A Master.on_heartbeat callback: each heartbeat's health as a
    control record, a batch of its own, in `writer` (a StatsWriter)."""
    def on_heartbeat(heartbeat):
        rec = record(heartbeat)
        if rec is not None:
            writer.write_batch([rec])
    return on_heartbeat

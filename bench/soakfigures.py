"""The figures of a soak run (bench/soak.py), from what it sampled and
what the run left: RSS slopes, the stats file's counts, the accounting
check and which faults are among the report's events.  No process, no
clock: plain data in, plain data out."""
from __future__ import absolute_import, division, print_function

import re

# Error records the master writes for jobs no worker answered: those of
# a worker declared lost or replaced by a new process of its id
# ("worker 2 lost"), and those no live worker claimed.
LOST = re.compile(r'^(worker \S+ lost|job lost\b)')
# Runs shorter than an hour skip this share of their start instead of
# 5 minutes (the warm-up: imports, population, the first connections).
SHORT_RUN_SKIP = 1 / 12.0
LONG_RUN_SKIP = 300.0
HOUR = 3600.0


def skip_seconds(duration):
    """Seconds of a series' start left out of its slope: 5 minutes, or
    the first twelfth of a run shorter than an hour."""
    if duration >= HOUR:
        return LONG_RUN_SKIP
    return duration * SHORT_RUN_SKIP


def slope_per_hour(samples):
    """Least-squares slope of [(seconds, value)] per hour, or None with
    fewer than 3 samples or no spread in time."""
    if len(samples) < 3:
        return None
    count = len(samples)
    mean_t = sum(t for t, _ in samples) / count
    mean_v = sum(v for _, v in samples) / count
    den = sum((t - mean_t) ** 2 for t, _ in samples)
    if den <= 0:
        return None
    num = sum((t - mean_t) * (v - mean_v) for t, v in samples)
    return num / den * HOUR


def rss_series(name, pid, samples, cutoff):
    """One process's summary: its samples [(epoch seconds, MB)] and the
    slope (MB per hour) of those at or after `cutoff`."""
    kept = [(t, mb) for t, mb in samples if t >= cutoff]
    values = [mb for _, mb in samples]
    return {
        'process': name, 'pid': pid, 'samples': len(samples),
        'samples_in_slope': len(kept),
        'first_mb': round(values[0], 1) if values else None,
        'last_mb': round(values[-1], 1) if values else None,
        'max_mb': round(max(values), 1) if values else None,
        'slope_mb_per_hour': _rounded(slope_per_hour(kept), 2),
    }


def _rounded(value, digits):
    return None if value is None else round(value, digits)


class Counts(object):
    """The stats file's results, told apart: `results` are the records
    workers sent (`errors` of them failures, by cause), `lost` the
    master's records of jobs no worker answered."""

    def __init__(self, cause_of):
        self.cause_of = cause_of
        self.results = 0
        self.errors = 0
        self.lost = 0
        self.errors_by_cause = {}

    def add(self, record):
        """Count one result record (a map with completed_at)."""
        exception = record.get('exception')
        if exception is None:
            self.results += 1
            return
        if LOST.match(u'%s' % (exception,)):
            self.lost += 1
            return
        self.results += 1
        self.errors += 1
        cause = self.cause_of(record.get('status'),
                              record.get('error_class'))[0]
        self.errors_by_cause[cause] = self.errors_by_cause.get(cause, 0) + 1

    def as_dict(self):
        return {'results': self.results, 'errors': self.errors,
                'errors_by_cause': self.errors_by_cause, 'lost': self.lost}


def accounting(schedule, counts):
    """The check results + lost + unsent == intended, from the schedule
    record (open_loop.schedule of the report) and Counts.as_dict()."""
    schedule = schedule or {}
    intended = schedule.get('intended')
    unsent = schedule.get('unsent')
    out = {'intended': intended, 'sent': schedule.get('sent'),
           'unsent': unsent}
    out.update(counts)
    if intended is None or unsent is None:
        out['holds'] = False
        out['why'] = 'the stats file has no schedule record with intended ' \
                     'and unsent (not an open-loop timed run?)'
        return out
    total = counts['results'] + counts['lost'] + unsent
    out['holds'] = total == intended
    out['why'] = '%d results + %d lost + %d unsent = %d, intended %d' % (
        counts['results'], counts['lost'], unsent, total, intended)
    return out


def marks_of(events):
    """The texts of the mark events of a report's event list."""
    return set(event.get('text') for event in events or ()
               if event.get('kind') == 'mark')


def faults_in_events(faults, events, start_time):
    """Each fault (a map with name, began, ended, begin_mark and
    end_mark, times in epoch seconds) with its times from `start_time`
    and whether its two marks are among `events`."""
    marks = marks_of(events)
    out = []
    for fault in faults:
        entry = dict(fault)
        for key in ('began', 'ended'):
            if entry.get(key) is not None and start_time is not None:
                entry[key] = round(entry[key] - start_time, 1)
        entry['in_events'] = (fault['begin_mark'] in marks and
                              fault.get('end_mark') in marks)
        out.append(entry)
    return out


def per_million(total_bytes, records):
    """Bytes per million records, or None without records."""
    if not records:
        return None
    return int(round(total_bytes * 1e6 / records))

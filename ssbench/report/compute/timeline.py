"""The run's events on its timeline: the analysis document's "events".

Three sources, merged in the order of their times:

- the events the master stored (ssbench.results.eventrecords): workers
  joined, lost and back, tokens renewed, operators' marks;
- client saturation, derived here from the health records
  (ssbench.results.healthrecords): a stretch of a worker's (or the
  master's) windows past a limit for its own causes ("cpu", "stall",
  "limit") began with the first such window and ended with the first of
  QUIET_WINDOWS in a row without one; a stretch of fewer than
  MIN_WINDOWS such windows is no event (one slow window is noise);
- the first failure of each cause (as ssbench.report.compute.causes
  names them), derived from the document's errors: the earliest
  `first_seen` of the cause over every operation.

Each event is {"time": seconds from the run's start_time (None when the
run has none), "at": epoch seconds, "kind", "worker", "text"}; at most
MAX_EVENTS are kept (the earliest).
"""
from __future__ import absolute_import, division, print_function

from ssbench.results import eventrecords, healthrecords
from ssbench.results.recordview import controls_of_kind

SATURATION_BEGAN = 'saturation_began'
SATURATION_ENDED = 'saturation_ended'
FIRST_FAILURE = 'first_failure'
QUIET_WINDOWS = 3
MIN_WINDOWS = 2
MAX_EVENTS = 1000

# How each kind reads in a chart's label and the --errors table.
_WORDS = {
    eventrecords.WORKER_JOINED: 'worker %(worker)s joined',
    eventrecords.WORKER_LOST: 'worker %(worker)s lost',
    eventrecords.WORKER_BACK: 'worker %(worker)s back',
    eventrecords.TOKEN_RENEWED: 'token renewed',
    eventrecords.MARK: 'mark',
    eventrecords.CLOCK_STEPPED: 'worker %(worker)s clock stepped',
    SATURATION_BEGAN: '%(worker)s saturated',
    SATURATION_ENDED: '%(worker)s no longer saturated',
    FIRST_FAILURE: 'first failure',
}


def describe(event):
    """A short line of an event: what happened, then its text."""
    worker = event.get('worker')
    name = '%s' % (worker,)
    if event.get('kind') in (SATURATION_BEGAN, SATURATION_ENDED):
        name = 'master' if worker == healthrecords.MASTER_ID else \
            'worker %s' % (worker,)
    words = _WORDS.get(event.get('kind'), '%s' % (event.get('kind'),)) % {
        'worker': name}
    text = event.get('text')
    return '%s: %s' % (words, text) if text else words


def saturation(records):
    """[(at, kind, worker_id)] of the saturation stretches of health
    `records` (see the module docstring)."""
    by_worker = {}
    for rec in records:
        if isinstance(rec.get('at'), (int, float)):
            by_worker.setdefault(rec.get('worker_id'), []).append(rec)
    out = []
    for worker_id, recs in by_worker.items():
        recs.sort(key=lambda r: r['at'])
        began = None        # [at, windows over] of the stretch under way
        quiet, ended_at = 0, None
        for rec in recs:
            sample = healthrecords.sample_of(rec)
            if sample is None:
                continue
            if healthrecords.cause(sample) in healthrecords.OWN_CAUSES:
                if began is None:
                    began = [rec['at'] - sample['window'], 0]
                began[1] += 1
                quiet = 0
                continue
            if began is None:
                continue
            quiet += 1
            if quiet == 1:
                ended_at = rec['at'] - sample['window']
            if quiet >= QUIET_WINDOWS:
                out.extend(_stretch(worker_id, began, ended_at))
                began, quiet = None, 0
        if began is not None:
            out.extend(_stretch(worker_id, began,
                                ended_at if quiet else None))
    return out


def _stretch(worker_id, began, ended_at):
    if began[1] < MIN_WINDOWS:
        return []
    out = [(began[0], SATURATION_BEGAN, worker_id)]
    if ended_at is not None:
        out.append((ended_at, SATURATION_ENDED, worker_id))
    return out


def first_failures(causes):
    """[(at, cause, operation)] of the first failure of each cause of the
    document's errors.causes."""
    first = {}
    for entry in causes or ():
        at = entry.get('first_seen')
        if not isinstance(at, (int, float)):
            continue
        cause = entry.get('cause')
        if cause not in first or at < first[cause][0]:
            first[cause] = (at, cause, entry.get('operation'))
    return list(first.values())


def section(controls, doc):
    """The document's "events" (see the module docstring) from a stats
    file's control records and the rest of the document `doc`."""
    found = [(e['at'], e['event'], e['worker_id'], e['text'])
             for e in eventrecords.events(controls)]
    found.extend((at, kind, worker, None) for at, kind, worker in
                 saturation(controls_of_kind(
                     controls, healthrecords.HEALTH_RECORD)))
    found.extend((at, FIRST_FAILURE, None, '%s (%s)' % (cause, op))
                 for at, cause, op in first_failures(
                     (doc.get('errors') or {}).get('causes')))
    found.sort(key=lambda e: (e[0], e[1]))
    start = (doc.get('run') or {}).get('start_time')
    return [{'time': None if start is None else at - start, 'at': at,
             'kind': kind, 'worker': worker, 'text': text}
            for at, kind, worker, text in found[:MAX_EVENTS]]

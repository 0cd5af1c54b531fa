"""The analysis document's "workers": every worker that took part.

One entry per worker id, from three sources:

- the stats file header's list (ssbench.results.workerlist): the workers
  connected when the benchmark began, as their heartbeats described
  them, with their clock offsets;
- the run events (ssbench.results.eventrecords): when each worker
  joined (a new connection admitted under its id: started, or started
  again), was lost (silent for --worker-timeout) and came back;
- the results the report counted: each worker's successes and failures.

A worker that joined during the run has no header entry: its host and
pid come from its first join event ("pid N on HOST", as
ssbench.master.admission words it), the rest of its identity is None.
Times are seconds from the run's start_time (None when the run has
none); each list keeps the earliest MAX_TIMES.  A stats file with
neither the header's list nor a worker event (ssbench 0.3.x) lists the
workers that sent results, their counts, and None for the rest.
"""
from __future__ import absolute_import, division, print_function

import re

from ssbench.compat import string_types
from ssbench.results import eventrecords, workerlist

MAX_TIMES = 100
_LISTS = {eventrecords.WORKER_JOINED: 'joined',
          eventrecords.WORKER_LOST: 'lost',
          eventrecords.WORKER_BACK: 'back'}
_JOIN_TEXT = re.compile(r'^pid (\d+) on (\S+)$')


def _key(worker_id):
    """A worker id as the document shows it: bytes (a raw-string scan)
    decoded."""
    if isinstance(worker_id, bytes):
        return worker_id.decode('utf-8', 'replace')
    return worker_id


def _order(worker_id):
    if isinstance(worker_id, string_types):
        return (1, 0, worker_id)
    return (0, worker_id, '')


def _blank(worker_id, at_start):
    entry = {'worker_id': worker_id}
    for key, _ in workerlist.FIELDS[1:]:
        entry[key] = None
    entry['clock_offset'] = None
    entry['at_start'] = at_start
    return entry


def _offsets(clock):
    return dict((_key(judged.get('worker_id')), judged.get('offset'))
                for judged in (clock or {}).get('workers') or [])


def section(header, clock, events, successes, failures, start_time):
    """The document's workers list, or None when nothing is known of any
    worker.

    `clock`: the document's client.clock (or None); `events`:
    eventrecords.events() of the stats file; `successes`, `failures`:
    worker id -> count (Scan.workers, Scan.worker_errors); `start_time`:
    the run's start_time."""
    listed = workerlist.section(header, clock)
    by_id = {}
    order = []
    for entry in listed or []:
        if entry['worker_id'] not in by_id:
            entry['at_start'] = True
            by_id[entry['worker_id']] = entry
            order.append(entry['worker_id'])
    # None: the file does not say who was there at the start.
    late = False if listed is not None else None
    offsets = _offsets(clock)

    def entry_of(worker_id):
        worker_id = _key(worker_id)
        entry = by_id.get(worker_id)
        if entry is None:
            entry = by_id[worker_id] = _blank(worker_id, late)
            entry['clock_offset'] = offsets.get(worker_id)
        return entry

    times = {}
    for event in events:
        name = _LISTS.get(event['event'])
        if name is None or event['worker_id'] is None:
            continue
        entry = entry_of(event['worker_id'])
        when = None if start_time is None else event['at'] - start_time
        lists = times.setdefault(entry['worker_id'], {
            'joined': [], 'lost': [], 'back': []})
        if name == 'joined' and not lists['joined'] and \
                entry['host'] is None and entry['pid'] is None:
            match = _JOIN_TEXT.match(event['text'] or '')
            if match is not None:
                entry['pid'] = int(match.group(1))
                entry['host'] = match.group(2)
        if len(lists[name]) < MAX_TIMES:
            lists[name].append(when)
    for worker_id in list(successes) + list(failures):
        entry_of(worker_id)
    if not by_id:
        return None
    # A file with neither the header's list nor a worker event (ssbench
    # 0.3.x wrote neither) does not say when workers came and went.
    recorded = listed is not None or bool(times)
    counted_ok = dict((_key(k), v) for k, v in successes.items())
    counted_bad = dict((_key(k), v) for k, v in failures.items())
    extra = sorted(set(by_id) - set(order), key=_order)
    out = []
    for worker_id in order + extra:
        entry = by_id[worker_id]
        lists = times.get(worker_id, {'joined': [], 'lost': [], 'back': []})
        joins = lists['joined']
        # A worker there at the start joined before the events were
        # recorded: each join recorded is a new process under its id.
        first = None if entry['at_start'] or not joins else joins[0]
        entry['joined'] = first
        entry['rejoined'] = joins if entry['at_start'] else joins[1:]
        entry['lost'] = lists['lost']
        entry['back'] = lists['back']
        if not recorded:
            entry['rejoined'] = entry['lost'] = entry['back'] = None
        entry['results'] = counted_ok.get(worker_id, 0)
        entry['errors'] = counted_bad.get(worker_id, 0)
        out.append(entry)
    return out

"""The workers that took part in a run, in the stats file's header.

The header's `workers` key (ssbench 0.3.x ignores it) lists, for each
worker connected when the benchmark began, what its heartbeats said of it
(ssbench.wire.protocol.IDENTITY_KEYS): id, host name, pid, ssbench
version, wire protocol version, concurrency.  Reports join each worker's
clock offset to the master's (ssbench.results.clockrecords) to it.
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import string_types

HEADER_KEY = 'workers'
# (key, kind) of an entry: what a report keeps of a header entry.
FIELDS = (('worker_id', 'id'), ('host', 'text'), ('pid', 'int'),
          ('version', 'text'), ('protocol', 'int'), ('concurrency', 'int'))
MAX_TEXT = 255


def entries(identities, worker_ids):
    """The header's list: one map per id in `worker_ids`, from
    `identities` (worker id -> what its heartbeats said)."""
    listed = []
    for worker_id in worker_ids:
        entry = {'worker_id': worker_id}
        for key, _ in FIELDS[1:]:
            value = identities.get(worker_id, {}).get(key)
            if value is not None:
                entry[key] = value
        listed.append(entry)
    return listed


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _sane(value, kind):
    if kind == 'text':
        return isinstance(value, string_types) and len(value) <= MAX_TEXT
    if kind == 'int':
        return _is_int(value) and value >= 0
    return _is_int(value) or (isinstance(value, string_types) and
                              len(value) <= MAX_TEXT)


def section(header, clock=None):
    """The report's list of workers (None when the header has none),
    each with its `clock_offset` (seconds) where `clock` (the
    clockrecords.section() of the run) has one.  Entries of the wrong
    shape are left out; values of the wrong type are None."""
    listed = header.get(HEADER_KEY) if isinstance(header, dict) else None
    if not isinstance(listed, list):
        return None
    offsets = {}
    for judged in (clock or {}).get('workers') or []:
        offsets[judged.get('worker_id')] = judged.get('offset')
    workers = []
    for entry in listed:
        if not isinstance(entry, dict) or \
                not _sane(entry.get('worker_id'), 'id'):
            continue
        kept = dict((key, entry.get(key) if _sane(entry.get(key), kind)
                     else None) for key, kind in FIELDS)
        kept['clock_offset'] = offsets.get(kept['worker_id'])
        workers.append(kept)
    return workers


def host_count(workers):
    """How many distinct hosts a section() names."""
    return len(set(w['host'] for w in workers if w.get('host')))

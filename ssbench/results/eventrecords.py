"""Run events in the stats file: what happened to the run, and when.

The master stores each event of the benchmark phase as a control record
(docs/internals.rst, "Records": a map without `completed_at`):

    kind        EVENT_RECORD
    event       one of STORED: a worker joined (a new connection admitted),
                was lost (silent for --worker-timeout), came back after
                being lost; its wall clock stepped (the text says by how
                much: ssbench.master.clockoffset); the Swift token was
                renewed; an operator's mark (SIGUSR1 to the master, or a
                line of --mark-file)
    at          epoch seconds, on the master's clock
    worker_id   the worker it concerns, or None
    text        a line that says more (the mark's text), or None

The reports add events they derive themselves (ssbench.report.compute.
timeline): a client's saturation beginning and ending (from the health
records), the first failure of each cause (from the results).  ssbench
0.3.x and the classic report never see control records.
"""
from __future__ import absolute_import, division, print_function

import time

from ssbench.compat import string_types
from ssbench.measure.finite import is_finite
from ssbench.results.recordview import controls_of_kind

EVENT_RECORD = 'run_event'
WORKER_JOINED = 'worker_joined'
WORKER_LOST = 'worker_lost'
WORKER_BACK = 'worker_back'
TOKEN_RENEWED = 'token_renewed'
MARK = 'mark'
CLOCK_STEPPED = 'clock_stepped'
STORED = (WORKER_JOINED, WORKER_LOST, WORKER_BACK, TOKEN_RENEWED, MARK,
          CLOCK_STEPPED)
# Longer texts are cut: a mark is a line, not a file.
MAX_TEXT = 200


def record(event, worker_id=None, text=None, now=None):
    """The control record of one event (`now`: epoch seconds, the
    time.time() of the call when None)."""
    return {'kind': EVENT_RECORD, 'event': event,
            'at': time.time() if now is None else now,
            'worker_id': worker_id,
            'text': None if text is None else clip(text)}


def clip(text):
    """`text` as one line of at most MAX_TEXT characters."""
    line = ' '.join(('%s' % (text,)).split())
    return line if len(line) <= MAX_TEXT else line[:MAX_TEXT - 3] + '...'


def _worker(value):
    if isinstance(value, bool):
        return None
    if isinstance(value, int) or (isinstance(value, string_types) and
                                  len(value) <= MAX_TEXT):
        return value
    return None


def events(controls):
    """The usable event records among a stats file's control records
    (their strings text or bytes), as {"at", "event", "worker_id",
    "text"} maps in the order of their times; records of an unknown
    event or without a time are left out."""
    out = []
    for rec in controls_of_kind(controls, EVENT_RECORD):
        event, at = rec.get('event'), rec.get('at')
        if event not in STORED or not is_finite(at):
            continue
        text = rec.get('text')
        out.append({'at': at, 'event': event,
                    'worker_id': _worker(rec.get('worker_id')),
                    'text': clip(text) if isinstance(text, string_types)
                    else None})
    out.sort(key=lambda e: e['at'])
    return out

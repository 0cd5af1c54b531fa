"""One pipeline for a phase's results: each message of results, as a
Message, goes to an ordered list of sinks, duck-typed objects whose
`needs` tell how little the master may decode for them (the protocol:
docs/internals.rst, "Results: one pipeline")."""
from __future__ import absolute_import, division, print_function

from operator import itemgetter

from ssbench.measure.needs import BYTES, RECORDS
from ssbench.results import healthrecords
from ssbench.wire import protocol
from ssbench.wire.messagecheck import check_from_worker


_JOB = itemgetter(0)   # of an outstanding entry, (job, sent at, Peer)


class Message(object):
    """One message of results (its attributes: docs/internals.rst)."""

    __slots__ = ('data', 'scanned', 'captured', '_records', '_entries',
                 '_faults')

    def __init__(self, data, records=None, entries=None, faults=None,
                 captured=None):
        self.data = data
        self._records = records
        self._entries = entries
        self._faults = faults
        self.scanned = records is None
        self.captured = captured

    @property
    def count(self):
        return len(self._entries if self.scanned else self._records)

    @property
    def records(self):
        if self._records is None:
            self._records = protocol.decode(self.data, check_from_worker,
                                            self._faults)[0]
        return self._records

    @property
    def jobs(self):
        if self.scanned:
            return list(map(_JOB, self._entries))
        return self._records


class Pipeline(object):
    """The sinks of one phase, sorted by what they have."""

    def __init__(self, sinks=()):
        sinks = list(sinks)
        takers = [sink for sink in sinks if hasattr(sink, 'results')]
        needs = set(getattr(sink, 'needs', RECORDS) for sink in takers)
        self.decode = RECORDS in needs
        self.packed = BYTES in needs
        self.fields = ()
        for sink in takers:
            self.fields += tuple(key for key in getattr(sink, 'fields', ())
                                 if key not in self.fields)
        self.takers = [sink.results for sink in takers]
        self.idlers = [sink.idle for sink in sinks if hasattr(sink, 'idle')]
        self.beats = [sink.heartbeat for sink in sinks
                      if hasattr(sink, 'heartbeat')]

    def results(self, message):
        for take in self.takers:
            take(message)

    def heartbeat(self, record):
        for beat in self.beats:
            beat(record)


class Take(object):
    """A sink handing `add` (a callable) each message's records, or with
    needs=SCANNED what Message.jobs holds."""

    def __init__(self, add, needs=RECORDS):
        self.add = add
        self.needs = needs

    def results(self, message):
        self.add(message.records if self.needs == RECORDS else message.jobs)


class Store(object):
    """The stats file's sink: each message's bytes, verbatim when they
    came so, and each heartbeat's health as a control record (a batch of
    its own) in `writer` (a ssbench.results.statswriter.StatsWriter)."""

    needs = BYTES

    def __init__(self, writer):
        self.writer = writer

    def results(self, message):
        self.writer.write_raw(message.data)

    def heartbeat(self, record):
        sample = healthrecords.record(record)
        if sample is not None:
            self.writer.write_batch([sample])

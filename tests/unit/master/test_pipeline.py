"""The pipeline: what each sink says it needs decides how much of a
message the master decodes, and a Message decodes at most once."""
from __future__ import absolute_import, division, print_function

from ssbench.master.pipeline import Message, Pipeline, Store, Take
from ssbench.results import healthrecords
from ssbench.measure.needs import BYTES, RECORDS, SCANNED
from ssbench.wire import protocol
from ssbench.wire.faultlog import Faults
from tests.clocks import FakeClock
from tests.unit.master.test_dispatch import answer, jobs


class Beats(object):
    def __init__(self):
        self.seen = []

    def heartbeat(self, record):
        self.seen.append(record)


def test_only_a_sink_that_needs_records_makes_the_master_decode():
    assert not Pipeline().decode and not Pipeline().packed
    assert not Pipeline([Take(list, SCANNED), Beats()]).decode
    assert Pipeline([Take(list, SCANNED), Take(list)]).decode
    assert Take(list).needs == RECORDS
    store = Pipeline([Store(None)])
    assert store.packed and not store.decode


def test_a_scanned_message_is_decoded_once_and_only_when_read():
    sent = [dict(job, job_id=n) for n, job in enumerate(jobs(2), 1)]
    data = protocol.pack([answer(job, 1) for job in sent])
    message = Message(data, entries=[(job, 0.0, None) for job in sent],
                      faults=Faults('test', clock=FakeClock(0.0)))
    assert message.scanned and message.count == 2
    assert message.jobs == sent             # the jobs as sent
    first = message.records
    assert [r['job_id'] for r in first] == [1, 2]
    assert message.records is first


def test_a_decoded_message_gives_its_records_as_its_jobs():
    records = [answer(dict(jobs(1)[0], job_id=1), 1)]
    message = Message(None, records)
    assert not message.scanned and message.jobs is records
    assert message.records is records and message.count == 1


def test_the_pipeline_hands_each_sink_what_it_has():
    taken, beats = [], Beats()
    pipeline = Pipeline([Take(taken.extend), beats, object()])
    record = {'job_id': 1}
    pipeline.results(Message(None, [record]))
    pipeline.heartbeat({'worker_id': 1})
    assert taken == [record] and beats.seen == [{'worker_id': 1}]
    assert pipeline.idlers == []


def test_the_store_keeps_bytes_verbatim_and_health_as_control_records():
    class Writer(object):
        def __init__(self):
            self.raw, self.batches = [], []

        def write_raw(self, data):
            self.raw.append(data)

        def write_batch(self, records):
            self.batches.append(records)
    writer = Writer()
    store = Store(writer)
    assert store.needs == BYTES
    store.results(Message(b'\x90', []))
    store.heartbeat(protocol.heartbeat(9, []))     # no health: nothing
    store.heartbeat({'worker_id': 1, 'window': 1.0, 'cpu': 0.5,
                     'loop_lag': 0.001, 'waiting': 0})
    assert writer.raw == [b'\x90']
    kinds = [r['kind'] for [r] in writer.batches]
    assert kinds == [healthrecords.HEALTH_RECORD]


def test_the_keys_sinks_count_are_captured_once_each():
    class Counts(object):
        needs = SCANNED

        def __init__(self, fields):
            self.fields = fields

        def results(self, message):
            pass
    pipeline = Pipeline([Counts(('type', 'size')), Take(list, SCANNED),
                         Counts(('size', ('send_lag', 'intended_start')))])
    assert pipeline.fields == ('type', 'size',
                               ('send_lag', 'intended_start'))
    assert Pipeline([Take(list, SCANNED)]).fields == ()

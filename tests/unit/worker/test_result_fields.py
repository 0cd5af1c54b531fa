"""Every key of a worker's result is a field of the record schema
(ssbench.measure.record.SCHEMA, docs/internals.rst): a key added to the
results of ssbench.worker or ssbench.wire.protocol and not to the schema
fails here, so that the checks and readers made from it know it."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench import (CREATE_OBJECT, DELETE_OBJECT, HEAD_OBJECT,
                     LIST_CONTAINER, READ_OBJECT, UPDATE_OBJECT)
from ssbench.measure import record
from ssbench.store.outcome import Timing
from ssbench.swift.client import SwiftRequestError
from ssbench.wire import protocol
from ssbench.worker.execution import StoreJobs
from ssbench.swift.tokens import HandedTokens
from tests.clocks import FakeClock
from tests.fakes import FakeClient, FakeTransport
from tests.unit.worker.test_execution import AUTH
from tests.unit.worker.test_mainloop import make, results_of, run_until

pytestmark = pytest.mark.timeout(30)


def every_key_job(kind, **changes):
    """A job with every key a job may carry (protocol.JOB_KEYS)."""
    job = {'type': kind, 'size_str': 'tiny', 'container': 'c',
           'name': 'tiny_000001', 'size': 10, 'block_size': 4096,
           'delete_after': 60, 'noop': False, 'job_id': 1,
           'head_first': False, 'intended_start': 1.6e9, 'send_lag': 0.1,
           'segment_size': None, 'large_object': None, 'limit': 5,
           'prefix': 'tiny_'}
    assert set(job) == set(protocol.JOB_KEYS)
    job.update(changes)
    return job


class EveryFigureClient(FakeClient):
    """Answers with every figure a Timing may have; fails its DELETEs
    with every figure a SwiftRequestError may have."""

    def get_object(self, *args):
        timing = Timing(200, 0.3, 0.4, 'tx-get', 2, 1, 5,
                        retry_causes={'503': 2})
        timing.segments = {'count': 2, 'retries': 0, 'seconds': 0.5,
                           'slowest': 0.3}
        timing.endpoint = 1
        return timing

    def delete_object(self, *args):
        error = SwiftRequestError(
            'DELETE', '/v1/a/c/o', 503, 'Unavailable', 'tx-del', 1, 1,
            error_class='timeout', time_to_failure=2.5,
            retry_causes={'503': 1})
        error.endpoint = 0
        raise error


def swift_results():
    """The results StoreJobs makes of every job type, successes and
    failures, every job carrying every key."""
    results = []
    jobs = StoreJobs(7, results.append,
                     tokens=HandedTokens(lambda: None, 30),
                     ask_master=lambda: None, now=FakeClock(1234.5),
                     own_auth=AUTH, client_factory=EveryFigureClient,
                     clock=FakeClock(10.0))
    jobs.get_store().fail['put_object'] = ValueError('boom')
    for kind in (CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT,
                 HEAD_OBJECT, LIST_CONTAINER):
        jobs.run_job(every_key_job(kind), 9.0)
    jobs.close()
    return results


def noop_results():
    """The results of the worker loop's own answers: no-op jobs."""
    transport = FakeTransport()
    transport.inbox.append(protocol.pack([
        every_key_job(READ_OBJECT, noop=True, job_id=2),
        every_key_job(CREATE_OBJECT, noop=True, job_id=3, send_lag=None)]))
    run_until(make(transport), lambda: len(results_of(transport)) >= 2)
    return results_of(transport)


def builder_results():
    """protocol.result_ok() and result_error() with every argument."""
    job = every_key_job(READ_OBJECT)
    return [protocol.result_ok(job, 7, 0.1, 0.2, 'tx', 1, 1.7e9, 200, 0, 5,
                               {'503': 1}),
            protocol.result_error(job, 7, 'boom', 'trace', 1, 'tx', 1.7e9,
                                  None, 'timeout', 0, 2.5, {'503': 1})]


@pytest.mark.parametrize('made', [swift_results, noop_results,
                                  builder_results])
def test_every_key_of_a_workers_result_is_in_the_schema(made):
    results = made()
    assert results
    for result in results:
        unknown = sorted(set(result) - record.NAMES)
        assert not unknown, (
            'result keys %s are not fields of ssbench.measure.record.SCHEMA '
            '(add a row there, and to docs/internals.rst)' % unknown)


def test_the_results_cover_what_the_schema_says_a_worker_sets():
    # The test above sees every key: a key of the schema no result made
    # here carries would be one a new worker key could hide behind.
    seen = set()
    for made in (swift_results, noop_results, builder_results):
        for result in made():
            seen.update(result)
    assert seen == record.NAMES

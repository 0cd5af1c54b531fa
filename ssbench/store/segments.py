"""A large object's job (ssbench.swift.largeobject, ssbench.s3.
multipartobject) timed as one request: from its first send to the end of
its last request, with the retries, reconnects and retry causes of all;
the segment requests are also summed apart (Operation.segment_stats())."""
from __future__ import absolute_import, division, print_function

import gevent

from ssbench import CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT
from ssbench.compat import monotonic
from ssbench.store.outcome import RequestError, Timing, add_causes

# Segment requests of one object in flight at once: a few overlap one
# segment's fixed costs (the proxy's connections to the object servers,
# their fsync at the end) with the others' transfer, which a single
# stream waits for in turn; more would only multiply the connections a
# worker holds (user_count objects at once, each with this many), not the
# bytes the network carries.
SEGMENT_CONCURRENCY = 4


class Operation(object):
    """The timing of one large-object operation: its start, the first
    response, and the sums of every request's figures."""

    def __init__(self):
        self.start = monotonic()
        self.first = None
        self.retries = 0
        self.reconnects = 0
        self.causes = None
        self.segment_count = 0
        self.segment_retries = 0
        self.segment_seconds = 0.0
        self.slowest = 0.0

    def _count(self, timing):
        if self.first is None:
            # The first request done gives the first response: its own
            # first byte (a GET's) or its end, from the operation's start.
            began = monotonic() - timing.last_byte_latency
            first = timing.first_byte_latency
            self.first = max(0.0, began - self.start) + (
                first if first is not None else timing.last_byte_latency)
        self.retries += timing.retries
        self.reconnects += timing.reconnects
        self.causes = add_causes(self.causes, timing.retry_causes)

    def add(self, timing, segment=False):
        """Count `timing`, the Timing of one request done."""
        self._count(timing)
        if segment:
            self.segment_count += 1
            self.segment_retries += timing.retries
            self.segment_seconds += timing.last_byte_latency
            self.slowest = max(self.slowest, timing.last_byte_latency)
        return timing

    def failed(self, exc):
        """`exc` (RequestError) with the whole operation's figures:
        the retries of the requests done added, its time from the
        operation's start."""
        exc.retries += self.retries
        exc.reconnects += self.reconnects
        exc.retry_causes = add_causes(exc.retry_causes, self.causes)
        exc.time_to_failure = monotonic() - self.start
        return exc

    def timing(self, last, size=None):
        """The operation's Timing, `last` (the final request's Timing)
        giving its status, transaction id and endpoint."""
        timing = Timing(last.status, self.first, monotonic() - self.start,
                        last.trans_id, self.retries, self.reconnects, size,
                        retry_causes=self.causes)
        timing.endpoint = last.endpoint
        timing.segments = self.segment_stats()
        return timing

    def segment_stats(self):
        """The `segments` key of the result: segment requests made, their
        retries, their seconds in all and the slowest one's."""
        if not self.segment_count:
            return None
        return {'count': self.segment_count,
                'retries': self.segment_retries,
                'seconds': self.segment_seconds,
                'slowest': self.slowest}


def each(func, items, limit=SEGMENT_CONCURRENCY):
    """[func(item) for item in items], `limit` calls at a time, in
    greenlets; the first exception stops the others and is raised."""
    items = list(items)
    results = [None] * len(items)
    pending = iter(enumerate(items))
    errors = []

    def run():
        for index, item in pending:
            if errors:
                return
            try:
                results[index] = func(item)
            except Exception as exc:
                errors.append(exc)
                return

    greenlets = [gevent.spawn(run) for _ in range(min(limit, len(items)))]
    try:
        gevent.joinall(greenlets)
    finally:
        gevent.killall(greenlets)
    if errors:
        raise errors[0]
    return results


class SegmentedObjects(object):
    """Runs the jobs of segmented size classes with a store's `client`: a
    READ is one GET of the whole object; the store's subclass says how
    to upload(op, job) (timing its own failure) and delete(op, job)."""

    def __init__(self, client, block_size):
        self.client = client
        self.block_size = block_size

    def run(self, job):
        """The Timing of `job`; raises RequestError."""
        op = Operation()
        kind = job['type']
        if kind in (CREATE_OBJECT, UPDATE_OBJECT):
            return self.upload(op, job)
        try:
            if kind == READ_OBJECT:
                timing = op.add(self.client.get_object(
                    job['container'], job['name'], self.block_size))
                return op.timing(timing, timing.size)
            return self.delete(op, job)
        except RequestError as exc:
            raise op.failed(exc)

"""ssbench.swift.largeobject: a large object's CRUD as one timed
operation, against an in-memory Swift."""
from __future__ import absolute_import, division, print_function

import gevent
import pytest

from ssbench import CREATE_OBJECT, DELETE_OBJECT, READ_OBJECT, UPDATE_OBJECT
from ssbench.store.outcome import Timing
from ssbench.swift.client import SwiftRequestError
from ssbench.wire.messagecheck import check_from_worker
from ssbench.wire import protocol
from ssbench.store import segments
from ssbench.swift import largeobject
from ssbench.worker.execution import StoreJobs
from tests.clocks import FakeClock

pytestmark = pytest.mark.timeout(30)
MiB = 1024 * 1024


class MemorySwift(object):
    """Objects as {(container, name): (size, fill)}, manifests apart; each
    request yields to other greenlets; `fail` maps an object name to the
    status its PUT answers; `retries` to the retries a PUT counts."""

    def __init__(self, fail=None, retries=None):
        self.objects = {}
        self.manifests = {}
        self.requests = []
        self.running = self.most = 0
        self.fail = fail or {}
        self.retries = retries or {}

    def large_objects(self, block_size):
        return largeobject.LargeObjects(self, block_size)

    def _request(self, what, status=201, retries=0, headers=None):
        self.requests.append(what)
        self.running += 1
        self.most = max(self.most, self.running)
        gevent.sleep(0.001)
        self.running -= 1
        timing = Timing(status, None, 0.001, 'tx-%d' % len(self.requests),
                        retries, retry_causes={'503': retries}
                        if retries else None)
        timing.headers = headers
        return timing

    def put_object(self, container, name, size, fill=b'A', block_size=1,
                   delete_after=None, read='discard'):
        plain = unversioned(name)
        if plain in self.fail:
            raise SwiftRequestError('PUT', name, self.fail[plain], 'no',
                                    retries=1, retry_causes={'503': 1},
                                    time_to_failure=0.5)
        self.objects[container, name] = (size, fill)
        return self._request(('PUT', container, name), 201,
                             self.retries.get(plain, 0),
                             {'etag': '"etag-%s"' % name})

    def put_slo_manifest(self, container, name, segments,
                         delete_after=None):
        self.manifests[container, name] = ('slo', segments)
        return self._request(('SLO', container, name))

    def put_dlo_manifest(self, container, name, prefix, delete_after=None):
        self.manifests[container, name] = ('dlo', prefix)
        return self._request(('DLO', container, name))

    def head_object(self, container, name, missing_ok=False):
        found = (container, name) in self.manifests
        return self._request(('HEAD', container, name),
                             200 if found else 404)

    def get_object(self, container, name, block_size=1):
        kind, what = self.manifests[container, name]
        if kind == 'slo':
            size = sum(item[2] for item in what)
        else:
            seg_container, prefix = what.split('/', 1)
            size = sum(self.objects[key][0] for key in self.objects
                       if key[0] == seg_container and
                       key[1].startswith(prefix))
        timing = self._request(('GET', container, name), 200)
        timing.size = size
        timing.first_byte_latency = 0.0002
        return timing

    def list_objects(self, container, prefix=None):
        self.requests.append(('LIST', container, prefix))
        return sorted(key[1] for key in self.objects
                      if key[0] == container and key[1].startswith(prefix))

    def request(self, method, container, name, missing_ok=False):
        assert method == 'DELETE'
        self.objects.pop((container, name), None)
        return self._request(('DELETE', container, name), 204)

    def delete_object(self, container, name):
        del self.manifests[container, name]
        return self._request(('DELETE', container, name), 204)

    def delete_slo(self, container, name):
        kind, segments = self.manifests.pop((container, name))
        for path, _, _ in segments:
            _, seg_container, seg_name = path.split('/', 2)
            del self.objects[seg_container, seg_name]
        return self._request(('DELETE-SLO', container, name), 200)


def unversioned(segment):
    """'name/00000001' of a segment 'name/<version>/00000001'."""
    parts = segment.split('/')
    return '/'.join([parts[0]] + parts[2:]) if len(parts) == 3 else segment


def versions(swift, name='big_000001'):
    return set(key[1].split('/')[1] for key in swift.objects
               if key[0] == 'c_segments' and key[1].startswith(name + '/'))


def job(kind, large_object='slo', size=None, **extra):
    job = {'type': kind, 'size_str': 'big', 'container': 'c',
           'name': 'big_000001', 'segment_size': 4 * MiB,
           'large_object': large_object, 'block_size': 65536, 'job_id': 1}
    if size is not None:
        job['size'] = size
    job.update(extra)
    return job


def run(swift, job):
    return largeobject.LargeObjects(swift, 65536).run(job)


def segments_of(swift, name='big_000001'):
    """The segments of `name` that are stored, without their version."""
    return sorted(unversioned(key[1]) for key in swift.objects
                  if key[0] == 'c_segments' and key[1].startswith(name))


def stored(swift, segment):
    """The (size, fill) of 'name/00000001' in its one stored version."""
    name, index = segment.split('/')
    (version,) = versions(swift, name)
    return swift.objects['c_segments', '%s/%s/%s' % (name, version, index)]


def test_segment_sizes_cover_the_object():
    assert largeobject.segment_sizes(10, 4) == [4, 4, 2]
    assert largeobject.segment_sizes(8, 4) == [4, 4]
    assert largeobject.segment_sizes(3, 4) == [3]
    assert largeobject.segment_name('o', 'v1', 7) == 'o/v1/00000007'
    one, other = largeobject.new_version(), largeobject.new_version()
    assert one != other and len(one) == len(other) == 17


@pytest.mark.parametrize('kind', ['slo', 'dlo'])
def test_create_read_update_delete(kind):
    swift = MemorySwift()
    timing = run(swift, job(CREATE_OBJECT, kind, size=10 * MiB))
    assert segments_of(swift) == ['big_000001/00000000',
                                  'big_000001/00000001',
                                  'big_000001/00000002']
    assert stored(swift, 'big_000001/00000002') == (2 * MiB, b'A')
    (version,) = versions(swift)
    assert timing.segments['count'] == 3
    assert timing.status == 201
    assert 0 < timing.first_byte_latency <= timing.last_byte_latency
    assert timing.segments['slowest'] <= timing.last_byte_latency
    manifest = swift.manifests['c', 'big_000001']
    if kind == 'slo':
        assert manifest == ('slo', [
            ('/c_segments/big_000001/%s/%08d' % (version, i),
             'etag-big_000001/%s/%08d' % (version, i), size)
            for i, size in enumerate([4 * MiB, 4 * MiB, 2 * MiB])])
    else:
        assert manifest == ('dlo', 'c_segments/big_000001/%s/' % version)
    read = run(swift, job(READ_OBJECT, kind))
    assert read.size == 10 * MiB
    # The GET's own first byte, not its end.
    assert 0.0002 <= read.first_byte_latency < read.last_byte_latency
    assert read.first_byte_latency <= 0.0002 + (
        read.last_byte_latency - 0.001)
    # A smaller version: the former third segment goes.
    timing = run(swift, job(UPDATE_OBJECT, kind, size=5 * MiB))
    assert segments_of(swift) == ['big_000001/00000000',
                                  'big_000001/00000001']
    assert stored(swift, 'big_000001/00000001') == (1 * MiB, b'B')
    # A version of its own, the former one's segments all gone.
    assert versions(swift) != set([version])
    assert run(swift, job(READ_OBJECT, kind)).size == 5 * MiB
    # PUT x2, LIST, DELETE of the former version's three.
    assert timing.segments['count'] == 6
    run(swift, job(DELETE_OBJECT, kind))
    assert segments_of(swift) == []
    assert swift.manifests == {}


def test_segments_go_out_a_few_at_a_time():
    swift = MemorySwift()
    run(swift, job(CREATE_OBJECT, size=40 * MiB))
    assert swift.most == segments.SEGMENT_CONCURRENCY
    assert len(segments_of(swift)) == 10


def test_every_requests_retries_count_in_the_operation():
    swift = MemorySwift(retries={'big_000001/00000001': 2,
                                 'big_000001/00000002': 1})
    timing = run(swift, job(CREATE_OBJECT, size=12 * MiB))
    assert timing.retries == 3
    assert timing.retry_causes == {'503': 3}
    assert timing.segments['retries'] == 3


def test_a_failed_segment_fails_the_operation_from_its_start():
    swift = MemorySwift(fail={'big_000001/00000004': 503},
                        retries={'big_000001/00000000': 1})
    with pytest.raises(SwiftRequestError) as info:
        run(swift, job(CREATE_OBJECT, size=40 * MiB))
    exc = info.value
    assert exc.http_status == 503
    # Its own retry and the finished segment's.
    assert exc.retries == 2 and exc.retry_causes == {'503': 2}
    assert exc.time_to_failure > 0
    # No manifest after a failed segment; the other segments stopped.
    assert swift.manifests == {}
    assert len(segments_of(swift)) < 10


def test_head_first_skips_an_object_that_is_there():
    swift = MemorySwift()
    run(swift, job(CREATE_OBJECT, size=5 * MiB))
    before = len(swift.requests)
    timing = run(swift, job(CREATE_OBJECT, size=5 * MiB, head_first=True))
    assert timing.status == 200 and timing.segments is None
    assert len(swift.requests) == before + 1


def test_swift_jobs_record_one_checked_result_per_operation():
    swift = MemorySwift()
    results = []
    jobs = StoreJobs('w1', results.append, lambda *a, **k: swift, None,
                     lambda: None, own_auth=object(), now=FakeClock(1e9))
    for kind in (CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT):
        jobs.run_job(job(kind, size=9 * MiB if kind in (
            CREATE_OBJECT, UPDATE_OBJECT) else None))
    assert [r['type'] for r in results] == [
        CREATE_OBJECT, READ_OBJECT, UPDATE_OBJECT, DELETE_OBJECT]
    for result in results:
        assert 'exception' not in result, result
        assert check_from_worker(protocol.unpack(protocol.pack(
            result))) is None
    assert results[0]['segments']['count'] == 3
    assert results[1]['size'] == 9 * MiB
    assert 'segments' not in results[1]


@pytest.mark.parametrize('kind', ['slo', 'dlo'])
def test_an_update_never_overwrites_what_the_manifest_names(kind):
    swift = MemorySwift()
    run(swift, job(CREATE_OBJECT, kind, size=10 * MiB))
    current = set(key for key in swift.objects if key[0] == 'c_segments')
    before = len(swift.requests)
    run(swift, job(UPDATE_OBJECT, kind, size=10 * MiB))
    written = [r[1:] for r in swift.requests[before:] if r[0] == 'PUT']
    assert len(written) == 3 and not current & set(written)
    # Until its manifest went up, the former version was whole: the
    # deletes come after it.
    kinds = [r[0] for r in swift.requests[before:]]
    assert kinds.index(kind.upper()) < kinds.index('DELETE')

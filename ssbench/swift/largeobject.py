"""Large objects: a job of a segmented size class (`segment_size` and
`large_object` in the job: docs/internals.rst, "Messages from the
master") as one timed operation.

CREATE and UPDATE upload the segments to `<container>_segments` (which
the master creates before the run), named `<object>/<version>/<8-digit
index>` with a version of their own, then the manifest: a static large
object's JSON list of the segments' paths, etags and sizes
(`?multipart-manifest=put`), or a dynamic one's `X-Object-Manifest:
<container>_segments/<object>/<version>/`.  An UPDATE then deletes the
segments of every other version (a listing of `<object>/`), so that no
segment is left behind.  A new version never overwrites the segments
the current manifest names, so a READ racing an UPDATE of the same object
reads the old version or the new one: with segments rewritten in place,
Swift answered such a READ of an SLO 409 (a segment no longer had the
etag its manifest says).  Only a GET still streaming the old version
when the UPDATE deletes its segments can fail.  READ is one GET of the
manifest, which streams the whole object.  DELETE removes an SLO and its
segments with `?multipart-manifest=delete`; a DLO's segments are listed
and deleted, then the manifest.

Segments of one object go out a few at a time, the operation timed as
one request (ssbench.store.segments).
"""
from __future__ import absolute_import, division, print_function

import random
import time

from ssbench import CREATE_OBJECT, UPDATE_OBJECT, segments_container
from ssbench.compat import monotonic
from ssbench.store.outcome import RequestError, Timing
from ssbench.store.segments import SegmentedObjects, each


def segment_name(name, version, index):
    """The name of segment `index` (0, 1, ...) of `version` of object
    `name`."""
    return '%s/%s/%08d' % (name, version, index)


def new_version():
    """A segment version no other upload of the object takes: the upload's
    microsecond, then 16 random bits for uploads of the same one."""
    return '%013x%04x' % (int(time.time() * 1e6), random.getrandbits(16))


def segment_sizes(size, segment_size):
    """The byte counts of the segments of a `size`-byte object (at least
    one segment)."""
    full, rest = divmod(size, segment_size)
    sizes = [segment_size] * full
    if rest or not sizes:
        sizes.append(rest)
    return sizes


class LargeObjects(SegmentedObjects):
    """Runs the jobs of segmented size classes with `client` (a
    ssbench.swift.client.SwiftClient)."""

    def upload(self, op, job):
        try:
            return self._upload(op, job)
        except RequestError as exc:
            raise op.failed(exc)

    def _upload(self, op, job):
        swift = self.client
        container, name = job['container'], job['name']
        seg_container = segments_container(container)
        if job.get('head_first'):
            head = op.add(swift.head_object(container, name, missing_ok=True))
            if head.status != 404:
                return op.timing(head)
        fill = b'A' if job['type'] == CREATE_OBJECT else b'B'
        delete_after = job.get('delete_after')
        sizes = segment_sizes(job['size'], job['segment_size'])
        version = new_version()

        def put(index):
            timing = swift.put_object(seg_container,
                                      segment_name(name, version, index),
                                      sizes[index], fill, self.block_size,
                                      delete_after, read='headers')
            op.add(timing, segment=True)
            return (timing.headers.get('etag') or '').strip('"') or None

        etags = each(put, range(len(sizes)))
        if job['large_object'] == 'dlo':
            last = swift.put_dlo_manifest(
                container, name,
                '%s/%s/%s/' % (seg_container, name, version),
                delete_after)
        else:
            last = swift.put_slo_manifest(container, name, [
                ('/%s/%s' % (seg_container,
                             segment_name(name, version, index)),
                 etags[index], size) for index, size in enumerate(sizes)],
                delete_after)
        op.add(last)
        if job['type'] == UPDATE_OBJECT:
            self._delete_segments(op, seg_container, name, version)
        return op.timing(last)

    def _delete_segments(self, op, seg_container, name, keep=None):
        """Delete the segments of `name` but those of version `keep`."""
        started = monotonic()
        names = self.client.list_objects(seg_container, name + '/')
        # The listing's pages, timed together as one request.
        op.add(Timing(200, None, monotonic() - started, None, 0),
               segment=True)
        kept = '%s/%s/' % (name, keep)
        extra = [segment for segment in names
                 if keep is None or not segment.startswith(kept)]

        def delete(segment):
            op.add(self.client.request('DELETE', seg_container, segment,
                                       missing_ok=True), segment=True)

        each(delete, extra)

    def delete(self, op, job):
        swift = self.client
        container, name = job['container'], job['name']
        if job['large_object'] == 'dlo':
            self._delete_segments(op, segments_container(container), name)
            return op.timing(op.add(swift.delete_object(container, name)))
        return op.timing(op.add(swift.delete_slo(container, name)))

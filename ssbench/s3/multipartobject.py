"""Large objects over S3: a job of a segmented size class as one timed
multipart upload, the S3 counterpart of ssbench.swift.largeobject.

CREATE and UPDATE are CreateMultipartUpload, an UploadPart per Part of
ssbench.s3.multipart.part_plan() (segment_size bytes each, the last the
rest; SEGMENT_CONCURRENCY at a time, as Swift's segments), then
CompleteMultipartUpload of the parts' ETags.  When a request fails for
good (or Complete's 200 carries an <Error>), the upload is aborted
(AbortMultipartUpload) so that its parts are not left stored, and the job
fails with the first failure.  The abort is clean-up, not part of the
job's figures; an abort that fails too is logged, and the upload left
for a cleanup to abort.  READ is a plain GET of the whole object,
DELETE a plain DELETE Object (S3 deletes the parts with it).

The job is timed as the Swift path times a large object (its Operation):
from the first send (CreateMultipartUpload's) to Complete's answer read
(the last byte); the first byte is when the first part to be stored
answered.  Retries, reconnects and retry causes are those of all its
requests; the parts are summed apart in `segments`.  A Complete that
answered 200 with an <Error> fails with status 200 and the S3 code as
its error class.

The master checked every size class against the store's part limits
before the run (ssbench.cli.s3run): the worker only splits.
"""
from __future__ import absolute_import, division, print_function

import logging
import sys

from ssbench import CREATE_OBJECT
from ssbench.s3 import multipart, xmlsafe
from ssbench.s3.errorbody import S3RequestError
from ssbench.store.segments import SegmentedObjects, each

log = logging.getLogger(__name__)

# Limits that refuse nothing: the store's were checked by the master.
_SPLIT_ONLY = multipart.PartLimits(1, sys.maxsize, sys.maxsize)


def _bad_answer(op, timing, exc):
    """S3RequestError of a success whose body `exc` (BadBody) could
    not be read, or an <Error> a 200 carried: its S3 code is the error
    class.  Its retries are left to the Operation that counted
    `timing`."""
    error = S3RequestError(
        op.method, op.target(), timing.status, 'unexpected answer: %s'
        % (exc,), timing.trans_id, error_class=exc.code or 'BadBody')
    error.endpoint = timing.endpoint
    return error


class MultipartObjects(SegmentedObjects):
    """Runs the jobs of segmented size classes with `client` (a
    ssbench.s3.client.S3Client)."""

    def delete(self, op, job):
        return op.timing(op.add(self.client.delete_object(
            job['container'], job['name'])))

    def upload(self, op, job):
        """The Timing of a CREATE or UPDATE; a failure is timed when it
        happened, then the upload aborted."""
        s3 = self.client
        bucket, key = job['container'], job['name']
        upload_id = None
        try:
            if job.get('head_first'):
                head = op.add(s3.head_object(bucket, key, missing_ok=True))
                if head.status != 404:
                    return op.timing(head)
            parts = multipart.part_plan(job['size'], job['segment_size'],
                                        _SPLIT_ONLY)
            request = multipart.create(bucket, key)
            started = s3.send(request, read='keep')
            # CreateMultipartUpload's retries count, but not as the first
            # byte: that is the first part's, as a Swift segment's is.
            first = op.first
            op.add(started)
            op.first = first
            try:
                upload_id = multipart.parse_create(started.body)
            except xmlsafe.BadBody as exc:
                raise _bad_answer(request, started, exc)
            fill = b'A' if job['type'] == CREATE_OBJECT else b'B'
            return self._parts_then_complete(op, bucket, key, upload_id,
                                             parts, fill)
        except Exception as exc:
            if isinstance(exc, S3RequestError):
                op.failed(exc)
            if upload_id is not None:
                self._abort(bucket, key, upload_id)
            raise

    def _parts_then_complete(self, op, bucket, key, upload_id, parts,
                             fill):
        s3 = self.client

        def put(part):
            request = multipart.upload_part(bucket, key, upload_id, part)
            timing = s3.request(request.method, bucket, key,
                                query=request.params, size=part.size,
                                fill=fill, block_size=self.block_size,
                                read='headers')
            op.add(timing, segment=True)
            return timing.headers.get('etag') or ''

        etags = each(put, parts)
        request = multipart.complete(bucket, key, upload_id, etags)
        last = op.add(s3.send(request, read='keep'))
        try:
            multipart.parse_complete(last.body)
        except xmlsafe.BadBody as exc:
            raise _bad_answer(request, last, exc)
        return op.timing(last)

    def _abort(self, bucket, key, upload_id):
        """AbortMultipartUpload of a failed upload; a failure is logged,
        not raised (the upload's own failure is the job's)."""
        try:
            self.client.send(multipart.abort(bucket, key, upload_id),
                             missing_ok=True)
        except S3RequestError as exc:
            log.warning('multipart upload %s of %s/%s not aborted (%s): '
                        'its parts stay stored until a cleanup aborts it',
                        upload_id, bucket, key, exc)

"""Multipart uploads: S3's large objects.

An object of more than segment_size bytes goes up in parts:

    upload_id = parse_create(send(create(bucket, key)))
    for part in part_plan(size, segment_size):      # Part(number, offset,
        etag = send(upload_part(bucket, key, upload_id, part))  # size)
    result = parse_complete(send(complete(bucket, key, upload_id, etags)))

(the ETag of a part is its answer's ETag header).  An upload neither
completed nor aborted keeps its parts stored, unseen by listings of the
bucket's objects: cleanup lists them (list_uploads(), parse_uploads())
and aborts each (abort()).

S3's limits (part_plan() checks them before anything is sent): every
part but the last at least 5 MiB (a smaller one fails only at Complete,
with EntityTooSmall, after all the parts went up), at most 5 GiB, and at
most 10,000 parts.  Swift's s3api has its own, set in its proxy's
[filter:s3api] and shown in its /info (limits_from_info()):
min_segment_size (5 MiB by default; an operator may lower it, to 1 byte
even), max_upload_part_num (1000 by default, not 10,000) and, for the
largest part, Swift's max_file_size (5 GiB by default).

A CompleteMultipartUpload may answer 200 and still fail: the store
answers at once and sends white space while it assembles the object,
then the result, or an <Error>.  parse_complete() reads that error as
BadBody with its code, as it reads any other.
"""
from __future__ import absolute_import

import binascii
import collections
import hashlib

from ssbench.errors import ScenarioError
from ssbench.s3 import xmlsafe
from ssbench.s3.operation import Operation, object_path, with_body

MIB = 1024 * 1024
MIN_PART = 5 * MIB          # every part but the last
MAX_PART = 5 * 1024 * MIB
MAX_PARTS = 10000
# The most uploads one ListMultipartUploads answer names.
MAX_UPLOADS = 1000

Part = collections.namedtuple('Part', 'number offset size')
PartLimits = collections.namedtuple('PartLimits',
                                    'min_part max_part max_parts')
S3_LIMITS = PartLimits(MIN_PART, MAX_PART, MAX_PARTS)
Upload = collections.namedtuple('Upload', 'key upload_id')
UploadPage = collections.namedtuple(
    'UploadPage', 'uploads truncated next_key_marker next_upload_id_marker')
Completed = collections.namedtuple('Completed', 'bucket key etag')


def limits_from_info(info):
    """The PartLimits of a Swift whose /info (a dict) is `info`: its
    s3api's and Swift's own where it states them, S3's otherwise."""
    s3api = info.get('s3api') if isinstance(info.get('s3api'), dict) \
        else {}
    swift = info.get('swift') if isinstance(info.get('swift'), dict) \
        else {}

    def limit(section, name, default):
        value = section.get(name)
        good = isinstance(value, int) and not isinstance(value, bool) \
            and value > 0
        return value if good else default

    return PartLimits(limit(s3api, 'min_segment_size', MIN_PART),
                      limit(swift, 'max_file_size', MAX_PART),
                      limit(s3api, 'max_upload_part_num', MAX_PARTS))


def part_plan(size, segment_size, limits=S3_LIMITS):
    """The Parts of a `size`-byte object uploaded `segment_size` bytes a
    part (the last part the rest; at least one part); ScenarioError when
    the store's `limits` (PartLimits) refuse that."""
    if segment_size < limits.min_part:
        raise ScenarioError(
            'segment_size %d is below the store\'s smallest part, %d bytes '
            '(S3 takes no part under 5 MiB but the last)'
            % (segment_size, limits.min_part))
    if segment_size > limits.max_part:
        raise ScenarioError('segment_size %d is above the store\'s largest '
                            'part, %d bytes' % (segment_size,
                                                limits.max_part))
    count = max(1, -(-size // segment_size))
    if count > limits.max_parts:
        raise ScenarioError(
            'an object of %d bytes is %d parts of segment_size %d, above '
            'the store\'s %d parts: give a larger segment_size'
            % (size, count, segment_size, limits.max_parts))
    return [Part(number, (number - 1) * segment_size,
                 min(segment_size, size - (number - 1) * segment_size))
            for number in range(1, count + 1)]


def create(bucket, key, headers=()):
    """The CreateMultipartUpload request of an object."""
    return Operation('POST', object_path(bucket, key), [('uploads', '')],
                     list(headers), b'')


def parse_create(body):
    """The UploadId of a CreateMultipartUpload answer (bytes)."""
    upload_id = xmlsafe.parse(body, 'InitiateMultipartUploadResult') \
        .findtext('UploadId')
    if not upload_id:
        raise xmlsafe.BadBody('no UploadId')
    return upload_id


def upload_part(bucket, key, upload_id, part):
    """The UploadPart request of a Part; its body of part.size bytes is
    the caller's to send."""
    return Operation('PUT', object_path(bucket, key),
                     [('partNumber', str(part.number)),
                      ('uploadId', upload_id)],
                     [('Content-Length', str(part.size))], b'')


def _quoted(etag):
    return u'"%s"' % xmlsafe.escape(etag).strip(u'"')


def complete_body(etags):
    """The CompleteMultipartUpload body (bytes) of the parts' ETags, part
    1 first (quoted or not)."""
    if not etags:
        raise ValueError('a multipart upload completes with one part at '
                         'least')
    parts = [u'<CompleteMultipartUpload xmlns="%s">' % xmlsafe.XMLNS]
    parts.extend(u'<Part><ETag>%s</ETag><PartNumber>%d</PartNumber></Part>'
                 % (_quoted(etag), number)
                 for number, etag in enumerate(etags, 1))
    parts.append(u'</CompleteMultipartUpload>')
    return u''.join(parts).encode('utf-8')


def complete(bucket, key, upload_id, etags):
    """The CompleteMultipartUpload request of an upload whose parts have
    the ETags `etags`, part 1 first."""
    return with_body('POST', object_path(bucket, key),
                     [('uploadId', upload_id)], complete_body(etags))


def parse_complete(body):
    """The Completed (bucket, key, ETag) of a CompleteMultipartUpload
    answer (bytes); BadBody with the S3 code (InvalidPart,
    EntityTooSmall, ...) for the error a 200 may carry."""
    root = xmlsafe.parse(body, 'CompleteMultipartUploadResult')
    etag = root.findtext('ETag')
    if not etag:
        raise xmlsafe.BadBody('no ETag')
    return Completed(root.findtext('Bucket'), root.findtext('Key'), etag)


def multipart_etag(etags):
    """The ETag S3 gives the object of parts with ETags `etags` (each an
    MD5 in hex, quoted or not): the MD5 of their MD5s, a '-' and their
    count, unquoted."""
    digest = hashlib.md5(b''.join(
        binascii.unhexlify(etag.strip('"')) for etag in etags))
    return '%s-%d' % (digest.hexdigest(), len(etags))


def abort(bucket, key, upload_id):
    """The AbortMultipartUpload request: the upload's parts deleted."""
    return Operation('DELETE', object_path(bucket, key),
                     [('uploadId', upload_id)], [], b'')


def list_uploads(bucket, prefix=None, key_marker=None,
                 upload_id_marker=None, max_uploads=None):
    """The ListMultipartUploads request of one page of a bucket's
    uploads in progress; the markers are the last page's next ones."""
    params = [('uploads', '')]
    for name, value in (('prefix', prefix), ('key-marker', key_marker),
                        ('upload-id-marker', upload_id_marker)):
        if value:
            params.append((name, value))
    if max_uploads is not None:
        if not 1 <= max_uploads <= MAX_UPLOADS:
            raise ValueError('max-uploads is 1 to %d, not %r'
                             % (MAX_UPLOADS, max_uploads))
        params.append(('max-uploads', str(max_uploads)))
    return Operation('GET', object_path(bucket), params, [], b'')


def parse_uploads(body):
    """The UploadPage of a ListMultipartUploads answer (bytes): each
    Upload (key, upload id), whether more follow, and the markers that
    ask for them."""
    root = xmlsafe.parse(body, 'ListMultipartUploadsResult')
    uploads = [Upload(node.findtext('Key'), node.findtext('UploadId'))
               for node in root.findall('Upload')]
    if not all(upload.key and upload.upload_id for upload in uploads):
        raise xmlsafe.BadBody('an Upload without its Key or UploadId')
    return UploadPage(uploads, root.findflag('IsTruncated'),
                      root.findtext('NextKeyMarker') or None,
                      root.findtext('NextUploadIdMarker') or None)

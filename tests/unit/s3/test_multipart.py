"""multipart: the part plan within S3's (and s3api's) limits, the
requests and CompleteMultipartUpload body as botocore serializes them,
and the answers read as botocore reads them."""
from __future__ import absolute_import, division, print_function

import hashlib

import pytest

from ssbench.errors import ScenarioError
from ssbench.s3 import multipart
from ssbench.s3.multipart import MIB, Part, PartLimits, Upload
from ssbench.s3.xmlsafe import BadBody
from tests.unit.s3.reference import captured, parsed, serialized, tree

# What the local Swift's /info says (Swift 2.38.3, default settings).
SAIO_INFO = {
    'swift': {'max_file_size': 5368709122},
    's3api': {'max_upload_part_num': 1000, 'max_multi_delete_objects': 1000,
              'min_segment_size': 5242880, 'max_bucket_listing': 1000}}


def test_full_parts_then_the_rest():
    assert multipart.part_plan(12 * MIB + 3, 5 * MIB) == [
        Part(1, 0, 5 * MIB), Part(2, 5 * MIB, 5 * MIB),
        Part(3, 10 * MIB, 2 * MIB + 3)]
    assert multipart.part_plan(10 * MIB, 5 * MIB) == [
        Part(1, 0, 5 * MIB), Part(2, 5 * MIB, 5 * MIB)]


def test_an_object_of_one_segment_or_none_is_one_part():
    assert multipart.part_plan(3, 5 * MIB) == [Part(1, 0, 3)]
    assert multipart.part_plan(0, 5 * MIB) == [Part(1, 0, 0)]


def test_parts_under_the_stores_minimum_are_refused_before_any_upload():
    with pytest.raises(ScenarioError) as caught:
        multipart.part_plan(100 * MIB, 1 * MIB)
    assert 'segment_size 1048576 is below the store\'s smallest part, ' \
        '5242880 bytes' in str(caught.value)


def test_a_store_that_takes_smaller_parts_gets_them():
    limits = PartLimits(1, multipart.MAX_PART, 1000)
    assert len(multipart.part_plan(10, 3, limits)) == 4


def test_too_many_or_too_large_parts_are_refused():
    with pytest.raises(ScenarioError) as caught:
        multipart.part_plan(10001 * 5 * MIB, 5 * MIB)
    assert 'above the store\'s 10000 parts' in str(caught.value)
    assert len(multipart.part_plan(10000 * 5 * MIB, 5 * MIB)) == 10000
    with pytest.raises(ScenarioError):
        multipart.part_plan(10 * 1024 * MIB, 5 * 1024 * MIB + 1)


def test_s3api_limits_come_from_its_info():
    limits = multipart.limits_from_info(SAIO_INFO)
    assert limits == PartLimits(5 * MIB, 5368709122, 1000)
    with pytest.raises(ScenarioError):
        multipart.part_plan(1001 * 5 * MIB, 5 * MIB, limits)
    assert multipart.limits_from_info({}) == multipart.S3_LIMITS
    assert multipart.limits_from_info(
        {'s3api': {'min_segment_size': True, 'max_upload_part_num': 0},
         'swift': 'x'}) == multipart.S3_LIMITS


def test_create_upload_part_and_abort_as_botocore_serializes_them():
    theirs = serialized('CreateMultipartUpload', {'Bucket': 'b',
                                                  'Key': u'k y'})
    op = multipart.create(u'b', u'k y')
    assert (op.method, op.target()) == ('POST', '/b/k%20y?uploads=')
    assert theirs['url_path'] == '/b/k%20y?uploads'
    part = Part(7, 0, 10)
    theirs = serialized('UploadPart', {'Bucket': 'b', 'Key': 'k',
                                       'UploadId': 'u+/=', 'PartNumber': 7,
                                       'Body': b'x' * 10})
    op = multipart.upload_part(u'b', u'k', u'u+/=', part)
    assert dict(op.params) == dict(
        (name, str(value)) for name, value in theirs['query_string'].items())
    assert op.target() == '/b/k?partNumber=7&uploadId=u%2B%2F%3D'
    assert op.headers == [('Content-Length', '10')]
    theirs = serialized('AbortMultipartUpload', {'Bucket': 'b', 'Key': 'k',
                                                 'UploadId': 'u'})
    op = multipart.abort(u'b', u'k', u'u')
    assert (op.method, dict(op.params)) == ('DELETE', theirs['query_string'])


def parts_of(body):
    """The root tag and each Part's {tag: text}, in order (botocore
    2.7's puts PartNumber first, later ones ETag: either goes)."""
    root, _, parts = tree(body)
    return root, [dict((tag, text) for tag, text, _ in part[2])
                  for part in parts]


def test_the_complete_body_is_the_one_botocore_serializes():
    etags = ['"%s"' % hashlib.md5(str(n).encode()).hexdigest()
             for n in range(3)]
    theirs = serialized('CompleteMultipartUpload', {
        'Bucket': 'b', 'Key': 'k', 'UploadId': 'u', 'MultipartUpload': {
            'Parts': [{'ETag': etag, 'PartNumber': number}
                      for number, etag in enumerate(etags, 1)]}})
    assert parts_of(multipart.complete_body(etags)) == \
        parts_of(theirs['body'])
    assert multipart.complete_body([etag.strip('"') for etag in etags]) \
        == multipart.complete_body(etags)
    op = multipart.complete(u'b', u'k', u'u', etags)
    assert (op.method, op.params) == ('POST', [('uploadId', u'u')])
    assert op.body == multipart.complete_body(etags)
    with pytest.raises(ValueError):
        multipart.complete_body([])


def test_captured_answers_read_as_botocore_reads_them():
    body = captured('create.xml')
    assert multipart.parse_create(body) == \
        parsed('CreateMultipartUpload', body)['UploadId']
    body = captured('complete.xml')
    theirs = parsed('CompleteMultipartUpload', body)
    assert tuple(multipart.parse_complete(body)) == (
        theirs['Bucket'], theirs['Key'], theirs['ETag'])
    body = captured('listuploads.xml')
    theirs = parsed('ListMultipartUploads', body)
    page = multipart.parse_uploads(body)
    assert page == (
        [Upload(upload['Key'], upload['UploadId'])
         for upload in theirs['Uploads']], theirs['IsTruncated'],
        theirs['NextKeyMarker'] or None,
        theirs['NextUploadIdMarker'] or None)
    assert page.uploads[0].key == u'big & <large>'


def test_the_captured_etag_is_that_of_the_parts():
    # The parts of 5 MiB and 10 bytes of b'p' (tests/s3capture.py).
    etags = [hashlib.md5(b'p' * size).hexdigest()
             for size in (5 * MIB, 10)]
    assert multipart.parse_complete(captured('complete.xml')).etag == \
        '"%s"' % multipart.multipart_etag(etags)


@pytest.mark.parametrize('name, code', [
    ('complete-invalidpart.xml', 'InvalidPart'),
    ('complete-entitytoosmall.xml', 'EntityTooSmall')])
def test_a_failed_complete_is_a_bad_body_with_its_code(name, code):
    with pytest.raises(BadBody) as caught:
        multipart.parse_complete(captured(name))
    assert caught.value.code == code


def test_an_error_after_the_white_space_of_a_200_is_read_too():
    body = (b'<?xml version="1.0" encoding="UTF-8"?>\n' + b' ' * 20 +
            b'\n<Error><Code>InternalError</Code><Message>x</Message>'
            b'</Error>')
    with pytest.raises(BadBody) as caught:
        multipart.parse_complete(body)
    assert caught.value.code == 'InternalError'


def test_list_uploads_pages_by_markers():
    op = multipart.list_uploads(u'b', prefix=u'ssbench', key_marker=u'k',
                                upload_id_marker=u'u', max_uploads=10)
    theirs = serialized('ListMultipartUploads', {
        'Bucket': 'b', 'Prefix': 'ssbench', 'KeyMarker': 'k',
        'UploadIdMarker': 'u', 'MaxUploads': 10})
    query = dict((name, str(value))
                 for name, value in theirs['query_string'].items())
    query['uploads'] = ''       # in botocore's url_path
    assert dict(op.params) == query
    assert multipart.list_uploads(u'b').params == [('uploads', '')]
    with pytest.raises(ValueError):
        multipart.list_uploads(u'b', max_uploads=0)


@pytest.mark.parametrize('parse, body', [
    (multipart.parse_create, b'<InitiateMultipartUploadResult/>'),
    (multipart.parse_complete, b'<CompleteMultipartUploadResult/>'),
    (multipart.parse_uploads, b'<ListMultipartUploadsResult><Upload><Key>k'
     b'</Key></Upload></ListMultipartUploadsResult>'),
])
def test_an_answer_without_what_is_needed_is_a_bad_body(parse, body):
    with pytest.raises(BadBody):
        parse(body)


def test_the_multipart_etag_is_the_md5_of_the_md5s():
    # As s3api computes it (multi_upload.py) for two parts.
    one, two = hashlib.md5(b'a'), hashlib.md5(b'b')
    assert multipart.multipart_etag(['"%s"' % one.hexdigest(),
                                     two.hexdigest()]) == '%s-2' % \
        hashlib.md5(one.digest() + two.digest()).hexdigest()

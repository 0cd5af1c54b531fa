"""listing: ListObjectsV2 and ListBuckets requests as botocore builds
them, and their answers read as botocore reads them."""
from __future__ import absolute_import, division, print_function

import pytest
from botocore.handlers import decode_list_object_v2

from ssbench.compat import text_type
from ssbench.s3 import listing, sigv4
from ssbench.s3.listing import ObjectEntry
from ssbench.s3.xmlsafe import BadBody
from tests.unit.s3.reference import captured, parsed, serialized


def test_the_query_is_the_one_botocore_serializes():
    op = listing.list_objects(u'bkt', prefix=u'dir/a b+c\xe9',
                              continuation_token=u'x+y/z==', max_keys=3)
    theirs = serialized('ListObjectsV2', {
        'Bucket': 'bkt', 'Prefix': u'dir/a b+c\xe9',
        'ContinuationToken': u'x+y/z==', 'MaxKeys': 3,
        'EncodingType': 'url'})
    query = dict((name, value if isinstance(value, text_type) else
                  str(value))
                 for name, value in theirs['query_string'].items())
    query['list-type'] = '2'       # in botocore's url_path
    assert theirs['url_path'] == '/bkt?list-type=2'
    assert dict(op.params) == query
    assert (op.method, op.path, op.headers, op.body) == \
        ('GET', u'/bkt', [], b'')


def test_the_query_goes_out_escaped_and_sorted_as_sigv4_signs_it():
    op = listing.list_objects(u'bkt', prefix=u'a b', max_keys=2,
                              continuation_token=u'Y2Fm+w6k/=')
    assert op.target() == (
        '/bkt?continuation-token=Y2Fm%2Bw6k%2F%3D&encoding-type=url&'
        'list-type=2&max-keys=2&prefix=a%20b')
    assert op.target().partition('?')[2] == sigv4.canonical_query(op.params)


def test_a_first_page_asks_for_no_token_and_no_prefix():
    assert listing.list_objects('bkt').params == [
        ('list-type', '2'), ('encoding-type', 'url')]


@pytest.mark.parametrize('max_keys', [0, 1001])
def test_max_keys_is_one_to_a_thousand(max_keys):
    with pytest.raises(ValueError):
        listing.list_objects('bkt', max_keys=max_keys)


def botocore_page(body):
    """botocore's reading of a listing, keys decoded as its client does
    when it asked for encoding-type=url itself."""
    theirs = parsed('ListObjectsV2', body)
    decode_list_object_v2(theirs, {'encoding_type_auto_set': True})
    return ([ObjectEntry(entry['Key'], entry['Size'],
                         entry.get('ETag'))
             for entry in theirs.get('Contents', [])],
            theirs['IsTruncated'], theirs.get('NextContinuationToken'))


@pytest.mark.parametrize('name', ['listobjects-truncated.xml',
                                  'listobjects-last.xml'])
def test_captured_pages_read_as_botocore_reads_them(name):
    page = listing.parse_objects(captured(name))
    assert tuple(page) == botocore_page(captured(name))


def test_the_captured_pages_hold_the_keys_put():
    first = listing.parse_objects(captured('listobjects-truncated.xml'))
    last = listing.parse_objects(captured('listobjects-last.xml'))
    assert first.truncated and not last.truncated
    assert first.next_token == u'Y2Fmw6kvw6l0w6k=' and last.next_token is None
    assert [entry.key for entry in first.objects + last.objects] == [
        u'"q\'', u'a&b <c>.txt', u'caf\xe9/\xe9t\xe9', u'x+y z']
    assert first.objects[0].size == 3


def test_aws_writes_a_space_as_plus_and_both_read_it_so():
    body = (b'<ListBucketResult><EncodingType>url</EncodingType>'
            b'<IsTruncated>false</IsTruncated><Contents><Key>a+b%2Bc%20d'
            b'</Key><Size>0</Size></Contents></ListBucketResult>')
    assert listing.parse_objects(body).objects[0].key == u'a b+c d'
    assert botocore_page(body)[0][0].key == u'a b+c d'


def test_keys_not_url_encoded_are_read_as_they_are():
    body = (b'<ListBucketResult><Contents><Key>a+b%20</Key><Size>1</Size>'
            b'</Contents></ListBucketResult>')
    assert listing.parse_objects(body).objects == [
        ObjectEntry(u'a+b%20', 1, None)]


@pytest.mark.parametrize('body', [
    b'<ListBucketResult><IsTruncated>true</IsTruncated></ListBucketResult>',
    b'<ListBucketResult><Contents><Size>1</Size></Contents>'
    b'</ListBucketResult>',
    b'<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents>'
    b'</ListBucketResult>',
    b'<ListBucketResult><Contents><Key>k</Key></Contents>'
    b'</ListBucketResult>',
    b'<ListBucketResult><EncodingType>url</EncodingType><Contents><Key>%FF'
    b'</Key><Size>1</Size></Contents></ListBucketResult>',
    b'<Error><Code>NoSuchBucket</Code></Error>',
])
def test_a_listing_that_cannot_be_followed_is_a_bad_body(body):
    with pytest.raises(BadBody):
        listing.parse_objects(body)


def test_list_buckets_asks_for_the_prefix():
    assert listing.list_buckets() == ('GET', u'/', [], [], b'')
    op = listing.list_buckets(prefix='ssbench-', continuation_token='t')
    assert op.target() == '/?continuation-token=t&prefix=ssbench-'


def test_captured_buckets_read_as_botocore_reads_them():
    body = captured('listbuckets.xml')
    theirs = parsed('ListBuckets', body)
    page = listing.parse_buckets(body)
    assert page.names == [bucket['Name'] for bucket in theirs['Buckets']]
    assert page.names[0].startswith(u'capture-') and page.next_token is None


def test_buckets_are_kept_by_prefix_whether_or_not_the_store_heeded_it():
    body = (b'<ListAllMyBucketsResult><Buckets>'
            b'<Bucket><Name>ssbench-000001-gold</Name></Bucket>'
            b'<Bucket><Name>other</Name></Bucket></Buckets>'
            b'<ContinuationToken>more</ContinuationToken>'
            b'</ListAllMyBucketsResult>')
    assert listing.parse_buckets(body, u'ssbench-') == \
        ([u'ssbench-000001-gold'], u'more')
    assert listing.parse_buckets(b'<ListAllMyBucketsResult><Buckets/>'
                                 b'</ListAllMyBucketsResult>') == ([], None)
    with pytest.raises(BadBody):
        listing.parse_buckets(b'<ListAllMyBucketsResult><Buckets><Bucket/>'
                              b'</Buckets></ListAllMyBucketsResult>')

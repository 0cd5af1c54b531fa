"""batchdelete: the DeleteObjects body as botocore serializes it (but
for a key with '\\r', which botocore sends so that the server reads '\\n'),
and its answers read as botocore reads them."""
from __future__ import absolute_import, division, print_function

import base64
import hashlib

import pytest

from ssbench.s3 import batchdelete
from ssbench.s3.batchdelete import DeleteError, DeleteResult
from ssbench.s3.xmlsafe import BadBody
from tests.unit.s3.reference import captured, parsed, serialized, tree

KEYS = [u'plain', u'a&b <c> "d\'', u'caf\xe9/\u00e9t\xe9', u'x+y z']


@pytest.mark.parametrize('quiet', [True, False])
def test_the_body_is_the_one_botocore_serializes(quiet):
    theirs = serialized('DeleteObjects', {
        'Bucket': 'bkt', 'Delete': {
            'Objects': [{'Key': key} for key in KEYS], 'Quiet': quiet}})
    body = batchdelete.delete_body(KEYS, quiet)
    if quiet:
        assert body == theirs['body']
    else:   # botocore says <Quiet>false</Quiet>, the default
        assert tree(body)[2] == tree(theirs['body'])[2][:-1]


def test_a_carriage_return_reaches_the_server_as_one():
    body = batchdelete.delete_body([u'line\rend'])
    assert tree(body)[2][0][2][0][1] == u'line\rend'
    theirs = serialized('DeleteObjects', {
        'Bucket': 'bkt', 'Delete': {'Objects': [{'Key': u'line\rend'}]}})
    assert tree(theirs['body'])[2][0][2][0][1] == u'line\nend'


def test_the_request_posts_to_delete_with_the_md5_of_its_body():
    op = batchdelete.delete_objects(u'bkt', KEYS)
    assert (op.method, op.path, op.params) == ('POST', u'/bkt',
                                               [('delete', '')])
    assert dict(op.headers)['Content-MD5'] == base64.b64encode(
        hashlib.md5(op.body).digest()).decode('ascii')
    assert dict(op.headers)['Content-Length'] == str(len(op.body))


@pytest.mark.parametrize('count', [0, batchdelete.MAX_KEYS + 1])
def test_one_request_names_one_to_a_thousand_keys(count):
    with pytest.raises(ValueError):
        batchdelete.delete_body([u'k'] * count)


def test_a_key_xml_cannot_carry_is_refused():
    with pytest.raises(ValueError):
        batchdelete.delete_body([u'bell\x07'])


def test_keys_go_in_batches_of_a_thousand():
    sizes = [len(batch) for batch in batchdelete.batches(
        u'k%d' % n for n in range(2345))]
    assert sizes == [1000, 1000, 345]
    assert list(batchdelete.batches([])) == []
    assert list(batchdelete.batches('abc', 2)) == [['a', 'b'], ['c']]


def botocore_result(body):
    theirs = parsed('DeleteObjects', body)
    return DeleteResult(
        [entry['Key'] for entry in theirs.get('Deleted', [])],
        [DeleteError(entry['Key'], entry['Code'], entry['Message'])
         for entry in theirs.get('Errors', [])])


@pytest.mark.parametrize('name', ['delete-verbose.xml', 'delete-quiet.xml'])
def test_captured_results_read_as_botocore_reads_them(name):
    body = captured(name)
    assert batchdelete.parse_result(body) == botocore_result(body)


def test_the_captured_results():
    # s3api deletes two at a time: the answer is in the order they ended.
    deleted, errors = batchdelete.parse_result(captured('delete-verbose.xml'))
    assert sorted(deleted) == [u'a&b <c>.txt', u'caf\xe9/\xe9t\xe9',
                               u'never there']
    assert errors == []
    assert batchdelete.parse_result(captured('delete-quiet.xml')) == ([], [])


def test_errors_come_with_their_codes():
    # As s3api writes a key it could not delete (multi_delete.py).
    body = (b'<?xml version="1.0" encoding="UTF-8"?>\n<DeleteResult xmlns='
            b'"http://s3.amazonaws.com/doc/2006-03-01/"><Deleted><Key>a'
            b'</Key></Deleted><Error><Key>b&amp;c</Key><Code>AccessDenied'
            b'</Code><Message>Access Denied.</Message></Error><Error><Key>d'
            b'</Key><Code>SLODeleteError</Code><Message>409 Conflict\nseg: '
            b'409</Message></Error></DeleteResult>')
    result = batchdelete.parse_result(body)
    assert result == botocore_result(body)
    assert result.errors[0] == (u'b&c', u'AccessDenied', u'Access Denied.')


@pytest.mark.parametrize('body', [
    b'<DeleteResult><Error><Code>X</Code></Error></DeleteResult>',
    b'<DeleteResult><Deleted/></DeleteResult>',
    b'<Error><Code>MalformedXML</Code></Error>',
])
def test_a_result_without_keys_is_a_bad_body(body):
    with pytest.raises(BadBody):
        batchdelete.parse_result(body)

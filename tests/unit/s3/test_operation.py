"""operation: an S3 request's wire target and body headers."""
from __future__ import absolute_import, division, print_function

import base64
import hashlib

from ssbench.s3 import sigv4
from ssbench.s3.operation import (Operation, content_md5, object_path,
                                  with_body)


def test_the_target_is_the_path_and_query_as_sigv4_signs_them():
    op = Operation('GET', u'/b/caf\xe9 x+y', [('uploadId', 'a/b+c'),
                                              ('partNumber', '2')], [], b'')
    assert op.target() == '/b/caf%C3%A9%20x%2By?partNumber=2&uploadId=' \
        'a%2Fb%2Bc'
    assert op.target().partition('?')[0] == \
        sigv4.uri_encode(op.path, True)
    assert Operation('GET', u'/b', [], [], b'').target() == '/b'
    assert Operation('POST', u'/b', [('delete', '')], [], b'').target() \
        == '/b?delete='


def test_object_paths_take_text_or_utf8():
    assert object_path('b') == u'/b'
    assert object_path('b', u'caf\xe9') == object_path(
        'b', u'caf\xe9'.encode('utf-8')) == u'/b/caf\xe9'


def test_a_body_goes_with_its_length_and_md5():
    op = with_body('POST', u'/b', [], b'<x/>', [('X-A', '1')])
    assert op.headers == [
        ('Content-Length', '4'),
        ('Content-MD5', base64.b64encode(hashlib.md5(b'<x/>').digest())
         .decode('ascii')),
        ('Content-Type', 'application/xml'), ('X-A', '1')]
    assert type(content_md5(b'')) is str

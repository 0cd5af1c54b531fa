"""botocore as the independent reference of tests/unit/s3: the requests
its rest-xml serializer builds from S3's service model, the answers its
parser reads, and the answers captured from Swift's s3api
(tests/data/s3)."""
from __future__ import absolute_import, division, print_function

import io
import os
import xml.etree.ElementTree as ElementTree

import botocore.session
from botocore import parsers, serialize

from tests import paths

MODEL = botocore.session.get_session().get_service_model('s3')
CAPTURED = os.path.join(paths.DATA, 's3')


def captured(name):
    """The bytes of one captured answer."""
    with io.open(os.path.join(CAPTURED, name), 'rb') as fp:
        return fp.read()


def serialized(operation, params):
    """The request dict botocore's serializer makes of an operation."""
    return serialize.create_serializer('rest-xml', True).serialize_to_request(
        params, MODEL.operation_model(operation))


def parsed(operation, body, status=200):
    """What botocore's parser reads in an answer to an operation."""
    return parsers.create_parser('rest-xml').parse(
        {'body': body, 'headers': {}, 'status_code': status},
        MODEL.operation_model(operation).output_shape)


def tree(body):
    """An XML body as nested (tag, text, children), as a server's XML
    parser (the standard library's) reads it."""
    def walk(node):
        return (node.tag, (node.text or u'').strip() or None,
                [walk(child) for child in node])
    return walk(ElementTree.fromstring(body))

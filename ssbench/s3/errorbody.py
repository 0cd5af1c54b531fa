"""An S3 request's failure: S3RequestError, and the S3 error code
(SlowDown, NoSuchKey, AccessDenied, ...) and message of an error
response's XML body, found without an XML parser: the body is small and
only these two elements are wanted."""
from __future__ import absolute_import

import re

from ssbench.compat import PY2
from ssbench.errors import S3Error
from ssbench.store.outcome import RequestError

_CODE = re.compile(br'<Code>([A-Za-z0-9.]{1,64})</Code>')
_MESSAGE = re.compile(br'<Message>([^<]{0,1024})</Message>')


class S3RequestError(RequestError, S3Error):
    """An S3 request that failed for good; `error_class` names the S3
    code of its error body, when it had one."""


def _text(data):
    return data if PY2 else data.decode('utf-8', 'replace')


def s3_error(body):
    """(code, message) of an S3 error body (bytes): native strings, each
    None when the body has none."""
    code = _CODE.search(body)
    message = _MESSAGE.search(body)
    return (_text(code.group(1)) if code else None,
            _text(message.group(1)) if message else None)

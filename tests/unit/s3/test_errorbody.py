"""errorbody: the S3 error code and message of an error response."""
from __future__ import absolute_import, division, print_function

from ssbench.s3.errorbody import s3_error

# As Swift's s3api answers a wrong secret (its Message, shortened).
S3API = (b"<?xml version='1.0' encoding='UTF-8'?>\n<Error><Code>"
         b"SignatureDoesNotMatch</Code><Message>The request signature we "
         b"calculated does not match the signature you provided.</Message>"
         b"<AWSAccessKeyId>test:tester</AWSAccessKeyId></Error>")


def test_the_code_and_message_of_s3api():
    assert s3_error(S3API) == (
        'SignatureDoesNotMatch', 'The request signature we calculated does '
        'not match the signature you provided.')


def test_a_body_without_them_gives_none():
    assert s3_error(b'') == (None, None)
    assert s3_error(b'<html>503 Service Unavailable</html>') == (None, None)
    assert s3_error(b'<Error><Code>SlowDown</Code></Error>') == \
        ('SlowDown', None)


def test_a_code_is_a_name_not_markup():
    assert s3_error(b'<Code><b>x</b></Code>') == (None, None)
    assert s3_error(b'<Code>' + b'A' * 65 + b'</Code>') == (None, None)


def test_a_message_of_other_bytes_than_utf8_is_still_text():
    _, message = s3_error(b'<Message>caf\xe9</Message>')
    assert type(message) is str

"""sigv4: S3 requests signed as the published SigV4 test vectors and the
AWS S3 documentation say, and exactly as botocore signs them."""
from __future__ import absolute_import, division, print_function

import binascii
import hashlib
import io
import os

import pytest
from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials
from botocore.utils import percent_encode

from ssbench.compat import PY2
from ssbench.s3 import sigv4
from tests import paths

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urllib import unquote
else:
    from urllib.parse import unquote

VECTORS = os.path.join(paths.DATA, 'sigv4')
# The test suite's credentials and scope (tests/data/sigv4/SOURCE.txt).
SUITE_ACCESS = 'AKIDEXAMPLE'
SUITE_SECRET = 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY'
SUITE_DATE = '20150830'
SUITE_REGION = 'us-east-1'
SUITE_SERVICE = 'service'

ACCESS = 'test:tester'
SECRET = 'testing'
REGION = 'us-east-1'
HOST = '127.0.0.1:8080'


def native(data):
    """A vector file's bytes as the native string (bytes on 2.7, whose
    byte strings the signer takes as UTF-8)."""
    return data if PY2 else data.decode('utf-8')


def read_vector(name, ext):
    with io.open(os.path.join(VECTORS, name, '%s.%s' % (name, ext)),
                 'rb') as fp:
        return native(fp.read())


def parse_request(text):
    """(method, raw path, raw query pairs, headers, body) of a .req file;
    a header line that starts with white space continues the last one, and
    a newline may end the file."""
    head, _, body = text.partition('\n\n')
    lines = head.rstrip('\n').split('\n')
    method, target = lines[0].split(' ', 1)
    target = target.rsplit(' ', 1)[0]        # ' HTTP/1.1'; a path may hold
    path, _, query = target.partition('?')   # a space (get-space)
    params = [tuple(unquote(part) for part in pair.partition('=')[::2])
              for pair in query.split('&') if pair]
    headers = []
    for line in lines[1:]:
        if line[:1] in (' ', '\t'):
            name, value = headers.pop()
            headers.append((name, value + '\n' + line))
        else:
            name, _, value = line.partition(':')
            headers.append((name, value))
    if not isinstance(body, bytes):
        body = body.encode('utf-8')
    return method, path, params, headers, body


def suite_vectors():
    return sorted(name for name in os.listdir(VECTORS)
                  if os.path.isdir(os.path.join(VECTORS, name)))


def test_the_suite_is_all_there():
    assert len(suite_vectors()) == 25


@pytest.mark.parametrize('name', suite_vectors())
def test_the_published_sigv4_test_suite(name):
    method, path, params, headers, body = parse_request(
        read_vector(name, 'req'))
    date = dict((n.lower(), v) for n, v in headers)['x-amz-date']
    creq, _ = sigv4.canonical_request(method, path, params, headers,
                                      sigv4.payload_hash(body))
    assert creq == read_vector(name, 'creq')
    key = sigv4.SigningKey(SUITE_ACCESS, SUITE_DATE, SUITE_REGION,
                           sigv4.derive_key(SUITE_SECRET, SUITE_DATE,
                                            SUITE_REGION, SUITE_SERVICE),
                           SUITE_SERVICE)
    assert sigv4.string_to_sign(date, key.scope, creq) == \
        read_vector(name, 'sts')
    assert key.authorization(method, path, params, headers, date,
                             sigv4.payload_hash(body)) == \
        read_vector(name, 'authz')


def test_the_derived_key_of_the_aws_documentation():
    # AWS General Reference, "Examples of how to derive a signing key".
    key = sigv4.derive_key(SUITE_SECRET, '20120215', 'us-east-1', 'iam')
    assert binascii.hexlify(key) == \
        b'f4780e2d9f65fa895f9c67b32ce1baf0b0d8a43505a000a1a9e090d414db404d'


def test_the_get_object_example_of_the_s3_documentation():
    # Amazon S3 API Reference, "Signature Calculations for the
    # Authorization Header", Example: GET Object (its secret has a '/'
    # where the test suite's has a '+').
    secret = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY'
    key = sigv4.SigningKey('AKIAIOSFODNN7EXAMPLE', '20130524', 'us-east-1',
                           sigv4.derive_key(secret, '20130524', 'us-east-1'))
    extra = key.sign('GET', '/test.txt', (), 'examplebucket.s3.amazonaws.com',
                     [('Range', 'bytes=0-9')], '20130524T000000Z',
                     sigv4.EMPTY_PAYLOAD)
    assert extra == [
        ('x-amz-date', '20130524T000000Z'),
        ('x-amz-content-sha256', sigv4.EMPTY_PAYLOAD),
        ('Authorization', 'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/'
         '20130524/us-east-1/s3/aws4_request, SignedHeaders=host;range;'
         'x-amz-content-sha256;x-amz-date, Signature=f0e8bdb87c964420e857bd'
         '35b5d6ed310bd44f0170aba48dd91039c6036bdb41')]


# -- against botocore's S3 signer ---------------------------------------------

def botocore_signs(method, path, params, headers, body, signed_payload):
    """(wire path, headers) of a request botocore's S3SigV4Auth signed:
    the path encoded by botocore's own S3 key encoding."""
    wire_path = percent_encode(path, safe='/~')
    request = AWSRequest(method=method, url='http://%s%s' % (HOST, wire_path),
                         headers=dict(headers), data=body,
                         params=dict(params))
    request.context['client_config'] = Config(
        s3={'payload_signing_enabled': signed_payload})
    S3SigV4Auth(Credentials(ACCESS, SECRET), 's3', REGION).add_auth(request)
    return wire_path, dict((name.lower(), value)
                           for name, value in request.headers.items())


def ours(method, path, params, headers, body, signed_payload, amz_date):
    key = sigv4.SigningKey(ACCESS, amz_date[:8], REGION,
                           sigv4.derive_key(SECRET, amz_date[:8], REGION))
    payload = sigv4.payload_hash(body) if signed_payload \
        else sigv4.UNSIGNED_PAYLOAD
    return dict((name.lower(), value) for name, value in key.sign(
        method, path, params, HOST, headers, amz_date, payload))


# A key with characters that S3 needs escaped (not '/', never twice), one
# that a path normalizer would change, and a key of non-ASCII text.
KEYS = [u'/ssbench_000001/plain_object-1.txt',
        u'/bucket/dir/my file+name;$&=,:@!*\'()[]%#?.txt~',
        u'/bucket/a//b/./c/../d',
        u'/bucket/caf\xe9/\u1234\u00e9']


@pytest.mark.parametrize('path', KEYS)
@pytest.mark.parametrize('signed_payload', [False, True])
def test_a_put_is_signed_as_botocore_signs_it(path, signed_payload):
    body = b'x' * 1000
    headers = [('Content-Length', '1000'),
               ('Content-Type', 'application/octet-stream')]
    wire, theirs = botocore_signs('PUT', path, (), headers, body,
                                  signed_payload)
    mine = ours('PUT', path, (), headers, body, signed_payload,
                theirs['x-amz-date'])
    assert sigv4.uri_encode(path, True) == wire
    for name in ('x-amz-date', 'x-amz-content-sha256', 'authorization'):
        assert mine[name] == theirs[name]


@pytest.mark.parametrize('method', ['GET', 'DELETE', 'HEAD'])
def test_a_bodiless_request_is_signed_as_botocore_signs_it(method):
    wire, theirs = botocore_signs(method, KEYS[1], (), [], b'', False)
    mine = ours(method, KEYS[1], (), [], b'', False, theirs['x-amz-date'])
    assert mine['authorization'] == theirs['authorization']


def test_a_query_is_signed_as_botocore_signs_it():
    # ListObjectsV2 with a prefix and a token that need escaping, and a
    # name with an empty value, sorted by name.
    params = [('prefix', 'dir/a b+c'), ('list-type', '2'),
              ('continuation-token', 'x+y=z/w'), ('max-keys', '1000'),
              ('start-after', '')]
    _, theirs = botocore_signs('GET', '/bucket', params,
                               [('Range', 'bytes=0-9')], b'', False)
    mine = ours('GET', '/bucket', params, [('Range', 'bytes=0-9')], b'',
                False, theirs['x-amz-date'])
    assert mine['authorization'] == theirs['authorization']


def test_a_wrong_secret_signs_otherwise():
    _, theirs = botocore_signs('GET', KEYS[0], (), [], b'', False)
    key = sigv4.SigningKey(ACCESS, theirs['x-amz-date'][:8], REGION,
                           sigv4.derive_key('wrong', theirs['x-amz-date'][:8],
                                            REGION))
    extra = dict(key.sign('GET', KEYS[0], (), HOST, [],
                          theirs['x-amz-date']))
    assert extra['Authorization'] != theirs['authorization']


# -- escaping -----------------------------------------------------------------

def test_uri_encode_keeps_only_the_unreserved_characters():
    assert sigv4.uri_encode('a-Z_0.9~') == 'a-Z_0.9~'
    assert sigv4.uri_encode('a b+c/d=e%') == 'a%20b%2Bc%2Fd%3De%25'
    assert sigv4.uri_encode('/a b/c', True) == '/a%20b/c'
    assert sigv4.uri_encode(u'\xe9') == '%C3%A9'


def test_uri_encode_takes_bytes_as_utf8_and_gives_native_strings():
    assert sigv4.uri_encode(b'caf\xc3\xa9 x') == 'caf%C3%A9%20x'
    assert isinstance(sigv4.uri_encode(u'plain'), str)
    assert isinstance(sigv4.uri_encode(u'pl ain'), str)


def test_an_encoded_path_is_not_encoded_twice_nor_normalized():
    # S3 signs the path as sent: a '%' in a key is a character of the key.
    assert sigv4.uri_encode('/b/%41//./x', True) == '/b/%2541//./x'


def test_a_repeated_query_name_sorts_by_value():
    assert sigv4.canonical_query([('b', '2'), ('a', 'z'), ('b', '1'),
                                  ('uploads', '')]) == \
        'a=z&b=1&b=2&uploads='


def test_headers_are_lower_cased_trimmed_and_repeats_joined():
    block, signed = sigv4.canonical_headers(
        [('X-B', '  two   words '), ('x-a', '1'), ('X-A', '2')])
    assert block == 'x-a:1,2\nx-b:two words\n'
    assert signed == 'x-a;x-b'


# -- the key ------------------------------------------------------------------

def make_key(date='20240229'):
    return sigv4.SigningKey(ACCESS, date, REGION,
                            sigv4.derive_key(SECRET, date, REGION))


def test_a_key_signs_nothing_dated_another_day():
    with pytest.raises(sigv4.WrongDate) as caught:
        make_key().sign('GET', '/b/o', (), HOST, [], '20240301T000000Z')
    assert str(caught.value) == ('a request of 20240301 cannot be signed '
                                 'with the key of 20240229')


def test_a_key_is_32_bytes_and_its_date_yyyymmdd():
    key = sigv4.derive_key(SECRET, '20240229', REGION)
    with pytest.raises(ValueError):
        sigv4.SigningKey(ACCESS, '2024-02-29', REGION, key)
    with pytest.raises(ValueError):
        sigv4.SigningKey(ACCESS, '20240229', REGION, key[:16])


def test_the_repr_of_a_key_holds_no_key():
    key = make_key()
    text = repr(key)
    assert text == ("SigningKey('test:tester', '20240229', 'us-east-1', "
                    "service='s3')")
    assert binascii.hexlify(key.key).decode('ascii') not in text


def test_sign_signs_host_the_given_headers_and_its_own():
    extra = make_key().sign('PUT', '/b/o', (), HOST,
                            [('Content-Length', '5')], '20240229T235959Z',
                            sigv4.payload_hash(b'hello'))
    assert [name for name, _ in extra] == \
        ['x-amz-date', 'x-amz-content-sha256', 'Authorization']
    assert extra[1][1] == hashlib.sha256(b'hello').hexdigest()
    assert 'SignedHeaders=content-length;host;x-amz-content-sha256;' \
        'x-amz-date, ' in extra[2][1]
    assert '/20240229/us-east-1/s3/aws4_request, ' in extra[2][1]


def test_amz_date_is_utc():
    assert sigv4.amz_date(0) == '19700101T000000Z'
    assert sigv4.amz_date(1709251199.9) == '20240229T235959Z'

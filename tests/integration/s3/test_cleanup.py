"""cleanup-containers --s3 (ssbench.s3.cleanup) against a fake S3 server
that pages its listings two entries at a time: which buckets go, uploads
aborted, objects deleted by DeleteObjects (and a DELETE for a key XML
cannot carry), and failures as one line."""
from __future__ import absolute_import, division, print_function

import calendar
import collections
import logging
import re
import threading

import pytest

from ssbench.compat import PY2
from ssbench.errors import StoreError
from ssbench.s3 import cleanup
from tests import s3fake
from tests.clocks import FakeClock

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urllib import quote, unquote
    from urlparse import parse_qsl, urlsplit
else:
    from urllib.parse import parse_qsl, quote, unquote, urlsplit

pytestmark = pytest.mark.timeout(30)


NOON = calendar.timegm((2024, 2, 29, 12, 0, 0, 0, 0, 0))


PAGE = 2


XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/'


BUCKET = 'ssbench-000001-default-policy'


def _xml(root, inner):
    return ('<?xml version="1.0" encoding="UTF-8"?><%s xmlns="%s">%s</%s>'
            % (root, XMLNS, inner, root)).encode('utf-8')


def _error(code):
    return '<Error><Code>%s</Code><Message>no</Message></Error>' % code


def _unescape(text):
    return text.replace('&lt;', '<').replace('&gt;', '>') \
        .replace('&#13;', '\r').replace('&amp;', '&')


class FakeS3(object):
    """Buckets of keys and uploads; `refused` keys fail in DeleteObjects
    with AccessDenied; a `lagging` bucket's DELETE answers 409 twice, as
    if its listing lagged; `requests` is (method, path, query) of each."""

    def __init__(self):
        self.buckets = collections.OrderedDict()
        self.uploads = {}
        self.refused = set()
        self.lagging = collections.Counter()
        self.requests = []
        self.lock = threading.Lock()

    def answer(self, method, path, query, body):
        bucket, _, key = path[1:].partition('/')
        params = dict(query)
        if not bucket:
            return 200, self.list_buckets(params)
        if bucket not in self.buckets:
            return 404, _xml('Error', _error('NoSuchBucket'))
        keys = self.buckets[bucket]
        if method == 'GET' and 'uploads' in params:
            return 200, self.list_uploads(bucket, params)
        if method == 'GET':
            return 200, self.list_objects(keys, params)
        if method == 'POST' and 'delete' in params:
            return 200, self.delete_objects(keys, body)
        if method == 'DELETE' and 'uploadId' in params:
            self.uploads[bucket].remove((key, params['uploadId']))
            return 204, b''
        if method == 'DELETE' and key:
            keys.discard(key)
            return 204, b''
        if method == 'DELETE':
            self.lagging[bucket] -= 1
            if keys or self.uploads.get(bucket) or \
                    self.lagging[bucket] >= 0:
                return 409, _xml('Error', _error('BucketNotEmpty'))
            del self.buckets[bucket]
            return 204, b''
        return 400, b''

    def list_buckets(self, params):
        names = sorted(self.buckets)
        start = int(params.get('continuation-token', 0))
        more = start + PAGE < len(names)
        inner = '<Buckets>%s</Buckets>' % ''.join(
            '<Bucket><Name>%s</Name></Bucket>' % name
            for name in names[start:start + PAGE])
        if more:
            inner += '<ContinuationToken>%d</ContinuationToken>' % (
                start + PAGE)
        return _xml('ListAllMyBucketsResult', inner)

    def list_objects(self, keys, params):
        assert params['encoding-type'] == 'url'
        # As S3's, a token says where the last page ended (a key), not
        # how many came before: deletes in between skip nothing.
        after = unquote(params.get('continuation-token', ''))
        if PY2:  # pragma: no cover - exercised by the 2.7 run
            after = after.decode('utf-8')
        names = sorted(name for name in keys if name > after)
        more = len(names) > PAGE
        inner = '<EncodingType>url</EncodingType>' + ''.join(
            '<Contents><Key>%s</Key><Size>1</Size></Contents>'
            % quote(name.encode('utf-8')) for name in names[:PAGE])
        inner += '<IsTruncated>%s</IsTruncated>' % ('true' if more else
                                                    'false')
        if more:
            inner += '<NextContinuationToken>%s</NextContinuationToken>' % (
                quote(names[PAGE - 1].encode('utf-8')))
        return _xml('ListBucketResult', inner)

    def list_uploads(self, bucket, params):
        uploads = sorted(self.uploads.get(bucket, ()))
        after = (params.get('key-marker', ''),
                 params.get('upload-id-marker', ''))
        left = [upload for upload in uploads if upload > after]
        page, more = left[:1], len(left) > 1
        inner = ''.join('<Upload><Key>%s</Key><UploadId>%s</UploadId>'
                        '</Upload>' % upload for upload in page)
        inner += '<IsTruncated>%s</IsTruncated>' % ('true' if more else
                                                    'false')
        if more:
            inner += '<NextKeyMarker>%s</NextKeyMarker><NextUploadIdMarker>' \
                '%s</NextUploadIdMarker>' % page[-1]
        return _xml('ListMultipartUploadsResult', inner)

    def delete_objects(self, keys, body):
        named = [_unescape(key) for key in re.findall(
            r'<Key>([^<]*)</Key>', body.decode('utf-8'))]
        assert 1 <= len(named) <= 1000
        errors = ''
        for key in named:
            if key in self.refused:
                errors += '<Error><Key>%s</Key><Code>AccessDenied</Code>' \
                    '<Message>Access Denied</Message></Error>' % key
            else:
                keys.discard(key)
        return _xml('DeleteResult', errors)


class _Stateful(s3fake.Handler):
    """Hands each request to server.fake (a FakeS3)."""

    def respond(self, body):
        parts = urlsplit(self.path)
        path = unquote(parts.path)
        if PY2:  # pragma: no cover - exercised by the 2.7 run
            path = path.decode('utf-8')
        query = parse_qsl(parts.query, keep_blank_values=True)
        fake = self.server.fake
        with fake.lock:
            fake.requests.append((self.command, path, dict(query)))
            status, reply = fake.answer(self.command, path, query, body)
        self.reply(status, reply)


@pytest.fixture
def fake():
    with s3fake.serving(_Stateful, fake=FakeS3()) as httpd:
        httpd.fake.client = s3fake.client_of(httpd.url, FakeClock(NOON),
                                             'secret', 0)
        yield httpd.fake
        httpd.fake.client.close()


def test_buckets_uploads_and_objects_go_other_buckets_stay(fake):
    keep = 'ssbench-other-000001-default-policy'
    for name in (BUCKET, 'ssbench-000002-default-policy', keep,
                 'other-000001-default-policy'):
        fake.buckets[name] = set(['a', 'b'])
    # Five keys: three pages; one XML cannot carry, one with its escapes.
    fake.buckets[BUCKET] = set([u'k1', u'k 2+', u'ctl\x01key', u'a&<b>',
                                u'caf\xe9'])
    fake.uploads[BUCKET] = set([('big', 'u1'), ('big', 'u2'),
                                ('other', 'u3')])
    stats = cleanup.cleanup_buckets(fake.client, concurrency=2)
    assert list(fake.buckets) == [keep, 'other-000001-default-policy']
    assert (stats.containers, stats.objects) == (2, 7)
    assert (stats.failures, stats.object_failures) == (0, 0)
    assert fake.uploads[BUCKET] == set()
    deletes = [(method, path) for method, path, query in fake.requests
               if method in ('POST', 'DELETE') and 'uploadId' not in query]
    assert ('DELETE', '/%s/ctl\x01key' % BUCKET) in deletes
    assert len([1 for method, _ in deletes if method == 'POST']) == 4
    # The listing asked for the base's prefix, every page of it.
    lists = [query for method, path, query in fake.requests if path == '/']
    assert lists == [{'prefix': 'ssbench-'},
                     {'prefix': 'ssbench-', 'continuation-token': '2'}]


def test_refused_keys_are_counted_and_the_bucket_stays(fake, caplog):
    fake.buckets[BUCKET] = set(['a', 'b', 'c'])
    fake.refused.add('b')
    with caplog.at_level(logging.ERROR):
        with pytest.raises(StoreError) as info:
            cleanup.cleanup_buckets(fake.client, concurrency=1)
    assert str(info.value) == \
        '1 bucket(s) and 1 object(s) could not be deleted'
    assert fake.buckets[BUCKET] == set(['b'])
    text = caplog.text
    assert 'could not delete 1 objects in %s: b: AccessDenied' % BUCKET \
        in text
    assert 'could not delete bucket %s: it still holds the 1 objects' \
        % BUCKET in text
    assert 'Traceback' not in text
    # Never asked to delete: it holds an object.
    assert ('DELETE', '/' + BUCKET, {}) not in fake.requests


def test_a_bucket_not_empty_yet_is_tried_again(fake):
    fake.buckets[BUCKET] = set(['a'])
    fake.lagging[BUCKET] = 2
    pauses = []
    stats = cleanup.cleanup_buckets(fake.client, sleep=pauses.append)
    assert pauses == [0.2, 0.4] and not fake.buckets
    assert (stats.containers, stats.objects) == (1, 1)


def test_a_refused_listing_is_one_line_naming_the_s3_code(fake):
    original = fake.answer

    def answer(method, path, query, body):
        if path == '/':
            return 403, _xml('Error', _error('SignatureDoesNotMatch'))
        return original(method, path, query, body)
    fake.answer = answer
    with pytest.raises(StoreError) as info:
        cleanup.cleanup_buckets(fake.client)
    text = str(info.value)
    assert text.startswith('cannot list buckets: GET ')
    assert '403 Forbidden SignatureDoesNotMatch' in text
    assert len(text.splitlines()) == 1


def test_an_answer_that_is_no_listing_is_named(fake):
    fake.list_buckets = lambda params: b'<html>hello</html>'
    with pytest.raises(StoreError) as info:
        cleanup.cleanup_buckets(fake.client)
    assert str(info.value).startswith(
        'cannot list buckets: the answer is not the S3 document expected')


def _endless_objects(tokens):
    """A ListObjectsV2 answer of key 'k', truncated, whose next token is
    tokens(the token asked with)."""
    def list_objects(keys, params):
        token = tokens(params.get('continuation-token'))
        return _xml('ListBucketResult', '<Contents><Key>k</Key><Size>1'
                    '</Size></Contents><IsTruncated>true</IsTruncated>'
                    '<NextContinuationToken>%s</NextContinuationToken>'
                    % token)
    return list_objects


def _object_lists(fake):
    return [query for method, path, query in fake.requests
            if method == 'GET' and 'list-type' in query]


@pytest.mark.parametrize('tokens, asked', [
    # The same token again and again.
    (lambda asked: 'T', 2),
    # Round and round: A, B, C, A...
    (lambda asked: {None: 'A', 'A': 'B', 'B': 'C', 'C': 'A'}[asked], 4),
])
def test_a_listing_that_repeats_its_token_ends_the_bucket(fake, caplog,
                                                          tokens, asked):
    fake.buckets[BUCKET] = set(['k'])
    fake.list_objects = _endless_objects(tokens)
    with caplog.at_level(logging.ERROR):
        with pytest.raises(StoreError) as info:
            cleanup.cleanup_buckets(fake.client, concurrency=1)
    assert str(info.value) == \
        '1 bucket(s) and 0 object(s) could not be deleted'
    assert len(_object_lists(fake)) == asked
    again = tokens(tokens(None)) if asked == 2 else 'A'
    assert ('could not delete bucket %s: ListObjectsV2 of bucket %s does '
            'not advance: it hands out "%s" again, so the same page would '
            'be asked for again' % (BUCKET, BUCKET, again)) in caplog.text
    assert 'Traceback' not in caplog.text


def test_a_listing_of_endless_new_tokens_ends_at_max_pages(fake, caplog,
                                                           monkeypatch):
    monkeypatch.setattr(cleanup, 'MAX_PAGES', 5)
    fake.buckets[BUCKET] = set(['k'])
    fake.list_objects = _endless_objects(
        lambda asked: str(int(asked or 0) + 1))
    with caplog.at_level(logging.ERROR):
        with pytest.raises(StoreError):
            cleanup.cleanup_buckets(fake.client, concurrency=1)
    assert len(_object_lists(fake)) == 5
    assert 'ListObjectsV2 of bucket %s: more than 5 pages; not ended' \
        % BUCKET in caplog.text


def test_upload_markers_that_repeat_end_the_bucket(fake, caplog):
    fake.buckets[BUCKET] = set()
    fake.uploads[BUCKET] = set([('big', 'u1')])

    def list_uploads(bucket, params):
        # Always the same upload, and the same markers past it.
        return _xml('ListMultipartUploadsResult', '<Upload><Key>big</Key>'
                    '<UploadId>u1</UploadId></Upload><IsTruncated>true'
                    '</IsTruncated><NextKeyMarker>big</NextKeyMarker>'
                    '<NextUploadIdMarker>u1</NextUploadIdMarker>')
    fake.list_uploads = list_uploads
    fake.answer_abort = fake.answer

    def answer(method, path, query, body):
        if method == 'DELETE' and 'uploadId' in dict(query):
            return 204, b''
        return fake.answer_abort(method, path, query, body)
    fake.answer = answer
    with caplog.at_level(logging.ERROR):
        with pytest.raises(StoreError):
            cleanup.cleanup_buckets(fake.client, concurrency=1)
    lists = [query for method, path, query in fake.requests
             if 'uploads' in query]
    assert len(lists) == 2
    assert ('ListMultipartUploads of bucket %s does not advance: it hands '
            'out ("big", "u1") again' % BUCKET) in caplog.text


@pytest.mark.parametrize('repeat', [True, False])
def test_a_bucket_listing_that_does_not_end_is_one_line(fake, monkeypatch,
                                                        repeat):
    monkeypatch.setattr(cleanup, 'MAX_BUCKET_PAGES', 3)

    def list_buckets(params):
        asked = int(params.get('continuation-token', 0))
        return _xml('ListAllMyBucketsResult', '<Buckets/><ContinuationToken>'
                    '%d</ContinuationToken>' % (1 if repeat else asked + 1))
    fake.list_buckets = list_buckets
    with pytest.raises(StoreError) as info:
        cleanup.cleanup_buckets(fake.client)
    expected = ("cannot list buckets: ListBuckets does not advance: it "
                'hands out "1" again' if repeat else
                'cannot list buckets: ListBuckets: more than 3 pages; not '
                'ended')
    assert str(info.value).startswith(expected)
    assert len(str(info.value).splitlines()) == 1
    assert len(fake.requests) == (2 if repeat else 3)


def test_the_whole_cleanup_ends_at_its_deadline_said_once(fake, caplog):
    for index in (1, 2, 3):
        fake.buckets['ssbench-%06d-default-policy' % index] = set(['k'])
    fake.list_objects = _endless_objects(
        lambda asked: str(int(asked or 0) + 1))
    clock = FakeClock(start=0.0, step=1.0)
    with caplog.at_level(logging.ERROR):
        with pytest.raises(StoreError) as info:
            cleanup.cleanup_buckets(fake.client, concurrency=1,
                                    deadline=10, clock=clock)
    assert str(info.value) == ('cleanup-containers --s3 did not end within '
                               '10 s: 3 bucket(s) not deleted')
    # Each reading moved the clock a second: ten checks in all.
    assert clock.now <= 12
    assert 'could not delete bucket' not in caplog.text


def test_a_listing_over_its_byte_limit_is_refused_not_read(fake):
    fake.client.max_body = 2000
    fake.list_buckets = lambda params: _xml(
        'ListAllMyBucketsResult', '<Buckets>%s</Buckets>' % (
            '<Bucket><Name>x</Name></Bucket>' * 200))
    with pytest.raises(StoreError) as info:
        cleanup.cleanup_buckets(fake.client)
    text = str(info.value)
    assert text.startswith('cannot list buckets: GET ')
    assert text.endswith('failed: BodyTooLarge: response body of %d bytes, '
                         'over the 2000 read whole' % len(
                             fake.list_buckets({})))
    assert len(text.splitlines()) == 1

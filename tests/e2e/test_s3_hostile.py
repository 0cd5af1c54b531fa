"""A hostile S3 endpoint on 127.0.0.1 (a server of this test's own) cannot
keep `ssbench-master cleanup-containers --s3` or `run-scenario --s3`
going, nor bloat it: listings that hand out a continuation token or
upload markers again end, and a ListBuckets answer of tens of MB, or an
endless one, is refused after its first megabytes (docs/reliability.rst,
"Answers from outside").  Each command ends with one line naming the
cause and status 1, its peak RSS measured by the child itself."""
from __future__ import absolute_import, division, print_function

import os
import re
import sys

import pytest

from tests import s3fake
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(180)]

GOOD = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
BUCKET = 'ssbench-000000-default-policy'
XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/'
# The hard bound of each command: a hang is killed (status -9) by then.
BOUND = 90
# Peak RSS of a command that refused the answer: Python, gevent and
# ssbench take some 40-60 MB; reading a 40 MB listing whole took 700.
RSS_BOUND_KB = 200 * 1024
# A child that reports its own peak RSS (kB) when it exits: VmHWM, of
# its own image only (ru_maxrss keeps the forking test's own peak across
# exec, 240 MB late in a py27 e2e run).
MEASURED = (
    'import atexit, re, runpy, sys\n'
    'atexit.register(lambda: sys.stderr.write("PEAK-RSS %s\\n" % '
    're.search(r"VmHWM:\\s*(\\d+)", open("/proc/self/status").read())'
    '.group(1)))\n'
    'sys.argv = ["ssbench-master"] + sys.argv[1:]\n'
    'runpy.run_module("ssbench.cli.master", run_name="__main__")\n')


def _xml(root, inner):
    return ('<?xml version="1.0" encoding="UTF-8"?><%s xmlns="%s">%s</%s>'
            % (root, XMLNS, inner, root)).encode('utf-8')


# A huge ListBuckets answer: well-formed, of many buckets (what costs a
# parser most), made a block of 1000 at a time.
HEAD = b'<?xml version="1.0"?><ListAllMyBucketsResult><Buckets>'
TAIL = b'</Buckets></ListAllMyBucketsResult>'
BLOCK = b''.join(b'<Bucket><Name>other-%06d</Name><CreationDate>2024-02-29'
                 b'T12:00:00.000Z</CreationDate></Bucket>' % index
                 for index in range(1000))


class _Hostile(s3fake.Handler):
    """Answers as server.kind says: 'token' (ListObjectsV2 hands out its
    token again), 'uploads' (ListMultipartUploads its markers again),
    'buckets' (ListBuckets its token again), 'huge' (a ListBuckets
    answer of server.size bytes, sent as it is made), 'endless' (a
    chunked ListBuckets answer that never ends)."""

    def respond(self, body):
        server = self.server
        with server.lock:
            server.seen.append(self.path)
        path, _, query = self.path.partition('?')
        kind = server.kind
        if path == '/' and kind in ('huge', 'endless'):
            return self.stream(kind == 'endless', server.size)
        if path == '/':
            token = '<ContinuationToken>again</ContinuationToken>' \
                if kind == 'buckets' else ''
            return self.reply(200, _xml(
                'ListAllMyBucketsResult', '<Buckets><Bucket><Name>%s</Name>'
                '</Bucket></Buckets>%s' % (BUCKET, token)))
        if 'uploads' in query:
            more = '<Upload><Key>big</Key><UploadId>u1</UploadId></Upload>' \
                '<IsTruncated>true</IsTruncated><NextKeyMarker>big' \
                '</NextKeyMarker><NextUploadIdMarker>u1' \
                '</NextUploadIdMarker>' if kind == 'uploads' else ''
            return self.reply(200, _xml('ListMultipartUploadsResult', more))
        if self.command == 'DELETE':
            return self.reply(204)
        if 'list-type' in query:
            return self.reply(200, _xml(
                'ListBucketResult', '<IsTruncated>true</IsTruncated>'
                '<NextContinuationToken>again</NextContinuationToken>'))
        return self.reply(404)

    def stream(self, endless, size):
        """A ListBuckets answer of buckets to `size` bytes, or without
        end, sent as it is made."""
        self.send_response(200)
        if endless:
            self.send_header('Transfer-Encoding', 'chunked')
        else:
            self.send_header('Content-Length', str(size))
        self.end_headers()
        try:
            if endless:
                while True:
                    self.wfile.write(b'%x\r\n%s\r\n' % (len(BLOCK), BLOCK))
            self.wfile.write(HEAD)
            left = size - len(HEAD) - len(TAIL)
            while left > 0:
                piece = BLOCK if left >= len(BLOCK) else b' ' * left
                self.wfile.write(piece)
                left -= len(piece)
            self.wfile.write(TAIL)
        except (IOError, OSError):
            pass      # the client stopped reading: what it should do


def _env(url):
    return dict(support.no_auth_env(), AWS_ACCESS_KEY_ID='AKID',
                AWS_SECRET_ACCESS_KEY='the-secret', AWS_ENDPOINT_URL=url,
                AWS_REGION='us-east-1', AWS_DEFAULT_REGION='')


def _master(kind, *args, **state):
    """ssbench-master ARGS --s3 against a _Hostile server of `kind`:
    (Ran, the paths it was asked for, the child's peak RSS in kB)."""
    with s3fake.serving(_Hostile, kind=kind, seen=[],
                        size=state.get('size', 0)) as httpd:
        argv = [sys.executable, '-c', MEASURED] + list(args) + \
            ['--s3', '--network-timeout', '10']
        ran = support.run(argv, BOUND, env=_env(httpd.url))
        seen = list(httpd.seen)
    peak = re.search(r'PEAK-RSS (\d+)', ran.err)
    return ran, seen, int(peak.group(1)) if peak else None


def _errors(ran):
    assert ran.status == 1, ran
    assert 'Traceback' not in ran.err, ran
    return [line for line in ran.err.splitlines()
            if line.startswith('ERROR:')]


def test_cleanup_ends_when_list_buckets_repeats_its_token():
    ran, seen, _ = _master('buckets', 'cleanup-containers')
    assert _errors(ran) == [
        'ERROR:cannot list buckets: ListBuckets does not advance: it hands '
        'out "again" again, so the same page would be asked for again']
    assert len(seen) == 2


@pytest.mark.parametrize('kind, listing, marker', [
    ('token', 'ListObjectsV2', '"again"'),
    ('uploads', 'ListMultipartUploads', '("big", "u1")'),
])
def test_cleanup_ends_when_a_bucket_listing_repeats(kind, listing, marker):
    ran, seen, _ = _master(kind, 'cleanup-containers')
    errors = _errors(ran)
    assert errors[0] == (
        'ERROR:could not delete bucket %s: %s of bucket %s does not '
        'advance: it hands out %s again, so the same page would be asked '
        'for again' % (BUCKET, listing, BUCKET, marker))
    assert errors[1:] == [
        'ERROR:1 bucket(s) and 0 object(s) could not be deleted']
    # ListBuckets, then two pages of the listing (and an abort for each
    # upload page, a delete for each object page).
    assert len(seen) <= 6, seen


@pytest.mark.parametrize('kind', ['huge', 'endless'])
def test_cleanup_refuses_a_huge_list_buckets_in_bounded_memory(kind):
    size = 40 * 1024 * 1024
    ran, seen, peak = _master(kind, 'cleanup-containers', size=size)
    errors = _errors(ran)
    assert len(errors) == 1 and errors[0].startswith(
        'ERROR:cannot list buckets: GET '), ran
    assert errors[0].endswith(
        'failed: BodyTooLarge: response body of %d bytes, over the 8388608 '
        'read whole' % size if kind == 'huge' else
        'failed: BodyTooLarge: response body over the 8388608 bytes read '
        'whole'), ran
    assert len(seen) == 1
    assert peak is not None and peak < RSS_BOUND_KB, (peak, ran)


def test_run_scenario_refuses_a_huge_list_buckets(tmpdir):
    stats = str(tmpdir.join('run.stat'))
    ran, seen, peak = _master(
        'huge', 'run-scenario', '-f', GOOD, '-s', stats, '--workers', '1',
        *support.zmq_args(), size=40 * 1024 * 1024)
    errors = _errors(ran)
    assert len(errors) == 1 and errors[0].startswith('ERROR:GET '), ran
    assert 'BodyTooLarge: response body of %d bytes, over the 8388608 ' \
        'read whole' % (40 * 1024 * 1024) in errors[0]
    assert seen == ['/']
    assert peak is not None and peak < RSS_BOUND_KB, (peak, ran)
    assert tmpdir.listdir() == []

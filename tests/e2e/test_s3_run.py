"""run-scenario --s3 against the local Swift's S3 API (tools/saio): the
very small scenario with two workers, without an error, its report
rendered, its summary line logged, and its header naming the protocol; a
wrong secret is one line naming SignatureDoesNotMatch; the secret is in
no file the run wrote nor on the master-worker wire.  The buckets are
deleted with botocore."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import json
import os

import pytest

from tests import localswift
from tests.e2e import support
from tests.e2e.pcap import Capture, tcpdump_usable
from tests.e2e.s3support import botocore_s3, delete_bucket, s3_env
from tests.paths import ROOT

pytestmark = pytest.mark.e2e

VERY_SMALL = os.path.join(ROOT, 'scenarios', 'very_small.scenario')
SECRET = localswift.S3_SECRET.encode('utf-8')


# Containers (buckets) of the runs here (-c).
BUCKETS = 10


def bucket_names(prefix):
    return ['%s%06d-default-policy' % (prefix, index)
            for index in range(BUCKETS)]


def delete_buckets(prefix):
    """Delete the buckets of a run under `prefix` with their objects
    (by name: ListBuckets would list every container of the account),
    all at once: one after another, their four or five round trips each
    took 13-20 s of a CI test's teardown."""
    s3 = botocore_s3()
    # A botocore client is safe to share between threads.
    support.in_parallel(lambda name: delete_bucket(s3, name),
                        bucket_names(prefix), threads=BUCKETS)


@pytest.fixture
def very_small(tmpdir):
    """(path, bucket prefix) of very_small.scenario under a base of its
    own; its buckets are deleted afterwards."""
    localswift.require_swift()
    with io.open(VERY_SMALL, encoding='utf-8') as fp:
        data = json.load(fp)
    data['container_base'] = support.unique_base()
    path = os.path.join(str(tmpdir), 'very_small.scenario')
    with io.open(path, 'w', encoding='utf-8') as fp:
        fp.write(json.dumps(data, ensure_ascii=False))
    prefix = data['container_base'] + '-'
    yield path, prefix
    delete_buckets(prefix)


def written_bytes(tmpdir):
    """Every byte of every file under tmpdir, gzip files unpacked."""
    found = []
    for folder, _, names in os.walk(str(tmpdir)):
        for name in names:
            full = os.path.join(folder, name)
            opener = gzip.open if name.endswith('.gz') else io.open
            with opener(full, 'rb') as fp:
                found.append(fp.read())
    return b''.join(found)


def run_s3(tmpdir, scenario, *extra, **kwargs):
    stats = os.path.join(str(tmpdir), 's3.stat.gz')
    ran = support.master(
        'run-scenario', '-f', scenario, '--s3', '--workers', '2', '-u', '4',
        '-o', '100', '-c', str(BUCKETS), '-s', stats, '--progress', 'none',
        *(support.zmq_args() + list(extra)),
        env=s3_env(kwargs.pop('secret', localswift.S3_SECRET)),
        timeout=kwargs.pop('timeout', 240))
    return ran, stats


def test_very_small_over_s3(tmpdir, very_small):
    from tests.e2e.test_summary_line import check_run, have_plotly
    scenario, prefix = very_small
    html = str(tmpdir.join('s3.html')) if have_plotly() else None
    ran, stats = run_s3(tmpdir, scenario, *(['--html', html] if html
                                            else []))
    assert ran.status == 0, ran
    results = support.read_results(stats)
    assert len(results) == 100
    assert [r for r in results if 'exception' in r] == []
    assert set(r['container'][:len(prefix)] for r in results) == {prefix}
    from ssbench.results.statsreader import open_stats
    header = open_stats(stats).header
    assert header['protocol'] == 's3'
    assert header['s3'] == {
        'endpoint_url': localswift.S3_ENDPOINT, 'region': 'us-east-1',
        'addressing': 'path', 'payload': 'UNSIGNED-PAYLOAD',
        'buckets': [prefix + '000000-default-policy',
                    prefix + '000009-default-policy']}
    # The report rendered, naming the API and the buckets; the buckets
    # exist, as S3 sees them.
    assert 'CREATE' in ran.out and 'READ' in ran.out
    assert 'S3 API at %s (region us-east-1, path addressing, ' \
        'UNSIGNED-PAYLOAD payloads): buckets %s000000-default-policy .. ' \
        '%s000009-default-policy' % (localswift.S3_ENDPOINT, prefix,
                                     prefix) in ran.out
    s3 = botocore_s3()
    for name in bucket_names(prefix):
        s3.head_bucket(Bucket=name)
    assert SECRET not in written_bytes(tmpdir)
    assert SECRET not in (ran.out + ran.err).encode('utf-8')
    # The summary line logged, that of report-scenario --summary, the
    # page's first (last: a machine without a browser skips there).
    check_run(ran, stats, html)


def test_a_wrong_secret_is_one_line_naming_the_s3_error(tmpdir, very_small):
    scenario, prefix = very_small
    ran, stats = run_s3(tmpdir, scenario, secret='not-the-secret',
                        timeout=60)
    assert ran.status != 0
    # The version banner, then the one line of the error.
    lines = [line for line in ran.err.splitlines()
             if line.strip() and not line.startswith('INFO:')]
    assert len(lines) == 1, ran.err
    assert lines[0].startswith('ERROR:')
    assert 'SignatureDoesNotMatch' in lines[0]
    assert not os.path.exists(stats)
    assert 'not-the-secret' not in ran.out + ran.err


def test_the_secret_is_not_on_the_wire(tmpdir, very_small):
    if not tcpdump_usable():
        pytest.skip('tcpdump (and root) needed to capture loopback traffic')
    scenario, prefix = very_small
    zmq = support.zmq_args()
    ports = [int(zmq[zmq.index(flag) + 1])
             for flag in ('--zmq-work-port', '--zmq-results-port')]
    stats = os.path.join(str(tmpdir), 'wire.stat.gz')
    with Capture(os.path.join(str(tmpdir), 'zmq.pcap'), ports) as capture:
        ran = support.master(
            'run-scenario', '-f', scenario, '--s3', '--workers', '2',
            '-u', '4', '-o', '40', '-c', str(BUCKETS), '-s', stats,
            '--progress', 'none',
            *zmq, env=s3_env(), timeout=240)
    assert ran.status == 0, ran
    streams = capture.streams()
    to_workers = b''.join(v for k, v in streams.items() if k[0] == ports[0])
    # The capture saw the configuration: the signing keys, not the secret.
    assert b'CONFIGURE' in to_workers and b'signed_payload' in to_workers
    assert SECRET not in b''.join(streams.values())

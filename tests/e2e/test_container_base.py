"""--container-base on one account of the local Swift: two runs of
different bases (one the other's with a suffix) each get containers of
their own, and cleanup-containers -b of one leaves the other's alone, as
python-swiftclient lists them; over its S3 API, a run's base is its
buckets' prefix, which cleanup-containers -b --s3 deletes, and a base S3
would have to change is refused in one line."""
from __future__ import absolute_import, division, print_function

import os

import pytest

from tests import localswift
from tests.e2e import support
from tests.e2e.s3support import botocore_s3, delete_bucket, s3_env

pytestmark = pytest.mark.e2e

# A small run from flags: 10 objects in 2 containers, 20 operations.
FLAGS = ['--size', '1KiB', '--objects', '10', '--crud', '40,40,10,10',
         '-u', '2', '-o', '20', '-c', '2', '--workers', '1',
         '--progress', 'none', '-R']
CONTAINERS = 2


def run(tmpdir, base, *extra, **kwargs):
    stats = os.path.join(str(tmpdir), '%s.stat.gz' % base)
    ran = support.master(
        'run-scenario', '--container-base', base, '-s', stats,
        *(FLAGS + support.zmq_args() + list(extra)), **kwargs)
    assert ran.status == 0, ran
    results = support.read_results(stats)
    assert len(results) == 20
    assert [r for r in results if 'exception' in r] == []
    return results


def swift_names(base):
    return ['%s_%06d_default_policy' % (base, index)
            for index in range(CONTAINERS)]


def test_two_bases_share_an_account_and_clean_up_apart(tmpdir):
    support.require_swift()
    swift = support.SwiftView()
    first = support.unique_base()
    second = first + '_b'
    try:
        for base in (first, second):
            results = run(tmpdir, base, *support.auth_args())
            assert set(r['container'] for r in results) <= \
                set(swift_names(base))
        assert swift.containers(first) == sorted(swift_names(first) +
                                                 swift_names(second))
        kept = dict((name, swift.objects(name))
                    for name in swift_names(second))
        assert all(kept.values())
        ran = support.master('cleanup-containers', '-b', first,
                             *support.auth_args(), timeout=120)
        assert ran.status == 0, ran
        assert swift.containers(first) == swift_names(second)
        assert dict((name, swift.objects(name))
                    for name in swift_names(second)) == kept
        ran = support.master('cleanup-containers', '-b', second,
                             *support.auth_args(), timeout=120)
        assert ran.status == 0, ran
        assert swift.containers(first) == []
    finally:
        swift.delete_everything(first)


def test_over_s3_the_base_is_the_buckets_prefix(tmpdir):
    localswift.require_swift()
    s3 = botocore_s3()
    base = support.unique_base() + '-s3'
    buckets = ['%s-%06d-default-policy' % (base, index)
               for index in range(CONTAINERS)]
    try:
        results = run(tmpdir, base, '--s3', env=s3_env(), timeout=240)
        assert set(r['container'] for r in results) <= set(buckets)
        listed = sorted(bucket['Name'] for bucket in
                        s3.list_buckets()['Buckets']
                        if bucket['Name'].startswith(base))
        assert listed == buckets
        ran = support.master('cleanup-containers', '--s3', '-b', base,
                             env=s3_env(), timeout=120)
        assert ran.status == 0, ran
        assert not [bucket for bucket in s3.list_buckets()['Buckets']
                    if bucket['Name'].startswith(base)]
    finally:
        for name in buckets:
            delete_bucket(s3, name)


def test_over_s3_a_base_s3_would_change_is_one_line(tmpdir):
    base = support.unique_base() + '_S3'
    ran = support.master(
        'run-scenario', '--container-base', base, '--s3',
        *(FLAGS + support.zmq_args()), env=s3_env(), timeout=60)
    assert ran.status == 2, ran
    errors = [line for line in ran.err.splitlines()
              if line.startswith('ERROR:')]
    assert len(errors) == 1 and \
        "--container-base '%s' over S3" % base in errors[0], ran.err

"""run-scenario --s3: the scenario's containers become S3 buckets, the
master checks the endpoint takes its keys, and the workers get the
endpoint and the signing keys (never the secret) in CONFIGURE.

What the S3 API has no counterpart for is refused in one line before
anything starts: storage policies, X-Delete-After (delete_after) and
large objects (segment_size; multipart uploads are not run yet).
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.errors import UsageError

log = logging.getLogger('ssbench')

# The header key that names a run's protocol (absent: the Swift API, as
# in every stats file of 0.3.9).
PROTOCOL_KEY = 'protocol'


def check_scenario(scenario):
    """UsageError naming the first setting of `scenario` S3 cannot run."""
    if scenario.policy is not None:
        raise UsageError('--s3: storage policy %r is the Swift API\'s; run '
                         'without a policy (-p, "policy")' % scenario.policy)
    if scenario.delete_after:
        raise UsageError('--s3: delete_after (X-Delete-After) is the Swift '
                         'API\'s; run without it')
    if scenario.segmented:
        raise UsageError('--s3: large objects (segment_size) are not run '
                         'over S3 yet')


def name_buckets(scenario):
    """Name the scenario's containers as S3 buckets; [first, last] of
    them (ssbench.errors.ScenarioError when the base gives no valid
    bucket name)."""
    from ssbench.s3.buckets import bucket_name
    scenario.name_containers(bucket_name)
    # The longest name is the last's: if it and the first are valid, so
    # is every one between.
    names = scenario.containers
    return [names[0], names[-1]]


class MasterKeys(object):
    """The Keyring of the master's own S3 requests, derived again when
    the date changes (a KeyMaker of its own: the workers' says when they
    need theirs)."""

    def __init__(self, maker):
        self.maker = maker
        self.keyring = None

    def __call__(self):
        from ssbench.s3.keyring import Keyring
        if self.keyring is None or self.maker.renew_due():
            self.keyring = Keyring.from_wire(self.maker.wire_form())
        return self.keyring


def connect_s3(args, scenario, settings):
    """(S3Client of the master or None with --noop, WorkerConfig or None,
    the stats header's keys) of an S3 run of `scenario`; the master's
    first request (ListBuckets) says whether the endpoint takes the keys,
    in one line naming the S3 error when not."""
    check_scenario(scenario)
    buckets = name_buckets(scenario)
    header = {PROTOCOL_KEY: 's3', 's3': dict(settings.header(),
                                             buckets=buckets)}
    if args.noop:
        return None, None, header
    from ssbench.master.workerconfig import WorkerConfig
    from ssbench.s3.client import S3Client
    from ssbench.s3.keyring import KeyMaker

    def key_maker():
        return KeyMaker(settings.access_key, settings.secret,
                        settings.region)
    client = S3Client(
        settings.endpoint_url, MasterKeys(key_maker()),
        region=settings.region, addressing=settings.addressing,
        signed_payload=settings.signed_payload,
        concurrency=scenario.container_concurrency,
        connect_timeout=args.connect_timeout,
        network_timeout=args.network_timeout,
        retry_backoff=args.retry_backoff)
    try:
        client.list_buckets()
    except BaseException:
        client.close()
        raise
    log.info('S3 endpoint %s (region %s, %s addressing, %s payloads): '
             'buckets %s', settings.endpoint_url, settings.region,
             settings.addressing,
             'signed' if settings.signed_payload else 'unsigned',
             ' .. '.join(buckets))
    endpoint = {'endpoint_url': settings.endpoint_url,
                'addressing': settings.addressing,
                'signed_payload': settings.signed_payload}
    return client, WorkerConfig(
        None, args.connect_timeout, args.network_timeout, args.block_size,
        retry_backoff=args.retry_backoff,
        s3=(endpoint, key_maker())), header

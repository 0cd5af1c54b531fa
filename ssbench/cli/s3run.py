"""run-scenario --s3: the scenario's containers become S3 buckets, the
master checks the endpoint takes its keys, and the workers get the
endpoint and the signing keys (never the secret) in CONFIGURE.

What the S3 API has no counterpart for is refused in one line before
anything starts: storage policies and X-Delete-After (delete_after).
Large objects (segment_size) are multipart uploads: the store's part
limits (its /info when it has one, as Swift's s3api does, else S3's own)
are checked against each size class before the run, in one line naming
the limit.
"""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.errors import ScenarioError, StoreError, UsageError

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


def check_parts(scenario, info):
    """UsageError naming the first size class whose objects the store
    described by `info` (its /info, a dict; None: a store without one,
    which gets S3's limits) cannot take as multipart uploads of
    segment_size bytes a part."""
    from ssbench.s3 import multipart
    info = info or {}
    s3api = info.get('s3api')
    if isinstance(s3api, dict) and \
            s3api.get('allow_multipart_uploads') is False:
        raise UsageError('--s3: the store allows no multipart upload (its '
                         '/info: s3api allow_multipart_uploads false); run '
                         'without segment_size')
    limits = multipart.limits_from_info(info)
    for size in scenario.sizes:
        if size.segment_size:
            try:
                multipart.part_plan(size.size_max, size.segment_size,
                                    limits)
            except ScenarioError as exc:
                raise UsageError('--s3: size class %s: %s'
                                 % (size.name, exc))


def store_info(client):
    """The store's /info (None when it has none, or cannot be read:
    then S3's own limits are assumed, with a warning)."""
    try:
        info = client.cluster_info()
    except StoreError as exc:
        log.warning('cannot read the store\'s /info (%s): S3\'s own part '
                    'limits are assumed', exc)
        return None
    if info is None:
        log.info('the store has no /info: S3\'s own part limits are '
                 'assumed')
    return info


def name_buckets(scenario, exact=False):
    """Name the scenario's containers as S3 buckets; [first, last] of
    them (ssbench.errors.ScenarioError when the base gives no valid
    bucket name, or, `exact` (a --container-base), when the names do not
    start with the base as it is)."""
    from ssbench.s3.buckets import bucket_name
    scenario.name_containers(bucket_name)
    # The longest name is the last's: if it and the first are valid, so
    # is every one between.
    names = scenario.containers
    base = scenario.container_base
    if exact and not names[-1].startswith(base + '-'):
        raise UsageError(
            '--container-base %r over S3 makes bucket names such as %s: '
            'give lower-case letters, digits and single "-" inside, short '
            'enough for 63 characters with "-<index>-<policy>"'
            % (base, names[-1]))
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


def master_client(settings, **options):
    """The S3Client of the master's own requests (MasterKeys) to the
    endpoint of `settings` (ssbench.cli.s3opts.S3Settings); `options` are
    S3Client's."""
    from ssbench.s3.client import S3Client
    return S3Client(settings.endpoint_url, MasterKeys(settings.key_maker()),
                    region=settings.region, addressing=settings.addressing,
                    signed_payload=settings.signed_payload, **options)


def connect_s3(args, scenario, settings):
    """(S3Client of the master or None with --noop, WorkerConfig or None,
    the stats header's keys) of an S3 run of `scenario`; the master's
    first request (ListBuckets) says whether the endpoint takes the keys,
    in one line naming the S3 error when not."""
    check_scenario(scenario)
    buckets = name_buckets(scenario, exact=args.container_base is not None)
    header = {PROTOCOL_KEY: 's3', 's3': dict(settings.header(),
                                             buckets=buckets)}
    if args.noop:
        return None, None, header
    from ssbench.master.workerconfig import WorkerConfig
    client = master_client(
        settings, concurrency=scenario.container_concurrency,
        connect_timeout=args.connect_timeout,
        network_timeout=args.network_timeout,
        retry_backoff=args.retry_backoff)
    try:
        client.list_buckets()
        if scenario.segmented:
            check_parts(scenario, store_info(client))
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
        s3=(endpoint, settings.key_maker())), header

"""`ssbench-master cleanup-containers`: delete ssbench's containers (or,
with --s3, its buckets) and their objects."""
from __future__ import absolute_import, division, print_function


def cmd_cleanup_containers(args):
    """Delete every matching container and its objects."""
    from ssbench.cli.s3opts import s3_from_args
    settings = s3_from_args(args)
    if settings is not None:
        return cleanup_s3(args, settings)
    from ssbench.swift.cleanup import cleanup_containers
    from ssbench.cli.authopts import auth_from_args, require_keystone
    from ssbench.swift.client import SwiftClient
    from ssbench.cli import openfiles
    openfiles.raise_and_check('cleanup-containers --concurrency %d' %
                              args.concurrency,
                              args.concurrency * args.concurrency)
    client = SwiftClient(require_keystone(auth_from_args(args).check()),
                         concurrency=args.concurrency * args.concurrency,
                         network_timeout=args.network_timeout)
    try:
        cleanup_containers(client, args.container_base, args.policy,
                           args.concurrency)
    finally:
        client.close()
    return 0


def cleanup_s3(args, settings):
    """cleanup-containers --s3: delete every matching bucket (named as
    run-scenario --s3 names them) and all it holds."""
    from ssbench.cli import openfiles
    from ssbench.cli.s3run import MasterKeys
    from ssbench.s3.buckets import bucket_name
    from ssbench.s3.cleanup import cleanup_buckets
    from ssbench.s3.client import S3Client
    from ssbench.s3.keyring import KeyMaker
    # A base that gives no bucket name is one line before any request.
    bucket_name(args.container_base, 0, args.policy)
    openfiles.raise_and_check('cleanup-containers --concurrency %d' %
                              args.concurrency, args.concurrency)
    client = S3Client(
        settings.endpoint_url,
        MasterKeys(KeyMaker(settings.access_key, settings.secret,
                            settings.region)),
        region=settings.region, addressing=settings.addressing,
        signed_payload=settings.signed_payload,
        concurrency=args.concurrency, network_timeout=args.network_timeout)
    try:
        cleanup_buckets(client, args.container_base, args.policy,
                        args.concurrency)
    finally:
        client.close()
    return 0

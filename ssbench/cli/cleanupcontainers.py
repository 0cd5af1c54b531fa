"""`ssbench-master cleanup-containers`: delete ssbench's containers (or,
with --s3, its buckets) and their objects."""
from __future__ import absolute_import, division, print_function


def cmd_cleanup_containers(args):
    """Delete every matching container (or bucket, with --s3, named as
    run-scenario --s3 names them) and all it holds."""
    from ssbench.cli import openfiles
    from ssbench.cli.s3opts import s3_from_args
    settings = s3_from_args(args)
    if settings is None:
        from ssbench.swift.cleanup import cleanup_containers as cleanup
        # -c containers at once, and -c objects at once in each.
        connections = args.concurrency * args.concurrency
    else:
        from ssbench.s3.buckets import bucket_name
        from ssbench.s3.cleanup import cleanup_buckets as cleanup
        # A base that gives no bucket name is one line before any request.
        bucket_name(args.container_base, 0, args.policy)
        connections = args.concurrency
    openfiles.raise_and_check('cleanup-containers --concurrency %d' %
                              args.concurrency, connections)
    if settings is None:
        from ssbench.cli.authopts import auth_from_args, require_keystone
        from ssbench.swift.client import SwiftClient
        client = SwiftClient(require_keystone(auth_from_args(args).check()),
                             concurrency=connections,
                             network_timeout=args.network_timeout)
    else:
        from ssbench.cli.s3run import master_client
        client = master_client(settings, concurrency=connections,
                               network_timeout=args.network_timeout)
    try:
        cleanup(client, args.container_base, args.policy, args.concurrency)
    finally:
        client.close()
    return 0

"""`ssbench-master cleanup-containers`: delete ssbench's containers and
their objects."""
from __future__ import absolute_import, division, print_function


def cmd_cleanup_containers(args):
    """Delete every matching container and its objects."""
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

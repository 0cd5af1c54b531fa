"""`ssbench-master kill-workers`: tell every worker that answers to exit."""
from __future__ import absolute_import, division, print_function

import logging

from ssbench.cli.masterzmq import check_ports, curve_keys

log = logging.getLogger('ssbench')


def cmd_kill_workers(args):
    """Ping workers and tell each one that answers to exit."""
    from ssbench.master.dispatch import kill_workers
    from ssbench.wire.transport import MasterSockets
    check_ports(args)
    sockets = MasterSockets(args.zmq_bind_ip, args.zmq_work_port,
                            args.zmq_results_port, green=False,
                            curve=curve_keys(args))
    try:
        killed = kill_workers(sockets, timeout=args.timeout)
    finally:
        sockets.close()
    log.info('%d worker(s) told to exit', len(killed))
    return 0

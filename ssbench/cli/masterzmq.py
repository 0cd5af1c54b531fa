"""The master's ZeroMQ options (where its work and results sockets bind,
--zmq-curve-dir) and what kill-workers and run-scenario make of them."""
from __future__ import absolute_import, division, print_function

from ssbench.cli import common
from ssbench.errors import UsageError

DEFAULT_WORK_PORT = 13579
DEFAULT_RESULTS_PORT = 13580


def add_zmq_options(parser):
    """--zmq-bind-ip, the two ports and --zmq-curve-dir."""
    parser.add_argument(
        '--zmq-bind-ip', metavar='BIND_IP', default='0.0.0.0',
        help='IP (or hostname) to which the ZMQ sockets bind')
    parser.add_argument(
        '--zmq-work-port', metavar='PORT', type=common.port,
        default=DEFAULT_WORK_PORT, help='TCP port for the work ROUTER socket')
    parser.add_argument(
        '--zmq-results_port', '--zmq-results-port', metavar='PORT',
        dest='zmq_results_port', type=common.port,
        default=DEFAULT_RESULTS_PORT,
        help='TCP port for the results PULL socket')
    parser.add_argument(
        '--zmq-curve-dir', metavar='DIR', default=None,
        help='Encrypt and authenticate worker traffic with ZeroMQ CURVE, '
        'using the master key pair in DIR and accepting only workers whose '
        'public key is a *.key file of DIR (make DIR with: python -m '
        'ssbench.cli.curve keys DIR)')


def worker_host(bind_ip):
    """Where local workers connect: loopback when bound to every address."""
    return {'0.0.0.0': '127.0.0.1', '::': '::1', '': '127.0.0.1'}.get(
        bind_ip, bind_ip)


def check_ports(args):
    """The work and results sockets cannot share a port (0 picks two
    free ones)."""
    if args.zmq_work_port and args.zmq_work_port == args.zmq_results_port:
        raise UsageError(
            '--zmq-work-port and --zmq-results-port are both %d: the work '
            'and results sockets need a port each' % args.zmq_work_port)


def curve_keys(args, local_workers=False):
    """CurveKeys for --zmq-curve-dir (None without it), checked now so a
    key problem is one clear error before anything starts."""
    if not args.zmq_curve_dir:
        return None
    import os
    from ssbench.wire.curve.keys import CurveKeys
    curve = CurveKeys(os.path.abspath(args.zmq_curve_dir))
    curve.check(master=True, worker=local_workers)
    return curve

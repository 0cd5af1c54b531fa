"""The master's ZeroMQ options (where its work and results sockets bind,
--zmq-curve-dir) and what kill-workers and run-scenario make of them."""
from __future__ import absolute_import, division, print_function

from ssbench.cli import common
from ssbench.errors import UsageError

DEFAULT_WORK_PORT = 13579
DEFAULT_RESULTS_PORT = 13580
# Where the master binds by default: every address (0.3.9's), or only
# loopback for a run whose workers are all local.
ANY = '0.0.0.0'
LOOPBACK = '127.0.0.1'


def add_zmq_options(parser, run=False):
    """--zmq-bind-ip, the two ports and --zmq-curve-dir; for a `run`
    (run-scenario, run-suite) the three are left None when not given, for
    bind_plan() to decide."""
    def default(value, local):
        """(the flag's default, how its help says it)."""
        if not run:
            return value, '%s' % value
        return None, '%s; for a run whose workers are all local: %s' % (
            value, local)
    bind_ip, bind_ip_text = default(ANY, LOOPBACK)
    work, work_text = default(DEFAULT_WORK_PORT, 'a free one')
    results, results_text = default(DEFAULT_RESULTS_PORT, 'a free one')
    parser.add_argument(
        '--zmq-bind-ip', metavar='BIND_IP', default=bind_ip,
        help='IP (or hostname) to which the ZMQ sockets bind (default: '
        '%s)' % bind_ip_text)
    parser.add_argument(
        '--zmq-work-port', metavar='PORT', type=common.port, default=work,
        help='TCP port for the work ROUTER socket (default: %s)' % work_text)
    parser.add_argument(
        '--zmq-results_port', '--zmq-results-port', metavar='PORT',
        dest='zmq_results_port', type=common.port, default=results,
        help='TCP port for the results PULL socket (default: %s)'
        % results_text)
    parser.add_argument(
        '--zmq-curve-dir', metavar='DIR', default=None,
        help='Encrypt and authenticate worker traffic with ZeroMQ CURVE, '
        'using the master key pair in DIR and accepting only workers whose '
        'public key is a *.key file of DIR (make DIR with: python -m '
        'ssbench.cli.curve keys DIR)')


def bind_plan(args):
    """Fill in the run's --zmq-bind-ip and ports left None: a run whose
    workers are all local (--workers N, and no --expect-workers above N)
    and that names none of the three binds loopback on two free ports (0:
    the sockets say which), so that no other host can reach it and runs
    side by side do not collide; any other takes 0.3.9's defaults, every
    address on 13579 and 13580, for workers on other hosts to find."""
    named = (args.zmq_bind_ip, args.zmq_work_port, args.zmq_results_port)
    local_only = bool(args.workers) and named == (None, None, None) and (
        args.expect_workers is None or args.expect_workers <= args.workers)
    plan = ((LOOPBACK, 0, 0) if local_only
            else (ANY, DEFAULT_WORK_PORT, DEFAULT_RESULTS_PORT))
    args.zmq_bind_ip, args.zmq_work_port, args.zmq_results_port = [
        planned if given is None else given
        for given, planned in zip(named, plan)]


def worker_host(bind_ip):
    """Where local workers connect: loopback when bound to every address."""
    return {'0.0.0.0': '127.0.0.1', '::': '::1', '': '127.0.0.1'}.get(
        bind_ip, bind_ip)


def check_ports(args):
    """The work and results sockets cannot share a port (0 picks two
    free ones); a run's address and ports left unnamed are decided first
    (bind_plan())."""
    if None in (args.zmq_bind_ip, args.zmq_work_port, args.zmq_results_port):
        bind_plan(args)
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

"""`ssbench-master`: run-scenario, run-suite, report-scenario, kill-workers,
cleanup-containers."""
from __future__ import absolute_import, division, print_function

import sys

from ssbench.cli import common
from ssbench.cli.masterparser import build_parser


def main(argv=None):
    """Entry point; returns the exit status instead of exiting."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args, status = build_parser().parse(argv)
    if args is None:
        return status
    if args.command in ('run-scenario', 'cleanup-containers'):
        # Swift calls run in greenlets; patch before anything opens sockets.
        from ssbench.worker.geventpatch import patch_all
        patch_all()
        common.quiet_gevent_interrupts()
    common.setup_logging(args.verbose, args.quiet)
    # A hangup or SIGTERM ends any command as a Ctrl-C does; a run stops
    # gracefully on either (ssbench.cli.stopsignals).
    from ssbench.cli.stopsignals import interrupt_on_stop_signals
    interrupt_on_stop_signals()
    return common.run_command(args.func, args, args.verbose)


if __name__ == '__main__':
    sys.exit(main())

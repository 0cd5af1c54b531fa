"""`python -m ssbench.cli.curve keys DIR`: make the keys of CURVE mode.

Writes a new master key pair and a new worker key pair into DIR (made with
mode 0700 when new; secret files get mode 0600) and says where each file
goes.  The master then runs with `--zmq-curve-dir DIR` and accepts only
workers holding a key pair whose public half is a `*.key` file of DIR;
each worker runs with `--zmq-curve-dir` naming its copy of the directory.
The key format and the rules are in ssbench.wire.curve.keys.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import sys

USAGE_EPILOG = """\
Files written (see docs/security.rst, "Encrypting master-worker traffic"):
  master.key          the master's public key: every worker needs it
  master.key_secret   the master's secret key: keep it on the master host
  worker.key          the workers' public key: the master accepts it
  worker.key_secret   the workers' secret key: every worker needs it
"""


def build_parser():
    from ssbench.cli.common import ArgumentParser
    parser = ArgumentParser(
        prog='python -m ssbench.cli.curve',
        description='Make the ZeroMQ CURVE keys that encrypt and '
        'authenticate\nssbench-master/ssbench-worker traffic.',
        epilog=USAGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest='command', metavar='{keys}')
    commands.required = True
    keys = commands.add_parser(
        'keys', help='write a new master and worker key pair into DIR',
        epilog=USAGE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    keys.add_argument('directory', metavar='DIR',
                      help='directory for the keys (created if missing; '
                      'existing keys are never overwritten)')
    return parser


def make_keys(directory, out):
    """Write the keys and tell `out` what to do with them."""
    from ssbench.wire.curve.keys import create_curve_keys
    paths = create_curve_keys(directory)
    shown = os.path.abspath(directory)
    out.write('Wrote CURVE keys in %s:\n' % (shown,))
    notes = ('the master\'s public key: every worker needs it',
             'the master\'s secret key: keep it on the master host only',
             'the workers\' public key: the master accepts workers '
             'holding its pair',
             'the workers\' secret key: every worker needs it')
    for path, note in zip(paths, notes):
        out.write('  %-18s %s\n' % (os.path.basename(path), note))
    out.write(
        'Master:  ssbench-master run-scenario --zmq-curve-dir %s ...\n'
        'Workers: copy %s (without master.key_secret) to each worker host, '
        'then\n         ssbench-worker --zmq-curve-dir DIR ...\n'
        % (shown, shown))


def main(argv=None, out=None):
    """Entry point; returns the exit status (2 on any error)."""
    from ssbench.errors import SsbenchError
    argv = sys.argv[1:] if argv is None else list(argv)
    out = sys.stdout if out is None else out
    args, status = build_parser().parse(argv)
    if args is None:
        return status
    try:
        make_keys(args.directory, out)
    except SsbenchError as exc:
        sys.stderr.write('ERROR:%s\n' % (exc,))
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main())

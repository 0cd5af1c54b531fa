"""The entry point of the zipapp (tools/mkzipapp, docs/many-hosts.rst):
`python3 ssbench.pyz master ARGS` is `ssbench-master ARGS` and
`python3 ssbench.pyz worker ARGS` is `ssbench-worker ARGS`.

The processes a command starts itself (run-scenario --workers N, a
worker's --processes) run `python -m ssbench.cli.worker`: PYTHONPATH
names the folder this package was unpacked into, so they find it too."""
from __future__ import absolute_import, print_function

import os
import sys

USAGE = 'usage: python3 ssbench.pyz {master,worker} [ARGS...] | --version'


def export_path(env, folder):
    """env's PYTHONPATH with `folder` first (once)."""
    parts = [p for p in env.get('PYTHONPATH', '').split(os.pathsep)
             if p and p != folder]
    env['PYTHONPATH'] = os.pathsep.join([folder] + parts)


def main(argv=None, env=None):
    """Runs the command named by argv[0]; returns the exit status."""
    import ssbench
    argv = sys.argv[1:] if argv is None else list(argv)
    env = os.environ if env is None else env
    if argv[:1] == ['--version']:
        print('ssbench %s' % ssbench.version)
        return 0
    if not argv or argv[0] not in ('master', 'worker'):
        sys.stderr.write(USAGE + '\n')
        return 2
    export_path(env, os.path.dirname(os.path.dirname(
        os.path.abspath(ssbench.__file__))))
    if argv[0] == 'master':
        from ssbench.cli import master as command
    else:
        from ssbench.cli import worker as command
    return command.main(argv[1:])


if __name__ == '__main__':
    sys.exit(main())

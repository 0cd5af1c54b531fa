"""Containers for the end-to-end tests: the image of this checkout built
once per test session on a base made from Debian's packages (tools/mkimage
--debian-base; tools/podman-setup readies the host), and containers that
are removed, by name, whatever happens.

Podman is needed (skipped with the reason without it; SSBENCH_REQUIRE_PODMAN=1,
as in CI, makes that a failure).  The container tests run in the Python 3
suite only: what they test does not depend on the interpreter running
them, and tools/run-tests runs both suites at once."""
from __future__ import absolute_import, division, print_function

import os
import sys
import uuid

import pytest

from tests.e2e import support

IMAGE = 'localhost/ssbench:e2e'
# The image's user (Containerfile).
UID = 10001
# The base is made once per host (mmdebstrap, about a minute); the image
# is rebuilt from podman's layer cache when the tree has not changed.
BUILD_TIMEOUT = 1500


def podman_path():
    for folder in os.environ.get('PATH', '').split(os.pathsep) + [
            '/usr/bin']:
        path = os.path.join(folder, 'podman')
        if folder and os.access(path, os.X_OK):
            return path
    return None


def require_podman():
    """Skip (or fail, with SSBENCH_REQUIRE_PODMAN=1) where podman or root
    is missing; skip under Python 2 (see the module's docstring)."""
    if sys.version_info < (3, 8):
        pytest.skip('container tests run in the Python 3 suite')
    reason = None
    if podman_path() is None:
        reason = 'no podman (Debian: tools/podman-setup, as root)'
    elif os.getuid() != 0:
        reason = 'the container tests run podman as root'
    if reason:
        sys.stderr.write('SKIP: %s\n' % reason)
        if os.environ.get('SSBENCH_REQUIRE_PODMAN') == '1':
            pytest.fail(reason)
        pytest.skip(reason)


def podman(args, timeout=120, env=None):
    """`podman ARGS`, bounded in time: a support.Ran."""
    return support.run([podman_path()] + list(args), timeout, env=env)


def build_image():
    """IMAGE, built from this checkout on the Debian-made base."""
    ran = support.run([os.path.join(support.ROOT, 'tools', 'mkimage'),
                       '--debian-base', '-t', IMAGE], BUILD_TIMEOUT + 60,
                      env={'SSBENCH_BUILD_TIMEOUT': str(BUILD_TIMEOUT)})
    assert ran.status == 0, ran
    return IMAGE


def results_dir(tmpdir):
    """A folder the image's user may write, for a volume."""
    path = str(tmpdir.mkdir('results'))
    os.chown(path, UID, -1)
    return path


class Containers(object):
    """Containers a test starts, each named uniquely; remove() takes them
    all away (stopping them first, SIGKILL after a few seconds)."""

    def __init__(self):
        self.tag = 'ssbench-e2e-%s' % uuid.uuid4().hex[:8]
        self.names = []

    def name(self, role):
        name = '%s-%s' % (self.tag, role)
        self.names.append(name)
        return name

    def run_argv(self, role, *args):
        """`podman run` of a container named for `role` on the host's
        network, with ARGS (options, the image, the command)."""
        return [podman_path(), 'run', '--name', self.name(role),
                '--network', 'host'] + list(args)

    def remove(self):
        if self.names:
            podman(['rm', '--force', '--time', '5'] + self.names, 120)

    def running(self):
        """Names of this test's containers podman still has."""
        ran = podman(['ps', '--all', '--format', '{{.Names}}',
                      '--filter', 'name=' + self.tag], 60)
        return ran.out.split()

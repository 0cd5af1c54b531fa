"""The files of deploy/: the systemd unit of the workers passes
`systemd-analyze verify` and its command line is one ssbench-worker
accepts; the Ansible playbook passes ansible-lint and its example
inventory parses.  (tests/e2e/test_ansible.py runs the playbook.)

Where systemd-analyze or ansible-lint is missing the test says why and
is skipped (Debian: apt-get install systemd; ansible-lint: setup.py's
test extra, Python 3.11+)."""
from __future__ import absolute_import

import os
import re
import shutil
import subprocess
import sys
import threading

import pytest


from tests.unit.test_deploy import ANSIBLE, ENV_EXAMPLE, UNIT, read


SYSTEM_UNITS = ('/usr/lib/systemd/system', '/lib/systemd/system')


def run(argv, timeout, cwd=None):
    """(status, output) of argv, killed after `timeout` seconds."""
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, cwd=cwd)
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        out = proc.communicate()[0]
    finally:
        timer.cancel()
    return proc.returncode, out.decode('utf-8', 'replace')


def on_path(name):
    """Whether an executable `name` is on PATH (2.7 has no shutil.which)."""
    return any(os.access(os.path.join(folder, name), os.X_OK)
               for folder in os.environ.get('PATH', '').split(os.pathsep)
               if folder)


def skip(reason):
    sys.stderr.write('SKIP: %s\n' % reason)
    pytest.skip(reason)


@pytest.fixture
def systemd_root(tmpdir):
    """A file system root for systemd-analyze --root: the system's own
    units (sysinit.target and the rest), the unit under test, a stand-in
    ssbench-worker and /etc/ssbench/worker.env."""
    if not on_path('systemd-analyze'):
        skip('no systemd-analyze (Debian: apt-get install systemd)')
    system = [d for d in SYSTEM_UNITS if os.path.isdir(d)]
    if not system:
        skip('no system unit folder (%s) for systemd-analyze'
             % ' or '.join(SYSTEM_UNITS))
    root = str(tmpdir.join('root'))
    shutil.copytree(system[0], os.path.join(root, 'usr/lib/systemd/system'),
                    symlinks=True)
    os.makedirs(os.path.join(root, 'etc/systemd/system'))
    shutil.copy(UNIT, os.path.join(root, 'etc/systemd/system'))
    os.makedirs(os.path.join(root, 'opt/ssbench/bin'))
    stub = os.path.join(root, 'opt/ssbench/bin/ssbench-worker')
    with open(stub, 'w') as fp:
        fp.write('#!/bin/sh\n')
    os.chmod(stub, 0o755)
    os.makedirs(os.path.join(root, 'etc/ssbench'))
    shutil.copy(ENV_EXAMPLE, os.path.join(root, 'etc/ssbench/worker.env'))
    return root


def verify(root, unit):
    return run(['systemd-analyze', 'verify', '--root=' + root, unit], 60)


def test_systemd_analyze_verify_finds_nothing(systemd_root):
    assert verify(systemd_root, 'ssbench-worker@100.service') == (0, '')


def test_systemd_analyze_verify_can_fail(systemd_root):
    bad = os.path.join(systemd_root, 'etc', 'systemd', 'system',
                       'bad-worker@.service')
    with open(bad, 'w') as fp:
        fp.write(read(UNIT).replace('KillMode=mixed', 'KillMode=gentle'))
    status, out = verify(systemd_root, 'bad-worker@1.service')
    assert 'kill mode' in out
    os.remove(os.path.join(systemd_root, 'opt/ssbench/bin/ssbench-worker'))
    status, out = verify(systemd_root, 'ssbench-worker@100.service')
    assert status != 0
    assert '/opt/ssbench/bin/ssbench-worker' in out


def ansible_tool(name):
    path = os.path.join(os.path.dirname(sys.executable), name)
    if not os.path.exists(path):
        skip('no %s (setup.py test extra, Python 3.11+)' % path)
    return path


def test_ansible_lint_passes_the_playbook():
    lint = ansible_tool('ansible-lint')
    status, out = run([lint, '--offline', '--nocolor', 'bench.yml'], 600,
                      cwd=ANSIBLE)
    assert status == 0, out


def test_example_inventory_has_the_groups_the_playbook_uses():
    import json
    status, out = run([ansible_tool('ansible-inventory'), '-i',
                       'inventory.example', '--list'], 120, cwd=ANSIBLE)
    assert status == 0, out
    groups = json.loads(out[out.index('{'):])
    assert groups['ssbench_master']['hosts'] == ['master']
    assert groups['ssbench_clients']['hosts'] == [
        'client1', 'client2', 'client3', 'client4']
    plays = read(os.path.join(ANSIBLE, 'bench.yml'))
    assert set(re.findall(r'hosts: (\S+)', plays)) == set([
        'ssbench_master:ssbench_clients', 'ssbench_clients',
        'ssbench_master[0]'])

"""The files of deploy/: the systemd unit of the workers passes
`systemd-analyze verify` and its command line is one ssbench-worker
accepts; the Ansible playbook passes ansible-lint and its example
inventory parses.  (tests/e2e/test_ansible.py runs the playbook.)

Where systemd-analyze or ansible-lint is missing the test says why and
is skipped (Debian: apt-get install systemd; ansible-lint: setup.py's
test extra, Python 3.11+)."""
from __future__ import absolute_import

import io
import os
import re

import pytest

from tests import paths

DEPLOY = os.path.join(paths.ROOT, 'deploy')
UNIT = os.path.join(DEPLOY, 'systemd', 'ssbench-worker@.service')
ENV_EXAMPLE = os.path.join(DEPLOY, 'systemd', 'worker.env.example')
ANSIBLE = os.path.join(DEPLOY, 'ansible')


def read(path):
    with io.open(path, encoding='utf-8') as fp:
        return fp.read()


def unit_settings(text):
    """{key: [values]} of a unit file's settings."""
    found = {}
    for line in text.splitlines():
        if '=' in line and not line.startswith(('#', ';', '[')):
            key, value = line.split('=', 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def env_file(text):
    return dict(line.split('=', 1) for line in text.splitlines()
                if line and not line.startswith('#'))


def exec_start_argv(unit_text, env, instance):
    """ExecStart as systemd expands it: ${VAR} one word, $VAR split on
    white space, %i the instance."""
    line = unit_settings(unit_text)['ExecStart'][0].replace('%i', instance)
    argv = []
    for word in line.split():
        braced = re.match(r'^\$\{(\w+)\}$', word)
        bare = re.match(r'^\$(\w+)$', word)
        if braced:
            argv.append(env.get(braced.group(1), ''))
        elif bare:
            argv.extend(env.get(bare.group(1), '').split())
        else:
            argv.append(word)
    return argv


# -- the systemd unit ---------------------------------------------------------

def test_unit_command_line_is_one_ssbench_worker_accepts():
    from ssbench.cli import worker
    env = env_file(read(ENV_EXAMPLE))
    argv = exec_start_argv(read(UNIT), env, '100')
    assert argv[0] == '/opt/ssbench/bin/ssbench-worker'
    args = worker.build_parser().parse_args(argv[1:])
    assert (args.zmq_host, args.worker_id) == ('10.0.0.10', 100)
    assert (args.processes, args.concurrency) == ('auto', 64)
    assert args.zmq_curve_dir == '/etc/ssbench/keys'
    settings = unit_settings(read(UNIT))
    # The parent stops its workers; the logs go where the unit may write.
    assert settings['KillMode'] == ['mixed']
    assert args.log_dir == '/var/log/' + settings['LogsDirectory'][0]


def test_exec_start_expansion_splits_bare_variables_only():
    unit = 'ExecStart=/x/w --zmq-host ${M} $OPTS %i\n'
    assert exec_start_argv(unit, {'M': 'a b', 'OPTS': '-c 2  -v'}, '7') == \
        ['/x/w', '--zmq-host', 'a b', '-c', '2', '-v', '7']


# -- the Ansible playbook ----------------------------------------------------

def _tasks(node):
    """Every task map in a parsed playbook or task file, blocks opened."""
    if isinstance(node, list):
        for item in node:
            for task in _tasks(item):
                yield task
    elif isinstance(node, dict):
        if 'name' in node and 'hosts' not in node:
            yield node
        for key in ('tasks', 'block', 'rescue', 'always'):
            for task in _tasks(node.get(key)):
                yield task


def test_plain_traffic_leaves_out_every_key_step():
    # ssbench_curve false (plain text, opt-in) is not deployed by the e2e
    # test: every task that makes, copies or passes keys depends on it.
    import glob
    import json
    yaml = pytest.importorskip('yaml')
    keyed = 0
    for path in glob.glob(os.path.join(ANSIBLE, '*.yml')) + glob.glob(
            os.path.join(ANSIBLE, 'tasks', '*.yml')):
        if os.path.basename(path) == 'curve-keys.yml':
            continue        # included only under the condition, below
        for task in _tasks(yaml.safe_load(read(path))):
            text = json.dumps(task)
            if '--zmq-curve-dir' in text:
                keyed += 1
                assert text.count('--zmq-curve-dir') == text.count(
                    'if ssbench_curve | bool else []'), (path, task)
            elif 'key' in task['name'].lower() or 'curve-keys' in text:
                keyed += 1
                assert 'ssbench_curve | bool' in '%s' % (
                    task.get('when'),), (path, task['name'])
    assert keyed >= 5

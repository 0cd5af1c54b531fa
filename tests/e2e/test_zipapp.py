"""The zipapp (tools/mkzipapp) for real: built once per test session from
this checkout for this Python's own base interpreter (no virtualenv, so
no ssbench installed), then run with `python -I ssbench.pyz master
run-scenario --noop --workers 2` from an empty folder: the master and its
two local workers import ssbench from the zipapp alone.

Needs Python 3.8+ and PyPI (shiv, and the compiled dependencies' wheels
for this version; pip's cache makes a second build quick); the build is
bounded by BUILD_TIMEOUT."""
from __future__ import absolute_import, division, print_function

import os
import subprocess
import sys
import tempfile

import pytest

import ssbench
from tests.e2e import support

pytestmark = [pytest.mark.e2e,
              pytest.mark.skipif(sys.version_info < (3, 8),
                                 reason='shiv needs Python 3.8+')]

BUILD_TIMEOUT = 600
# shiv's virtualenv survives the session (tools/mkzipapp's cache).
CACHE = os.path.join(tempfile.gettempdir(),
                     'ssbench-test-cache-%d' % os.getuid())


def base_python():
    """This interpreter's, outside any virtualenv."""
    exe = getattr(sys, '_base_executable', None)
    if exe and os.path.exists(exe):
        return exe
    return os.path.join(sys.base_prefix, 'bin', 'python3')


def run_plain(argv, cwd, timeout, env=None):
    """argv in `cwd` with an environment naming no Python path."""
    full_env = dict((k, v) for k, v in os.environ.items()
                    if not k.startswith('PYTHON') and k != 'VIRTUAL_ENV')
    full_env.update(env or {})
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=cwd, env=full_env,
                            preexec_fn=support.die_with_parent)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return support.Ran(proc.returncode, out.decode('utf-8', 'replace'),
                       err.decode('utf-8', 'replace'))


@pytest.fixture(scope='session')
def zipapp(tmpdir_factory):
    """(interpreter, path of the zipapp, its SHIV_ROOT)."""
    folder = str(tmpdir_factory.mktemp('zipapp'))
    path = os.path.join(folder, 'ssbench.pyz')
    python = base_python()
    ran = support.run([os.path.join(support.ROOT, 'tools', 'mkzipapp'),
                       '--python', python, '-o', path], BUILD_TIMEOUT + 60,
                      env={'SSBENCH_CACHE': CACHE,
                           'SSBENCH_BUILD_TIMEOUT': str(BUILD_TIMEOUT)})
    assert ran.status == 0, ran
    assert path in ran.out, ran
    return python, path, os.path.join(folder, 'unpacked')


def test_the_interpreter_has_no_ssbench(zipapp, tmpdir):
    python = zipapp[0]
    ran = run_plain([python, '-I', '-c', 'import ssbench'], str(tmpdir), 60)
    assert ran.status != 0 and 'ssbench' in ran.err, ran


def test_version_and_usage(zipapp, tmpdir):
    python, path, unpacked = zipapp
    env = {'SHIV_ROOT': unpacked}
    ran = run_plain([python, '-I', path, '--version'], str(tmpdir), 120, env)
    assert ran.status == 0, ran
    assert ran.out.strip() == 'ssbench %s' % ssbench.version
    ran = run_plain([python, '-I', path], str(tmpdir), 120, env)
    assert ran.status == 2 and ran.err.startswith('usage:'), ran
    assert len(ran.err.splitlines()) == 1


def test_noop_run_with_two_local_workers(zipapp, tmpdir):
    python, path, unpacked = zipapp
    scenario, _ = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat')
    # From an empty folder: nothing there to import ssbench from.
    empty = tmpdir.mkdir('cwd')
    ran = run_plain([python, '-I', path, 'master', 'run-scenario',
                     '-f', scenario, '--noop', '--workers', '2',
                     '-s', stats] + support.zmq_args(), str(empty), 300,
                    {'SHIV_ROOT': unpacked})
    assert ran.status == 0, ran
    assert '0 error' in ran.out, ran
    results = support.read_results(stats + '.gz')
    assert len(results) == 120
    # (With --noop, the first worker may finish before the second joins.)
    assert set(r['worker_id'] for r in results) <= set([0, 1])
    assert 'Traceback' not in ran.err, ran

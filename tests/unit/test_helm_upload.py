"""deploy/helm/ssbench/files/upload.py, the chart's upload of a run's
files (docs/kubernetes.rst), against a loopback stand-in for Swift's
v1.0 auth and PUTs.  (tests/e2e/test_helm.py runs it against the local
Swift.)  Python 3: the script runs in the image's Python 3."""
from __future__ import absolute_import, division, print_function

import os
import runpy
import sys

import pytest

from tests import paths

pytestmark = pytest.mark.skipif(sys.version_info < (3, 6),
                                reason='the image runs Python 3')

SCRIPT = os.path.join(paths.ROOT, 'deploy', 'helm', 'ssbench', 'files',
                      'upload.py')


@pytest.fixture
def upload():
    return runpy.run_path(SCRIPT)['main']


def run_folder(tmpdir):
    run = tmpdir.mkdir('rel-3')
    run.join('run.stat.gz').write_binary(b'\x1f\x8bstats')
    run.mkdir('step').join('a b.html').write_binary(b'<html/>')
    return str(tmpdir)


def test_no_credentials(upload, tmpdir, capsys):
    assert upload(['results', run_folder(tmpdir), 'rel-3'], {}) == 1
    assert capsys.readouterr().err == (
        'upload: no credentials: set ST_AUTH, ST_USER and ST_KEY (or '
        'OS_STORAGE_URL and OS_AUTH_TOKEN)\n')


def test_usage(upload, capsys):
    assert upload(['results'], {}) == 2
    assert capsys.readouterr().err == \
        'usage: upload.py CONTAINER ROOT RUN\n'

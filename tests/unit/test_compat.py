"""ssbench.compat: the one Python 2.7 / 3.x shim with logic of its own."""
from __future__ import absolute_import, division, print_function

import ast
import errno
import io
import os
import sys

import pytest

from ssbench import compat
from ssbench.compat import makedirs
from tests import paths


def test_makedirs_creates_every_level(tmpdir):
    path = str(tmpdir.join('a', 'b', 'c'))
    makedirs(path)
    assert os.path.isdir(path)


def test_makedirs_of_an_existing_directory_is_no_error(tmpdir):
    # What a concurrent creator leaves behind between our look and ours.
    makedirs(str(tmpdir))
    assert os.path.isdir(str(tmpdir))


def test_makedirs_gives_a_new_directory_its_mode(tmpdir):
    path = str(tmpdir.join('private'))
    old = os.umask(0o022)
    try:
        makedirs(path, 0o700)
    finally:
        os.umask(old)
    assert os.stat(path).st_mode & 0o777 == 0o700


def test_makedirs_under_a_file_raises(tmpdir):
    tmpdir.join('file').write('')
    with pytest.raises(OSError) as info:
        makedirs(str(tmpdir.join('file', 'sub')))
    assert info.value.errno == errno.ENOTDIR


def test_no_ctypes_clock_where_its_id_is_unknown():
    assert compat._clock_gettime_monotonic('win32') is None


# -- the version is read in one place -----------------------------------

VERSION_NAMES = frozenset(['version', 'version_info', 'hexversion'])


def reads_the_version(source):
    """Whether Python source reads sys.version, sys.version_info or
    sys.hexversion, as an attribute or by 'from sys import'."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr in VERSION_NAMES \
                and getattr(node.value, 'id', None) == 'sys':
            return True
        if isinstance(node, ast.ImportFrom) and node.module == 'sys' and \
                VERSION_NAMES & set(a.name for a in node.names):
            return True
    return False


def modules_reading_the_version():
    found = set()
    top = os.path.join(paths.ROOT, 'ssbench')
    for folder, _, files in os.walk(top):
        for name in files:
            path = os.path.join(folder, name)
            if not name.endswith('.py'):
                continue
            with io.open(path, encoding='utf-8') as fp:
                if reads_the_version(fp.read()):
                    found.add(os.path.relpath(path, paths.ROOT)
                              .replace(os.sep, '/'))
    return found


def test_py_version_is_this_pythons_major_and_minor():
    assert compat.PY_VERSION == (sys.version_info[0], sys.version_info[1])
    assert isinstance(compat.PY_VERSION, tuple)
    assert compat.PY2 is (compat.PY_VERSION < (3, 0))


def test_no_module_but_compat_reads_the_version_from_sys():
    # A test finer than PY2 takes compat.PY_VERSION.
    assert modules_reading_the_version() == set(['ssbench/compat.py'])


@pytest.mark.parametrize('source, reads', [
    ('import sys\nif sys.version_info[0] == 2: pass\n', True),
    ('import sys\nX = sys.version.split()[0]\n', True),
    ('import sys\nX = sys.hexversion\n', True),
    ('from sys import version_info\n', True),
    ('from ssbench.compat import PY2\nif PY2: pass\n', False),
    ('import zmq\nX = zmq.zmq_version_info()\n', False),
    ('import sys\nX = sys.platform\n', False),
])
def test_the_version_check_sees_each_way_of_reading_it(source, reads):
    assert reads_the_version(source) is reads

"""ssbench.compat: the one Python 2.7 / 3.x shim with logic of its own."""
from __future__ import absolute_import, division, print_function

import errno
import os

import pytest

from ssbench.compat import makedirs


def test_makedirs_creates_every_level(tmpdir):
    path = str(tmpdir.join('a', 'b', 'c'))
    makedirs(path)
    assert os.path.isdir(path)


def test_makedirs_of_an_existing_directory_is_no_error(tmpdir):
    # What a concurrent creator leaves behind between our look and ours.
    makedirs(str(tmpdir))
    assert os.path.isdir(str(tmpdir))


def test_makedirs_under_a_file_raises(tmpdir):
    tmpdir.join('file').write('')
    with pytest.raises(OSError) as info:
        makedirs(str(tmpdir.join('file', 'sub')))
    assert info.value.errno == errno.ENOTDIR

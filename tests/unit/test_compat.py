"""ssbench.compat: the one Python 2.7 / 3.x shim with logic of its own."""
from __future__ import absolute_import, division, print_function

import errno
import os
import time

import pytest

from ssbench import compat
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


def test_monotonic_is_a_clock_that_never_steps_back_on_every_python():
    # On 2.7 it is clock_gettime(CLOCK_MONOTONIC) through ctypes, not the
    # wall clock: it cannot go back, whatever the system time does.
    assert compat.monotonic is not time.time
    readings = [compat.monotonic() for _ in range(1000)]
    assert readings == sorted(readings)
    ctypes_clock = compat._clock_gettime_monotonic()
    assert ctypes_clock is not None
    # The same clock as Python 3's time.monotonic (Linux: both read
    # CLOCK_MONOTONIC).
    if hasattr(time, 'monotonic'):
        before = time.monotonic()
        reading = ctypes_clock()
        assert before <= reading <= time.monotonic()


def test_no_ctypes_clock_where_its_id_is_unknown():
    assert compat._clock_gettime_monotonic('win32') is None

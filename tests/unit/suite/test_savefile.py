"""ssbench.suite.savefile: suite.json replaced whole, the last one left
as it was when a write fails, and room kept beside it for the next."""
from __future__ import absolute_import, division, print_function

import errno
import io
import json
import os

import pytest

from ssbench.suite import savefile
from ssbench.errors import SsbenchError


def read(path):
    with io.open(path, encoding='utf-8') as handle:
        return json.load(handle)


def test_each_save_replaces_suite_json_and_keeps_room_for_the_next(tmpdir):
    saved = savefile.SuiteFile(str(tmpdir))
    saved.save({'steps': [1]})
    assert read(saved.path) == {'steps': [1]}
    room = os.path.getsize(saved.reserve)
    assert room == savefile.MIN_RESERVE + 2 * os.path.getsize(saved.path)
    saved.save({'steps': [1, 2]})
    assert read(saved.path) == {'steps': [1, 2]}
    saved.release()
    assert sorted(os.listdir(str(tmpdir))) == ['suite.json']


def test_a_failed_save_leaves_the_last_suite_json(tmpdir, monkeypatch):
    saved = savefile.SuiteFile(str(tmpdir))
    saved.save({'steps': [1]})
    from ssbench.report.render import jsonfile

    def full(doc, out):
        raise IOError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(jsonfile, 'write_json', full)
    with pytest.raises(SsbenchError) as info:
        saved.save({'steps': [1, 2]})
    assert str(info.value) == 'cannot write suite file %s: %s' % (
        saved.path, os.strerror(errno.ENOSPC))
    assert read(saved.path) == {'steps': [1]}
    assert sorted(os.listdir(str(tmpdir))) == ['suite.json']


def test_no_room_to_keep_is_no_failure(tmpdir, monkeypatch):
    saved = savefile.SuiteFile(str(tmpdir))

    def refuse(path):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    from ssbench.results import safefiles
    monkeypatch.setattr(safefiles, 'create_new', refuse)
    saved.save({'steps': []})
    assert sorted(os.listdir(str(tmpdir))) == ['suite.json']

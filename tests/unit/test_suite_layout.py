"""The test tree itself: the unit tests stand without the others, the
integration tests mirror them, and the unit rule (docs/development.rst,
"Running the tests") is enforced by tests/unit/conftest.py."""
from __future__ import absolute_import, division, print_function

import io
import os
import re
import socket
import subprocess
import sys
import time

import pytest
import zmq

from tests import paths
from tests.unit.conftest import ImpureUnitTest

UNIT = os.path.join(paths.ROOT, 'tests', 'unit')
INTEGRATION = os.path.join(paths.ROOT, 'tests', 'integration')
E2E_IMPORT = re.compile(r'^\s*(from tests\.e2e\b|from tests import .*\be2e\b|'
                        r'import tests\.e2e\b)', re.M)
INTEGRATION_IMPORT = re.compile(
    r'^\s*(from tests\.integration\b|from tests import .*\bintegration\b|'
    r'import tests\.integration\b)', re.M)


def modules(top):
    for folder, _, names in os.walk(top):
        for name in names:
            if name.endswith('.py'):
                yield os.path.join(folder, name)


def importing(top, pattern):
    found = []
    for path in modules(top):
        with io.open(path, encoding='utf-8') as fp:
            if pattern.search(fp.read()):
                found.append(os.path.relpath(path, paths.ROOT))
    return found


def test_no_unit_test_imports_from_the_e2e_tests():
    assert importing(UNIT, E2E_IMPORT) == []


def test_no_integration_test_imports_from_the_e2e_tests():
    assert importing(INTEGRATION, E2E_IMPORT) == []


def test_no_unit_test_imports_from_the_integration_tests():
    assert importing(UNIT, INTEGRATION_IMPORT) == []


def test_integration_tests_mirror_the_library_as_the_unit_tests_do():
    # tests/integration/<pkg>/test_<module>.py tests ssbench/<pkg>/<module>
    # (or, at the top, what a top-level unit module of that name tests).
    strays = []
    for path in modules(INTEGRATION):
        rel = os.path.relpath(path, INTEGRATION)
        folder, name = os.path.split(rel)
        if name in ('__init__.py', 'conftest.py'):
            continue
        library = os.path.join(paths.ROOT, 'ssbench', folder,
                               name[len('test_'):])
        unit = os.path.join(UNIT, rel)
        if not (name.startswith('test_') and
                (os.path.exists(library) or os.path.exists(unit))):
            strays.append(rel)
    assert strays == []


def on_a_socket(action, *args):
    def act():
        sock = socket.socket()
        try:
            getattr(sock, action)(*args)
        finally:
            sock.close()
    return act


def zmq_over_tcp():
    sock = zmq.Context.instance().socket(zmq.PAIR)
    try:
        sock.bind('tcp://127.0.0.1:*')
    finally:
        sock.close(linger=0)


@pytest.mark.parametrize('impure', [
    lambda: subprocess.Popen([sys.executable, '-c', 'pass']).wait(),
    on_a_socket('bind', ('127.0.0.1', 0)),
    on_a_socket('connect', ('127.0.0.1', 9)),
    lambda: time.sleep(0.01),
    zmq_over_tcp,
], ids=['process', 'bind', 'connect', 'sleep', 'zmq tcp'])
def test_a_unit_test_that_starts_a_process_opens_a_socket_or_sleeps_fails(
        impure):
    with pytest.raises(ImpureUnitTest) as raised:
        impure()
    assert 'tests/integration' in str(raised.value)


def test_what_opens_nothing_stays_allowed():
    left, right = socket.socketpair()
    left.close()
    right.close()
    time.sleep(0)
    context = zmq.Context()
    pair = context.socket(zmq.PAIR)
    pair.bind('inproc://layout-test')
    pair.close(linger=0)
    context.term()

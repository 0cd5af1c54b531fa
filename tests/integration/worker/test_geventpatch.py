"""ssbench.worker.geventpatch: gevent's patch_all at less start-up cost."""
from __future__ import absolute_import, division, print_function

import subprocess
import sys

import pytest

pytestmark = pytest.mark.timeout(60)

# Run apart: patching this test process would change every later test.
CHECK = '''
import sys
from importlib import metadata
lookup = metadata.entry_points
from ssbench.worker.geventpatch import patch_all
patch_all()
import gevent.monkey
assert gevent.monkey.is_module_patched('socket')
assert gevent.monkey.is_module_patched('threading')
if sys.version_info[:2] >= (3, 10):
    assert metadata.entry_points is lookup    # put back
patch_all()                                   # a second call: no-op
print('ok')
'''


@pytest.mark.skipif(sys.version_info[0] < 3, reason='importlib.metadata')
def test_patch_all_patches_and_restores_the_lookup():
    out = subprocess.check_output([sys.executable, '-c', CHECK])
    assert out.strip() == b'ok'

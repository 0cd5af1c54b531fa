"""The test tree itself: the unit tests stand without the e2e ones."""
from __future__ import absolute_import, division, print_function

import io
import os
import re

from tests import paths

UNIT = os.path.join(paths.ROOT, 'tests', 'unit')
E2E_IMPORT = re.compile(r'^\s*(from tests\.e2e\b|from tests import .*\be2e\b|'
                        r'import tests\.e2e\b)', re.M)


def test_no_unit_test_imports_from_the_e2e_tests():
    found = []
    for folder, _, names in os.walk(UNIT):
        for name in names:
            if name.endswith('.py'):
                path = os.path.join(folder, name)
                with io.open(path, encoding='utf-8') as fp:
                    if E2E_IMPORT.search(fp.read()):
                        found.append(os.path.relpath(path, paths.ROOT))
    assert found == []

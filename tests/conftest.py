"""Fixtures for every test."""
from __future__ import absolute_import, division, print_function

import logging

import pytest


@pytest.fixture(autouse=True)
def root_logging_restored():
    """A test that runs a command's main() leaves a root log handler on
    its captured stderr, closed once the test ends: later tests' log
    lines would then fail to write (with a traceback on stderr)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)

"""Fixtures of the CLI tests that run real servers or processes: the
unit tests' `cli` (main() in this process, isolated)."""
from __future__ import absolute_import, division, print_function

from tests.unit.cli.conftest import cli  # noqa: F401 (a fixture)

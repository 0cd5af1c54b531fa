"""authopts.py: the --os-all-endpoints flag (the other auth options are
tested with ssbench-worker's parser in test_worker.py)."""
from __future__ import absolute_import, division, print_function

import argparse

from ssbench.cli.authopts import add_auth_options, auth_from_args


def parse(argv):
    parser = argparse.ArgumentParser()
    add_auth_options(parser)
    return auth_from_args(parser.parse_args(argv), env={})


def test_all_endpoints_is_off_unless_asked():
    auth = parse([])
    assert auth.os_all_endpoints is False
    assert 'all_endpoints' not in repr(auth)
    auth = parse(['--os-all-endpoints'])
    assert auth.os_all_endpoints is True
    assert 'os_all_endpoints=True' in repr(auth)

"""run-scenario --retry-backoff: off by default, the defaults without a
value, BASE or BASE,CAP seconds, one line for a bad value; a --metrics
port that cannot be listened on is a runtime failure (status 1)."""
from __future__ import absolute_import, division, print_function

import socket

import pytest

from ssbench.cli.runopts import start_live_view
from ssbench.errors import SsbenchError


def test_a_metrics_port_in_use_exits_1():
    # docs/reliability.rst: ports in use are a runtime failure (1), a bad
    # flag a usage error (2); the address parsed, listening failed.
    taken = socket.socket()
    taken.bind(('127.0.0.1', 0))
    taken.listen(1)
    try:
        with pytest.raises(SsbenchError) as caught:
            start_live_view('none', ('127.0.0.1', taken.getsockname()[1]))
    finally:
        taken.close()
    assert caught.value.exit_status == 1
    assert 'cannot listen there' in str(caught.value)

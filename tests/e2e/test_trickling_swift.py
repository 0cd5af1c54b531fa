"""A storage URL whose server trickles its answer (a header line a second,
well within any per-receive timeout) cannot hold the master's own
requests past --network-timeout: real `ssbench-master` processes against
a server of tests/authservers.py on 127.0.0.1."""
from __future__ import absolute_import, division, print_function

import os
import re
import sys

import pytest

from tests.authservers import AuthServer, trickle
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(120)]

GOOD = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
# The hard bound of each command: a hang is killed (status -9) by then.
BOUND = 20


def master(tmpdir, *args):
    """ssbench-master `args` against a trickling storage URL (its -S and
    a -T); returns (Ran, the storage URL)."""
    with AuthServer(trickle(1.0)) as server:
        url = 'http://127.0.0.1:%d/v1/AUTH_a' % server.port
        argv = [sys.executable, '-m', 'ssbench.cli.master'] + list(args) + \
            ['-S', url, '-T', 'AUTH_tk', '--network-timeout', '2']
        ran = support.run(argv, BOUND, env=support.no_auth_env())
        assert server.heads, ran
    return ran, url


def one_error(ran):
    """The one ERROR line, with the timeout's class named alike on every
    Python (socket.timeout, or TimeoutError from 3.10 on)."""
    assert ran.status == 1, ran
    assert 'Traceback' not in ran.err, ran
    lines = [line for line in ran.err.splitlines()
             if line.startswith('ERROR:')]
    assert len(lines) == 1, ran
    return re.sub(r'failed: (TimeoutError|timeout):', 'failed: timeout:',
                  lines[0])


def test_run_scenario_stops_at_a_trickling_info(tmpdir):
    ran, url = master(tmpdir, 'run-scenario', '-f', GOOD, '-s',
                      str(tmpdir.join('run.stat')), *support.zmq_args())
    assert one_error(ran) == (
        "ERROR:the cluster's /info gave no complete answer within the "
        'network timeout (GET %s /info failed: timeout: response head not '
        "complete within 2 s of its first bytes); is the storage URL "
        "Swift's, or give a longer --network-timeout" % url)
    assert tmpdir.listdir() == []


def test_cleanup_containers_stops_at_a_trickling_listing(tmpdir):
    ran, url = master(tmpdir, 'cleanup-containers')
    assert one_error(ran) == (
        'ERROR:cannot list containers: GET %s?format=json&limit=10000&'
        'prefix=ssbench_ failed: timeout: response head not complete '
        'within 2 s of its first bytes; check the storage URL (-S, or the '
        'one the auth server returns)' % url)

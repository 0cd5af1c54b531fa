"""A worker that refuses its CONFIGURE, with real processes, sockets and
Swift: the incident of a Keystone whose tokens expire in 2099, met by a
master that still sent such an expiry (as before it left out spans past
the wire's MAX_SECONDS).  The worker's check refuses every copy; the
master used to wait for it in silence, and now stops in one line naming
the worker and why, with exit status 1, and the worker exits too.

The master is this tree's, with its bound on the expiry sent undone in
the process (as test_worker_versions makes a worker of another protocol):
every master of this version keeps to what its workers accept, so only a
master that does not can show what a worker does when it is sent
something it refuses."""
from __future__ import absolute_import, division, print_function

import os
import re
import sys

import pytest

from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

# The master without its bound on the token expiry it hands out.
UNBOUNDED_MASTER = (
    'import sys; import ssbench.master.workerconfig as w; '
    'w.MAX_SECONDS = float("inf"); '
    'from ssbench.cli.master import main; sys.exit(main(sys.argv[1:]))')
REFUSAL = r'refused its configuration: bad token_expires_in \(\d+\.\d+\)'


def test_a_worker_refusing_its_configuration_stops_the_run(tmpdir, v2_stub):
    path, data = support.write_scenario(tmpdir, operation_count=20)
    stats = os.path.join(str(tmpdir), 'run.stat')
    ports = (support.free_port(), support.free_port())
    log_path = os.path.join(str(tmpdir), 'worker-1.log')
    worker = support.start_worker(1, ports[0], ports[1], log_path,
                                  env=support.no_auth_env())
    try:
        ran = support.run(
            [sys.executable, '-c', UNBOUNDED_MASTER, 'run-scenario',
             '-f', path, '-s', stats, '-V', '2.0',
             '--os-auth-url', v2_stub.auth_url,
             '--os-tenant-name', 'v2tenant', '--os-username', 'v2user',
             '--os-password', 'v2-secret', '--zmq-bind-ip', '127.0.0.1',
             '--zmq-work-port', str(ports[0]),
             '--zmq-results-port', str(ports[1])],
            timeout=120, env=support.no_auth_env())
        # Told REFUSED by the master, the worker exits on its own.
        status = support.wait_exit(worker, 30)
    finally:
        support.stop_process(worker)
        support.SwiftView().delete_everything(data['container_base'] + '_')
    assert ran.status == 1, ran
    assert 'Traceback' not in ran.err, ran
    last = [line for line in ran.err.splitlines()
            if line.startswith('ERROR:')][-1]
    # One line: the run cannot go on, naming the worker and why.
    assert re.match(r'ERROR:all workers lost \(1\); worker 1 \(.+, pid %d\) '
                    r'%s; the run cannot go on\Z' % (worker.pid, REFUSAL),
                    last), ran
    worker_log = support.read_text(log_path)
    assert status == 1, worker_log
    assert re.search(r'ERROR:worker 1 refused a CONFIGURE from the master: '
                     r'bad token_expires_in \(\d+\.\d+\)\n', worker_log)
    assert re.search(r'ERROR:worker 1 refused by the master: it %s\n' %
                     REFUSAL, worker_log), worker_log
    # No secret travelled back: neither the token nor the password.
    token = support.SwiftView().token
    for text in (ran.out, ran.err, worker_log):
        assert token not in text and 'v2-secret' not in text

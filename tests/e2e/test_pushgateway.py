"""--push with real processes: run-scenario against the local Swift
pushes its final figures to Debian's Pushgateway, which the real
Prometheus scrapes; a gateway that is not there is one warning line."""
from __future__ import absolute_import, division, print_function

import contextlib
import json
import os
import subprocess

import pytest

try:
    from urllib.parse import urlencode
    from urllib.request import urlopen
except ImportError:  # Python 2
    from urllib import urlencode
    from urllib2 import urlopen

from tests.e2e import support

pytestmark = pytest.mark.e2e

PUSHGATEWAY = '/usr/bin/prometheus-pushgateway'


@contextlib.contextmanager
def pushgateway(directory, port):
    """Debian's Pushgateway on loopback `port`, stopped on exit; skips
    (fails in CI) when the package is missing, as Prometheus's does."""
    if not os.path.exists(PUSHGATEWAY):
        if os.environ.get('SSBENCH_REQUIRE_PROMETHEUS') == '1':
            pytest.fail('Debian\'s prometheus-pushgateway is not installed')
        pytest.skip('Debian\'s prometheus-pushgateway is not installed')
    log = open(os.path.join(str(directory), 'pushgateway.log'), 'wb')
    proc = subprocess.Popen(
        [PUSHGATEWAY, '--web.listen-address', '127.0.0.1:%d' % port,
         # Debian's default keeps groups across starts, in /var/lib.
         '--persistence.file', os.path.join(str(directory), 'pushed')],
        stdout=log, stderr=subprocess.STDOUT,
        preexec_fn=support.die_with_parent)
    try:
        support.wait_for(lambda: _get('http://127.0.0.1:%d/-/ready' % port),
                         60, 'the Pushgateway to start', interval=0.2)
        yield
    finally:
        support.stop_process(proc)
        log.close()


def _get(url):
    try:
        return urlopen(url, timeout=2).read().decode('utf-8')
    except Exception:
        return None


def _query(port, expression):
    """The vector `expression` gives in Prometheus: [(labels, value)]."""
    answer = json.loads(urlopen('http://127.0.0.1:%d/api/v1/query?%s' % (
        port, urlencode({'query': expression})), timeout=10).read().decode(
            'utf-8'))
    assert answer['status'] == 'success', answer
    return [(item['metric'], float(item['value'][1]))
            for item in answer['data']['result']]


def test_a_short_run_is_in_prometheus_through_the_gateway(tmpdir):
    """A 10 s run pushing every second and at the end."""
    support.require_swift()
    path, data = support.write_scenario(tmpdir)
    report = os.path.join(str(tmpdir), 'report.json')
    with support.prometheus(tmpdir, honor_labels=True) as (port, gateway):
        with pushgateway(tmpdir, gateway):
            try:
                ran = support.master(
                    'run-scenario', '-f', path, '-s',
                    os.path.join(str(tmpdir), 'run.stat'), '-r', '10',
                    '--workers', '2', '--progress', 'none', '--json', report,
                    '--push', 'http://127.0.0.1:%d' % gateway,
                    '--push-interval', '1',
                    *(support.zmq_args() + support.auth_args()),
                    timeout=240)
            finally:
                support.SwiftView().delete_everything(
                    data['container_base'] + '_')
            assert ran.status == 0, ran
            assert '--push' not in ran.err, ran.err
            with open(report) as fp:
                total = [op for op in json.load(fp)['operations']
                         if op['operation'] == 'total'][0]
            assert total['count'] > 0
            ok = 'ssbench_requests_total{job="ssbench",phase="benchmark",' \
                'result="%s"}'

            def pushed():
                found = _query(port, 'sum by (run) (%s)' % (ok % 'ok'))
                # The final push scraped: an interval push from the
                # clean-up has the same count, and its phase still runs.
                return found if found and found[0][1] == total['count'] \
                    and _query(port, 'ssbench_phase') == [] else None
            (labels, count), = support.wait_for(
                pushed, 60, lambda: 'the pushed count %r in Prometheus, '
                'not %r' % (total['count'], _query(port, ok % 'ok')),
                interval=0.5)
            errors = _query(port, 'sum(%s)' % (ok % 'error'))
            assert (errors[0][1] if errors else 0) == total['errors']
            # The group is the run: the scenario's name and its start.
            assert labels['run'].startswith(json.load(open(path))['name'])
            # The pushes while it ran had the benchmark running...
            assert _query(port, 'max_over_time(ssbench_phase{'
                          'phase="benchmark"}[5m])')[0][1] == 1
            # ...and the final one, which replaced them, says no phase
            # runs and no worker is there: the alerting rules have nothing
            # stale to fire on.
            assert _query(port, 'ssbench_phase') == []
            assert _query(port, 'ssbench_workers_connected') == []
            assert _query(port, 'ssbench_phase_elapsed_seconds{'
                          'phase="benchmark"}')[0][1] >= 9


def test_a_gateway_not_there_is_one_warning_and_exit_0(tmpdir):
    path, _ = support.write_scenario(tmpdir)
    closed = support.free_port()
    ran = support.master(
        'run-scenario', '-f', path, '-s',
        os.path.join(str(tmpdir), 'run.stat'), '--noop', '--workers', '2',
        '-r', '3', '--progress', 'none',
        '--push', 'http://127.0.0.1:%d' % closed, '--push-interval', '0.5',
        *support.zmq_args(), timeout=120)
    assert ran.status == 0, ran
    warnings = [line for line in ran.err.splitlines() if '--push' in line]
    assert len(warnings) == 1, ran.err
    assert warnings[0].startswith('WARNING:--push http://127.0.0.1:%d: ' %
                                  closed), warnings
    assert os.path.exists(os.path.join(str(tmpdir), 'run.stat.gz')) or \
        os.path.exists(os.path.join(str(tmpdir), 'run.stat'))

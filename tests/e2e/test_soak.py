"""The soak harness (bench/soak.py) with a short plan, each fault once,
against a Swift instance of its own: every intended job is accounted
for, every fault is on the run's timeline, and the run got over each
fault (the killed worker joined again, the flushed token was renewed).

One interpreter is enough: the harness only starts processes and reads
files, and what the master and the workers do under each fault (a worker
rejoining, a token renewed, an outage retried) has its own e2e test,
which runs on both.  The soak's second Swift and its minute of faults
would double the CI time for nothing new on Python 2.7."""
from __future__ import absolute_import, division, print_function

import json
import os
import subprocess
import sys

import pytest

from tests.e2e import support

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(sys.version_info[0] < 3,
                       reason='the soak runs on one interpreter (see the '
                              'module docstring)')]

SOAK = os.path.join(support.ROOT, 'bench', 'soak.py')
PLAN = ('proxy', 'object', 'network', 'worker', 'token')
# Not the harness's default instance, which an hour's soak may be using.
SAIO_DIR = '/var/tmp/ssbench-soak-test'
PORT_OFFSET = '200'


def events_after(events, kind, mark):
    """The events of `kind` at or after the mark event `mark`."""
    when = [e['time'] for e in events
            if e['kind'] == 'mark' and e['text'] == mark][0]
    return [e for e in events if e['kind'] == kind and e['time'] >= when]


def test_a_short_soak_accounts_for_every_job_and_marks_every_fault(tmpdir):
    support.require_swift()
    if os.geteuid() != 0:
        pytest.skip('the soak starts a Swift of its own: tools/saio needs '
                    'root')
    out = str(tmpdir.join('soak'))
    log = str(tmpdir.join('soak.log'))
    # The faults follow one another as soon as the one before is over
    # (restarting a Swift server takes 15 s on a busy 2-core box): the
    # plan's five take 50 s here, and 70 s leave them room to end in time.
    argv = [sys.executable, SOAK, '--duration', '70', '--fault-every', '10',
            '--faults', '5',
            '--rate', '10', '--workers', '2', '--down-seconds', '2',
            '--stall-seconds', '2', '--worker-pause', '3',
            '--sample-every', '1', '--saio-dir', SAIO_DIR,
            '--port-offset', PORT_OFFSET, '--out', out, '--timeout', '220']
    with open(log, 'wb') as fp:
        proc = subprocess.Popen(argv, stdout=fp, stderr=subprocess.STDOUT,
                                cwd=support.ROOT,
                                preexec_fn=support.die_with_parent)
    try:
        status = support.wait_exit(proc, 260)
    finally:
        support.stop_process(proc, grace=60)
    said = support.read_text(log)
    assert status == 0, said
    # Its own Swift is gone, its data image unmounted.
    assert not os.path.ismount(os.path.join(SAIO_DIR, 'srv', 'd1')), said
    with open(os.path.join(out, 'summary.json')) as fp:
        summary = json.load(fp)
    # Every intended job is a result, a lost job or unsent.
    assert summary['accounting']['holds'], said
    assert summary['results'] + summary['lost'] + summary['unsent'] == \
        summary['intended'], said
    assert summary['results'] > 0 and summary['intended'] >= 600, said
    # Each fault once, in the plan's order, between its marks...
    faults = summary['faults']
    assert [f['name'] for f in faults] == list(PLAN), said
    assert all(f['in_events'] for f in faults), said
    with open(summary['report']['path']) as fp:
        events = json.load(fp)['events']
    marks = [e['text'] for e in events if e['kind'] == 'mark']
    for index, name in enumerate(PLAN):
        label = 'soak fault %d %s' % (index + 1, name)
        assert marks.index(label + ' begin') < marks.index(label + ' end')
    # ... and the run got over them.
    assert events_after(events, 'worker_joined',
                        'soak fault 4 worker begin'), events
    assert events_after(events, 'token_renewed',
                        'soak fault 5 token begin'), events
    assert summary['auth_retries'] >= 1, said
    assert [s['process'] for s in summary['rss']['series']].count(
        'worker %d' % 1) == 2, summary['rss']
    assert summary['report']['seconds'] > 0, said

"""--json, --html and --compare on real runs against the local Swift whose
stats files hold real errors: HTTP 404s (reads and deletes of expired
objects) and connection failures (a relay in front of Swift cut mid-run).
Golden-free: every figure is checked against the stats file itself."""
from __future__ import absolute_import, division, print_function

import collections
import io
import json
import os
import threading
import time

import pytest

from tests.e2e import support
from tests.relay import Relay

pytestmark = pytest.mark.e2e

OPERATION = {'upload_object': 'create', 'get_object': 'read',
             'update_object': 'update', 'delete_object': 'delete'}


def have_plotly():
    try:
        import plotly  # noqa: F401
    except ImportError:
        return False
    return True


def load_json(path):
    with io.open(path, encoding='utf-8') as fp:
        return json.load(fp)


def expected_causes(results):
    """(operation, cause) -> count, computed from the records alone."""
    counts = collections.Counter()
    for result in results:
        if 'exception' not in result:
            continue
        status, error_class = result.get('status'), result.get('error_class')
        cause = ('HTTP %d' % status if status is not None else
                 error_class or 'not recorded')
        counts[OPERATION[result['type']], cause] += 1
    return counts


def check_document(doc, results):
    """The document agrees with the records of its stats file."""
    assert doc['format_version'] == 1
    ops = dict((op['operation'], op) for op in doc['operations'])
    ok = [r for r in results if 'exception' not in r]
    failed = [r for r in results if 'exception' in r]
    assert ops['total']['count'] == len(ok)
    assert ops['total']['errors'] == len(failed)
    assert ops['total']['retries'] == sum(r['retries'] for r in results)
    assert ops['total']['reconnects'] == sum(r.get('reconnects', 0)
                                             for r in results)
    assert ops['total']['bytes'] == sum(r.get('size') or 0 for r in ok)
    for name in ('create', 'read'):
        assert ops[name]['count'] == sum(
            1 for r in ok if OPERATION[r['type']] == name)
    last = sorted(r['last_byte_latency'] for r in ok
                  if r['last_byte_latency'])
    series = ops['total']['latency']['last_byte'][0]
    assert series['size'] is None and series['count'] == len(last)
    assert (series['min'], series['max']) == (last[0], last[-1])
    assert series['p50'] <= series['p99'] <= series['p99_9'] <= last[-1]
    buckets = doc['timeseries']['operations']['total']
    assert sum(buckets['requests']) == len(ok)
    assert sum(buckets['errors']) == len(failed)
    errors = doc['errors']
    assert errors['recorded'] is True and errors['total'] == len(failed)
    got = dict(((c['operation'], c['cause']), c['count'])
               for c in errors['causes'])
    assert got == dict(expected_causes(results))
    for cause in errors['causes']:
        assert cause['first_seen'] <= cause['last_seen']
        assert cause['example_message']
    return ops, errors


def test_a_real_run_with_404s_in_json_html_and_compare(tmpdir):
    json_path = str(tmpdir.join('run.json'))
    html_path = str(tmpdir.join('run.html'))
    extra = ['--json', json_path]
    if have_plotly():
        extra += ['--html', html_path]
    stats = support.run_with_errors(tmpdir, extra=extra)
    results = support.read_results(stats)
    doc = load_json(json_path)
    ops, errors = check_document(doc, results)
    not_found = [c for c in errors['causes'] if c['cause'] == 'HTTP 404']
    assert not_found, errors
    assert all(c['status'] == 404 and c['error_class'] is None
               for c in not_found)
    assert any((c['example_trans_id'] or '').startswith('tx')
               for c in not_found)
    # report-scenario gives the same document from the same file.
    again = str(tmpdir.join('again.json'))
    ran = support.master('report-scenario', '-s', stats, '--json', again,
                         '-f', os.devnull, timeout=120)
    assert ran.status == 0, ran
    assert load_json(again) == doc
    if have_plotly():
        with io.open(html_path, encoding='utf-8') as fp:
            page = fp.read()
        assert 'HTTP 404' in page
        assert not_found[0]['example_trans_id'] in page
    # A run compared with itself passes any gate.
    ran = support.master('report-scenario', '-s', stats, '--compare', stats,
                         '--fail-if', 'rps<-1%,p99>+1%,errors>+0.1pp',
                         timeout=120)
    assert ran.status == 0, ran
    assert 'requests/s' in ran.out


def test_connection_failures_are_named_by_class(tmpdir):
    support.require_swift()
    swift = support.SwiftView()
    account = swift.url.split('/v1/')[1]
    relay = Relay(('127.0.0.1', 8080)).start()
    path, data = support.write_scenario(tmpdir, user_count=4)
    stats = os.path.join(str(tmpdir), 'run.stat')
    json_path = str(tmpdir.join('run.json'))
    ran = []
    runner = threading.Thread(target=lambda: ran.append(support.master(
        'run-scenario', '-f', path, '-s', stats, '-r', '8', '--workers', '2',
        '--json', json_path,
        '-S', 'http://127.0.0.1:%d/v1/%s' % (relay.port, account),
        *(support.zmq_args() + support.auth_args()), timeout=180)))
    runner.start()
    try:
        deadline = time.time() + 90
        while time.time() < deadline and not (
                os.path.exists(stats) and os.path.getsize(stats) > 2000):
            time.sleep(0.1)
        relay.cut()
        time.sleep(2)
        relay.restore()
        runner.join(200)
        assert ran and ran[0].status == 0, ran
    finally:
        relay.stop()
        runner.join(200)
        swift.delete_everything(data['container_base'] + '_')
    results = support.read_results(stats + '.gz')
    ops, errors = check_document(load_json(json_path), results)
    by_class = [c for c in errors['causes'] if c['error_class']]
    assert by_class, errors
    for cause in by_class:
        assert cause['status'] is None
        assert cause['cause'] == cause['error_class']
        assert cause['error_class'] in ('ConnectionRefusedError',
                                        'ConnectionResetError',
                                        'BrokenPipeError', 'ProtocolError',
                                        'timeout'), cause

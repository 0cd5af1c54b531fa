"""HEAD and container listings against the local Swift: a scenario that
weighs both runs with zero errors, and the JSON, the CSV and the text
report each have a block of their own for both."""
from __future__ import absolute_import, division, print_function

import collections
import csv
import io
import json
import os

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

OBJECTS = 60
JOBS = 400
LIMIT = 7


@pytest.fixture
def scenario(tmpdir):
    support.require_swift()
    swift = support.SwiftView()
    path, data = support.write_scenario(
        tmpdir, name='head list e2e', operation_count=JOBS, user_count=6,
        sizes=[{'name': 'tiny', 'size_min': 10, 'size_max': 100},
               {'name': 'small', 'size_min': 200, 'size_max': 300}],
        initial_files={'tiny': OBJECTS, 'small': OBJECTS // 3},
        crud_profile={'CREATE': 10, 'READ': 20, 'UPDATE': 5, 'DELETE': 5,
                      'HEAD': 40, 'LIST': 20},
        listing={'limit': LIMIT, 'prefix': 'tiny_'},
        container_count=3, container_concurrency=3)
    yield path
    swift.delete_everything(data['container_base'] + '_')


def test_heads_and_listings_run_clean_and_are_reported(tmpdir, scenario):
    stats = os.path.join(str(tmpdir), 'run.stat')
    report = os.path.join(str(tmpdir), 'run.json')
    text = os.path.join(str(tmpdir), 'run.txt')
    ran = support.master(
        'run-scenario', '-f', scenario, '-s', stats, '--workers', '2',
        '--seed', '3', '--json', report,
        *(support.zmq_args() + support.auth_args()), timeout=600)
    assert ran.status == 0, ran
    results = support.read_results(stats + '.gz')
    assert [r for r in results if 'exception' in r] == []
    kinds = collections.Counter(r['type'] for r in results
                                if not r.get('head_first'))
    # 400 draws at 40% and 20%: both far from 0.
    assert kinds['head_object'] > 100 and kinds['list_container'] > 40
    for result in results:
        if result['type'] == 'list_container':
            assert (result['limit'], result['prefix'], result['name']) == (
                LIMIT, 'tiny_', '')
            assert result['status'] == 200
        if result['type'] in ('head_object', 'list_container'):
            assert 0 <= result['first_byte_latency'] <= \
                result['last_byte_latency']

    with io.open(report, encoding='utf-8') as fp:
        doc = json.load(fp)
    ops = dict((op['operation'], op) for op in doc['operations'])
    for key, kind in (('head', 'head_object'), ('list', 'list_container')):
        assert (ops[key]['count'], ops[key]['errors']) == (kinds[kind], 0)
        assert ops[key]['latency']['first_byte'][0]['count'] == kinds[kind]
    assert doc['errors']['total'] == 0

    ran = support.master('report-scenario', '-s', stats + '.gz', '--csv',
                         '-f', text + '.csv', timeout=120)
    assert ran.status == 0, ran
    with io.open(text + '.csv', encoding='utf-8') as fp:
        names, values = list(csv.reader(fp))
    row = dict(zip(names, values))
    assert int(row['head_count']) == kinds['head_object']
    assert int(row['list_count']) == kinds['list_container']
    assert row['head_errors'] == row['list_errors'] == '0'

    ran = support.master('report-scenario', '-s', stats + '.gz', '-f', text,
                         timeout=120)
    assert ran.status == 0, ran
    with io.open(text, encoding='utf-8') as fp:
        lines = fp.read().split('\n')
    assert any(line.startswith('% Ops    C   R   U   D   H   L ')
               for line in lines)
    blocks = [line for line in lines if line.isupper()]
    assert blocks == ['TOTAL', 'CREATE', 'READ', 'UPDATE', 'DELETE', 'HEAD',
                      'LIST']
    for label, kind in (('HEAD', 'head_object'), ('LIST', 'list_container')):
        count = lines[lines.index(label) + 1]
        assert count.startswith('       Count: %5d (    0 error;' %
                                kinds[kind]), count

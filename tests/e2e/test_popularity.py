"""Skewed object popularity against the local Swift: a Zipf scenario's
reads reach the objects it ranks hottest, and the JSON report shows the
share the distribution predicts."""
from __future__ import absolute_import, division, print_function

import collections
import io
import json
import os

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

OBJECTS = 500
READS = 2000
EXPONENT = 1.2


@pytest.fixture
def scenario(tmpdir):
    support.require_swift()
    swift = support.SwiftView()
    path, data = support.write_scenario(
        tmpdir, name='zipf e2e', operation_count=READS, user_count=8,
        sizes=[{'name': 'tiny', 'size_min': 10, 'size_max': 100}],
        initial_files={'tiny': OBJECTS}, crud_profile=[0, 1, 0, 0],
        container_count=4, container_concurrency=4,
        popularity={'kind': 'zipf', 'exponent': EXPONENT})
    yield path
    swift.delete_everything(data['container_base'] + '_')


def predicted_share(objects, top):
    weights = [k ** -EXPONENT for k in range(1, objects + 1)]
    return sum(weights[:top]) / sum(weights)


def test_zipf_reads_take_the_predicted_share(tmpdir, scenario):
    stats = os.path.join(str(tmpdir), 'run.stat')
    report = os.path.join(str(tmpdir), 'run.json')
    ran = support.master(
        'run-scenario', '-f', scenario, '-s', stats, '--workers', '2',
        '--seed', '7', '--json', report,
        *(support.zmq_args() + support.auth_args()), timeout=600)
    assert ran.status == 0, ran
    results = support.read_results(stats + '.gz')
    assert [r for r in results if 'exception' in r] == []
    reads = collections.Counter(r['name'] for r in results
                                if r['type'] == 'get_object')
    assert sum(reads.values()) == READS
    # Rank 1 is the population's first object (24% of the picks; the
    # next one 10%).
    assert reads.most_common(1)[0][0] == 'tiny_000001'
    with io.open(report, encoding='utf-8') as fp:
        popularity = json.load(fp)['popularity']
    assert (popularity['reads'], popularity['objects']) == (READS, OBJECTS)
    assert popularity['objects_read'] == len(reads)
    hottest = dict((h['fraction'], h) for h in popularity['hottest'])
    # 2000 draws: a share near 0.5 has a standard deviation of 0.011, and
    # taking the most-read objects (not the 5 ranked hottest) adds a little
    # upward; 0.05 is over 4 deviations.
    assert hottest[0.01]['objects'] == 5
    assert abs(hottest[0.01]['share'] - predicted_share(OBJECTS, 5)) < 0.05
    assert hottest[0.1]['objects'] == 50
    assert abs(hottest[0.1]['share'] - predicted_share(OBJECTS, 50)) < 0.05

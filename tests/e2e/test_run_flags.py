"""run-scenario without -f, as an operator runs it: --print-scenario
writes the scenario file of the same content, and the run from flags
runs it against the local Swift, its stats file holding that scenario."""
from __future__ import absolute_import, division, print_function

import json
import os

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

# The flags of tests/data/scenarios/from_flags.scenario.
FLAGS = ['--size', '4KiB-8KiB', '--size-name', 'tiny', '--objects', '20',
         '--crud', '10,75,15,0', '-u', '4', '-o', '100', '-c', '3']
EQUIVALENT = os.path.join(support.SCENARIOS, 'from_flags.scenario')


def equivalent(**changes):
    with open(EQUIVALENT) as fp:
        data = json.load(fp)
    data.update(changes)
    return data


def test_print_scenario_writes_the_equivalent_file(tmpdir):
    ran = support.master('run-scenario', *(FLAGS + ['--print-scenario']),
                         timeout=60)
    assert ran.status == 0, ran
    assert json.loads(ran.out) == equivalent()
    path = os.path.join(str(tmpdir), 'kept.scenario')
    ran = support.master('run-scenario', *(FLAGS + ['--print-scenario',
                                                    path]), timeout=60)
    assert (ran.status, ran.out) == (0, ''), ran
    with open(path) as fp:
        assert json.load(fp) == equivalent()


def test_a_run_from_flags_runs_that_scenario_against_swift(tmpdir):
    support.require_swift()
    swift = support.SwiftView()
    base = support.unique_base()
    stats = os.path.join(str(tmpdir), 'flags.stat.gz')
    try:
        ran = support.master(
            'run-scenario', '--container-base', base, '--workers', '2',
            '-s', stats, '--progress', 'none',
            *(FLAGS + support.zmq_args() + support.auth_args()))
        assert ran.status == 0, ran
        from ssbench.results.statsreader import open_stats
        header = open_stats(stats).header
        assert header['_scenario_data'] == equivalent(container_base=base)
        assert (header['name'], header['user_count'],
                header['operation_count'], header['container_base']) == \
            ('tiny CRUD 10,75,15,0', 4, 100, base)
        results = support.read_results(stats)
        assert len(results) == 100
        assert [r for r in results if 'exception' in r] == []
        assert set(r['container'] for r in results) <= set(
            '%s_%06d_default_policy' % (base, index) for index in range(3))
        assert 'TOTAL\n       Count:   100 (    0 error;' in ran.out
        assert sorted(swift.containers(base + '_')) == [
            '%s_%06d_default_policy' % (base, index) for index in range(3)]
    finally:
        swift.delete_everything(base + '_')

"""run-scenario as an operator runs it: without -f, --print-scenario
writes the scenario file of the same content, and the run from flags
runs it against the local Swift, its stats file holding that scenario;
--until-steady ends a steady run (against a fake Swift of known
capacity) long before its -r."""
from __future__ import absolute_import, division, print_function

import json
import os
import time

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


# A fake Swift of known capacity (as tests/e2e/test_suites.py's):
# SLOTS requests at once, SERVICE s each, so that 4 users make a steady
# load whatever else the machine runs.
SLOTS, SERVICE = 8, 0.1


def test_until_steady_ends_a_steady_run_early(tmpdir):
    from ssbench.results.statsreader import open_stats
    from ssbench.suite.folder import steady_of
    from tests import fakes
    server = fakes.FakeSwift()
    try:
        server.limit(SLOTS, SERVICE)
        stats = os.path.join(str(tmpdir), 'steady.stat.gz')
        started = time.time()
        ran = support.master(
            'run-scenario', '--size', '100-200', '--objects', '20',
            '--crud', '0,100,0,0', '-u', '4', '-r', '120', '-c', '1',
            '--until-steady', '--steady-seconds', '6',
            '--steady-tolerance', '25', '--workers', '1', '-s', stats,
            '--progress', 'none', '-A', server.auth_url, '-U', server.user,
            '-K', server.key, *support.zmq_args(), timeout=300)
        elapsed = time.time() - started
    finally:
        server.stop()
    assert ran.status == 0, ran
    stats_file = open_stats(stats)
    assert stats_file.header['until_steady'] is True
    assert stats_file.header['run_seconds'] == 120
    steady = steady_of(stats_file)
    assert steady['steady'] and steady['after'] < 60, steady
    assert 'INFO:Steady after' in ran.err and 'the benchmark ends' in ran.err
    # A run that ended once steady reports as one that reached its end.
    assert 'TOTAL' in ran.out
    # (A busy machine may warn of its own: only this warning is wrong.)
    assert 'ended early' not in ran.err, ran.err
    assert elapsed < 100

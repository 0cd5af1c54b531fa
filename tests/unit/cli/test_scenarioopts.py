"""run-scenario's scenario from flags: the same as the file of the same
content, --print-scenario, and one line for each flag it cannot use."""
from __future__ import absolute_import, division, print_function

import glob
import io
import json
import os

import pytest

from ssbench.cli import scenarioopts
from ssbench.cli.masterparser import build_parser
from ssbench.load.scenarioflags import size_label
from tests import paths
from tests.clirun import MASTER, check

EC = sorted(glob.glob(os.path.join(paths.SCENARIOS, 'ec_test_scenarios',
                                   '*.scenario')))
VERY_SMALL = os.path.join(paths.SCENARIOS, 'very_small.scenario')
FLAGS = ['--size', '1MiB', '--crud', '10,80,5,5', '-u', '32', '-r', '60']


def read(path):
    with io.open(path, encoding='utf-8') as fp:
        return json.load(fp)


def scenario_of(argv):
    return scenarioopts.load(build_parser().parse_args(
        ['run-scenario'] + argv))


def flags_of(data):
    """The flags of a canned scenario of one size class and a top-level
    profile (every EC one)."""
    (size,) = data['sizes']
    return ['--size', size_label(size['size_min'], size['size_max']),
            '--size-name', size['name'],
            '--objects', str(data['initial_files'][size['name']]),
            '--crud', ','.join('%d' % value
                               for value in data['crud_profile']),
            '-u', str(data['user_count']), '-r', str(data['run_seconds']),
            '--container-base', data['container_base'],
            '-c', str(data['container_count'])]


def test_the_ec_scenarios_from_flags_are_their_files():
    assert len(EC) == 18
    for path in EC:
        data = read(path)
        built = scenario_of(flags_of(data))
        # The file's container_concurrency is the default; its name is
        # its own.
        assert data.pop('container_concurrency') == \
            built.container_concurrency
        data['name'] = built.name
        assert built.data == data, path
        from_file = scenario_of(['-f', path])
        assert list(built.containers) == list(from_file.containers)
        assert (built.user_count, built.run_seconds, built.crud_profile) \
            == (from_file.user_count, from_file.run_seconds,
                from_file.crud_profile)


def test_flags_that_override_a_file_build_it_too():
    built = scenario_of(FLAGS + ['-o', '5', '-p', 'gold', '--delete-after',
                                 '60', '--rate', '20', '--segment-size',
                                 '1000'])
    assert built.data['sizes'][0]['segment_size'] == 1000
    assert (built.run_seconds, built.operation_count, built.policy,
            built.delete_after, built.data['rate']) == \
        (60, None, 'gold', 60, 20)


def test_container_base_overrides_a_file():
    scenario = scenario_of(['-f', VERY_SMALL, '--container-base', 'mine'])
    assert scenario.container_base == 'mine'
    assert scenario.containers[7] == 'mine_000007_default_policy'
    assert scenario.stats_header()['container_base'] == 'mine'
    assert scenario_of(['-f', VERY_SMALL]).container_base == 'ssbench'


def test_print_scenario_to_stdout_is_the_scenario_for_f(cli, tmpdir):
    status, out, err = cli(MASTER, ['run-scenario'] + FLAGS +
                           ['--print-scenario'])
    assert status == 0, err
    printed = json.loads(out)
    assert printed == scenario_of(FLAGS).data
    assert printed['run_seconds'] == 60 and printed['user_count'] == 32
    path = os.path.join(str(tmpdir), 'kept.scenario')
    with io.open(path, 'w', encoding='utf-8') as fp:
        fp.write(out)
    assert scenario_of(['-f', path]).data == printed


def test_print_scenario_to_a_file_replaces_one_only_with_force(cli,
                                                               tmpdir):
    path = os.path.join(str(tmpdir), 'kept.scenario')
    argv = ['run-scenario'] + FLAGS + ['--print-scenario', path]
    status, out, err = cli(MASTER, argv)
    assert (status, out) == (0, ''), err
    assert read(path) == scenario_of(FLAGS).data
    other = argv[:-1] + ['--crud', '0,100,0,0', '--print-scenario', path]
    status, out, err = cli(MASTER, other)
    check(status, err, 2, path)
    assert read(path)['crud_profile'] == [10, 80, 5, 5]
    status, out, err = cli(MASTER, other + ['--force'])
    assert status == 0, err
    assert read(path)['crud_profile'] == [0, 100, 0, 0]


@pytest.mark.parametrize('argv, fragment', [
    (['--crud', '10,80,5,4'], "adds up to 99, not 100"),
    (['--size', '4KB'], "unknown unit 'KB'"),
    (['--size', '64K-4K'], 'from low to high'),
    (['--objects', '1,2'], '--objects gives 2 values for 1 sizes'),
    (['--size-name', 'a,b'], '--size-name gives 2 values for 1 sizes'),
    (['--size', '6GiB'], '"size_min" must be at most 5368709122'),
    (['--container-base', 'a/b'], 'no container name may have'),
    (['-f', VERY_SMALL], '-f and --size'),
])
def test_flags_it_cannot_use_are_one_line(cli, argv, fragment):
    status, out, err = cli(MASTER, ['run-scenario', '--noop'] + FLAGS +
                           argv)
    check(status, err, 2, fragment)
    assert out == ''


@pytest.mark.parametrize('argv, fragment', [
    ([], '-f/--scenario-file FILE, or --size and --crud'),
    (['--size', '1K'], '-f/--scenario-file FILE, or --size and --crud'),
    (['--size', '1K', '--crud', '0,100,0,0', '-r', '5'],
     'needs -u/--user-count'),
    (['--size', '1K', '--crud', '0,100,0,0', '-u', '5'],
     'needs -o/--op-count or -r/--run-seconds'),
    (['-f', VERY_SMALL, '--crud', '0,100,0,0'], '-f and --crud'),
    (['-f', VERY_SMALL, '--objects', '3'], '-f and --objects'),
    (['-f', VERY_SMALL, '--print-scenario'], '-f names one already'),
])
def test_what_a_run_from_flags_needs_is_one_line(cli, argv, fragment):
    status, out, err = cli(MASTER, ['run-scenario', '--noop'] + argv)
    check(status, err, 2, fragment)


def test_cleanup_takes_a_base_swift_can_name(cli):
    status, out, err = cli(MASTER, ['cleanup-containers', '-b', 'a/b'])
    check(status, err, 2, 'no container name may have')

"""What run-scenario refuses before touching Swift: a --warmup as long as
the run, a stats file on stdout or over the scenario, and where the
profile goes."""
from __future__ import absolute_import, division, print_function

import argparse
import collections
import io
import os

import pytest

from ssbench.cli import runchecks
from ssbench.errors import UsageError

Scenario = collections.namedtuple(
    'Scenario', 'name user_count operation_count run_seconds')


def scenario(run_seconds=None):
    return Scenario('Small test', 4, 100, run_seconds)


def args(**given):
    values = dict(warmup=None, stats_file=None, profile=False, force=False,
                  scenario_file='/nonexistent/x.scenario')
    values.update(given)
    return argparse.Namespace(**values)


@pytest.mark.parametrize('warmup,run_seconds', [
    (None, 10), (5.0, None), (5.0, 10), (9.5, 10)])
def test_a_warmup_shorter_than_the_run_passes(warmup, run_seconds):
    runchecks.check_warmup(args(warmup=warmup), scenario(run_seconds))


@pytest.mark.parametrize('warmup', [10, 30])
def test_a_warmup_as_long_as_the_run_is_one_line(warmup):
    with pytest.raises(UsageError) as info:
        runchecks.check_warmup(args(warmup=warmup), scenario(10))
    assert 'the run lasts 10 s and --warmup leaves out its first %g s' % (
        warmup,) in str(info.value)


def test_stats_on_stdout_is_refused():
    with pytest.raises(UsageError) as info:
        runchecks.check_run_outputs(args(stats_file='-'), scenario())
    assert str(info.value).startswith('--stats-file -: the stats file')


def test_profile_goes_next_to_the_plain_stats_file(tmpdir):
    path = str(tmpdir.join('run.stat'))
    stats, profile = runchecks.check_run_outputs(
        args(stats_file=path, profile=True), scenario())
    assert (stats.plain, stats.final, profile) == (
        path, path + '.gz', path + '.prof')
    stats, profile = runchecks.check_run_outputs(
        args(stats_file=path + '.gz'), scenario())
    assert (stats.plain, profile) == (path, None)


def test_stats_file_over_the_scenario_is_refused(tmpdir):
    given = tmpdir.join('x.scenario')
    given.write('{}')
    with pytest.raises(UsageError) as info:
        runchecks.check_run_outputs(
            args(stats_file=str(given), scenario_file=str(given)),
            scenario())
    assert 'is the scenario file: refusing to overwrite' in str(info.value)
    assert given.read() == '{}'


def test_an_existing_profile_needs_force(tmpdir):
    path = str(tmpdir.join('run.stat'))
    with io.open(path + '.prof', 'wb') as fp:
        fp.write(b'old')
    with pytest.raises(UsageError) as info:
        runchecks.check_run_outputs(args(stats_file=path, profile=True),
                                    scenario())
    assert str(info.value).startswith('profile ' + path + '.prof')
    runchecks.check_run_outputs(
        args(stats_file=path, profile=True, force=True), scenario())
    assert os.path.getsize(path + '.prof') == 3


def test_a_mark_file_may_be_missing_but_not_a_directory(tmpdir):
    runchecks.check_mark_file(None)
    runchecks.check_mark_file(os.path.join(str(tmpdir), 'not yet'))
    with pytest.raises(UsageError) as caught:
        runchecks.check_mark_file(str(tmpdir))
    assert str(caught.value) == '--mark-file %s is a directory, not a ' \
        'file' % (tmpdir,)

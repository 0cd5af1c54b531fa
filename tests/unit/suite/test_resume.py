"""ssbench.suite.resume: --resume refuses flags that make other steps
than the earlier run's, naming them, and counts a step as done only with
its own stats file in the folder, whose header matches these flags."""
from __future__ import absolute_import, division, print_function

import io
import json
import os

import pytest

import ssbench
from ssbench.suite import plan as suiteplan, resume as suiteresume
from ssbench.cli.masterparser import build_parser
from ssbench.suite.runner import SuiteRunner, load_step
from ssbench.errors import UsageError
from ssbench.results.statswriter import StatsWriter

SCENARIO = {'name': 'r', 'user_count': 2, 'operation_count': 100,
            'sizes': [{'name': 'zero', 'size_min': 0, 'size_max': 0}],
            'initial_files': {'zero': 5}, 'crud_profile': [0, 1, 0, 0],
            'container_count': 1}


@pytest.fixture
def scenario_file(tmpdir):
    path = str(tmpdir.join('r.scenario'))
    with io.open(path, 'w', encoding='utf-8') as handle:
        handle.write(u'%s' % json.dumps(SCENARIO))
    return path


def parse(scenario_file, folder, *flags):
    args, status = build_parser().parse(
        ['run-suite', '-f', scenario_file, '--noop', '-u', '1,2',
         '--suite-dir', folder] + list(flags))
    assert status is None
    return args


def plan(args):
    suite = suiteplan.plan_from_args(args)
    steps = [load_step(args, step, args.suite_dir, suite)
             for step in suite.steps]
    return suite, steps


def earlier_run(tmpdir, scenario_file, *flags):
    """A folder as a run of `flags` leaves it: suite.json and both
    steps' stats files (headers only), complete."""
    folder = str(tmpdir.join('suite'))
    os.makedirs(folder)
    args = parse(scenario_file, folder, *flags)
    suite, steps = plan(args)
    runner = SuiteRunner(args, suite, folder, steps, {}, None)
    for step, entry in zip(steps, runner.entries):
        header = step.scenario.stats_header(ssbench.version)
        header['suite'] = {'name': suite.name, 'step': step.plan.number,
                           'steps': len(steps), 'label': step.plan.label(),
                           'id': runner.id}
        if step.rate:
            header['rate'] = step.rate
            header['arrival'] = args.arrival
        StatsWriter(step.stats_path[:-3], header).finalize()
        entry['complete'] = True
    runner._save()
    runner.suite_file.release()
    return folder


def resume(scenario_file, folder, *flags):
    args = parse(scenario_file, folder, *flags)
    suite, steps = plan(args)
    doc = suiteresume.earlier_suite(folder, True)
    return suiteresume.resumable(doc, folder, suite, steps, args)


def refused(scenario_file, folder, *flags):
    with pytest.raises(UsageError) as info:
        resume(scenario_file, folder, *flags)
    return str(info.value)


def test_every_step_takes_the_container_base(tmpdir, scenario_file):
    args = parse(scenario_file, str(tmpdir), '--container-base', 'mine')
    suite, steps = plan(args)
    assert [step.scenario.containers[0] for step in steps] == \
        ['mine_000000_default_policy'] * 2


def test_the_same_flags_resume_both_steps(tmpdir, scenario_file):
    folder = earlier_run(tmpdir, scenario_file, '-o', '200')
    done = resume(scenario_file, folder, '-o', '200')
    assert sorted(done) == [1, 2]
    assert done[1] == os.path.join(folder, 'r.01.u1.stat.gz')


@pytest.mark.parametrize('before, after, said', [
    (['-o', '200'], ['-o', '300'], '-o 300 (it ran with 200)'),
    (['-o', '200'], ['-o', '200', '--rate', '50'],
     '--rate 50 (it ran without)'),
    (['--rate', '50'], [], 'without --rate (it ran with 50)'),
    ([], ['--warmup', '2'], '--warmup 2 (it ran with 0)'),
    ([], ['--until-steady'], '--until-steady (it ran without)'),
    ([], ['--container-base', 'other'],
     '--container-base "other" (it ran without)'),
    ([], ['--arrival', 'poisson'],
     '--arrival "poisson" (it ran with "uniform")'),
])
def test_other_flags_are_refused_naming_them(tmpdir, scenario_file, before,
                                             after, said):
    folder = earlier_run(tmpdir, scenario_file, *before)
    line = refused(scenario_file, folder, *after)
    assert line.startswith('--resume: the suite in %s ran with other '
                           'flags: ' % (folder,)), line
    assert said in line
    assert line.endswith('resume it with the flags it was started with')


def edit(folder, change):
    path = os.path.join(folder, 'suite.json')
    with io.open(path, encoding='utf-8') as handle:
        doc = json.load(handle)
    change(doc)
    with io.open(path, 'w', encoding='utf-8') as handle:
        handle.write(u'%s' % json.dumps(doc))


def test_the_stats_headers_are_believed_over_suite_json(tmpdir,
                                                        scenario_file):
    folder = earlier_run(tmpdir, scenario_file, '-o', '200')

    def to_300(doc):
        for step in doc['steps']:
            step['settings']['operation_count'] = 300
    edit(folder, to_300)
    line = refused(scenario_file, folder, '-o', '300')
    assert 'r.01.u1.stat.gz: step 1 ran with other flags: -o 300 (it ran ' \
        'with 200)' in line


def test_a_changed_scenario_file_is_refused(tmpdir, scenario_file):
    folder = earlier_run(tmpdir, scenario_file)
    with io.open(scenario_file, 'w', encoding='utf-8') as handle:
        handle.write(u'%s' % json.dumps(dict(SCENARIO, container_count=2)))
    line = refused(scenario_file, folder)
    assert 'the scenario file %s (changed since)' % (scenario_file,) in line


@pytest.mark.parametrize('stats_file', ['/etc/passwd', 'r.01.u2.stat.gz',
                                        'r.02.u2.stat.gz'])
def test_a_stats_file_not_the_steps_own_is_refused(tmpdir, scenario_file,
                                                   stats_file):
    folder = earlier_run(tmpdir, scenario_file)

    def elsewhere(doc):
        doc['steps'][0]['stats_file'] = stats_file
    edit(folder, elsewhere)
    line = refused(scenario_file, folder)
    assert 'steps[0].stats_file "%s" is not the stats file of step 1 ' \
        '(r.01.u1.stat.gz in the suite\'s folder)' % (stats_file,) in line


def test_another_steps_stats_file_is_refused(tmpdir, scenario_file):
    folder = earlier_run(tmpdir, scenario_file)
    os.rename(os.path.join(folder, 'r.02.u2.stat.gz'),
              os.path.join(folder, 'r.01.u1.stat.gz'))
    line = refused(scenario_file, folder)
    assert 'not the stats file of step 1 of suite "r": its header is of ' \
        'step 2 of suite "r"' in line


def test_a_file_that_is_no_stats_file_is_refused(tmpdir, scenario_file):
    folder = earlier_run(tmpdir, scenario_file)
    with io.open(os.path.join(folder, 'r.01.u1.stat.gz'), 'wb') as handle:
        handle.write(b'root:x:0:0:root:/root:/bin/bash\n')
    line = refused(scenario_file, folder)
    assert line.startswith('--resume: %s' % (
        os.path.join(folder, 'r.01.u1.stat.gz'),))
    assert 'not an ssbench stats file' in line


def test_a_missing_stats_file_runs_its_step_again(tmpdir, scenario_file):
    folder = earlier_run(tmpdir, scenario_file)
    os.remove(os.path.join(folder, 'r.02.u2.stat.gz'))
    assert sorted(resume(scenario_file, folder)) == [1]


def test_odd_types_are_refused_naming_the_field(tmpdir, scenario_file):
    folder = earlier_run(tmpdir, scenario_file)

    def odd(doc):
        doc['steps'][1]['settings'] = 'u2'
    edit(folder, odd)
    line = refused(scenario_file, folder)
    assert line == '--resume: %s: steps[1].settings must be an object of ' \
        'numbers and strings, not "u2"' % (os.path.join(folder,
                                                        'suite.json'),)


def test_options_that_are_no_numbers_are_named_not_a_crash(tmpdir,
                                                           scenario_file):
    folder = earlier_run(tmpdir, scenario_file)

    def infinite(doc):
        doc['options']['warmup'] = float('inf')
        doc['options']['noop'] = [1]
    edit(folder, infinite)
    line = refused(scenario_file, folder)
    assert '--warmup 0 (it ran with Infinity)' in line

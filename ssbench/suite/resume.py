"""run-suite --resume: the earlier run's suite.json (checked by
ssbench.suite.folder) must have been made by the same flags, and a
step counts as done only when its stats file is in the suite's folder
under the step's name, and its header names this step of this suite and
the settings these flags give it (see docs/suites.rst)."""
from __future__ import absolute_import, division, print_function

import os

from ssbench.suite import folder as suitefolder
from ssbench.errors import StatsFileError, UsageError
from ssbench.load.scenariocheck import show
from ssbench.measure.record import HEADER_KEY

# The options, besides the steps' settings, that make what a step
# measures: (attribute of the parsed flags, the flag).
OPTION_FLAGS = (('arrival', '--arrival'), ('warmup', '--warmup'),
                ('noop', '--noop'), ('block_size', '--block-size'),
                ('segment_size', '--segment-size'),
                ('delete_after', '--delete-after'),
                ('container_base', '--container-base'),
                ('until_steady', '--until-steady'),
                ('steady_seconds', '--steady-seconds'),
                ('steady_tolerance', '--steady-tolerance'))
# A step's settings (ssbench.load.suitefile.SETTINGS) as flags.
SETTING_FLAGS = {'user_count': '-u', 'operation_count': '-o',
                 'run_seconds': '-r', 'rate': '--rate',
                 'container_count': '-c', 'batch_size': '--batch-size',
                 'policy': '-p', 'delete_after': '--delete-after',
                 'scenario': 'the scenario'}


def step_options(args):
    """The options that make what every step measures, for suite.json's
    "options"."""
    return dict((name, getattr(args, name, None))
                for name, _ in OPTION_FLAGS)


def earlier_suite(folder, resume):
    """The checked suite document of an earlier run in `folder` (None when
    there is none); without --resume a folder holding a suite is
    refused, so that nothing of it is replaced."""
    path = os.path.join(folder, suitefolder.SUITE_FILE)
    if not os.path.exists(path):
        if resume:
            raise UsageError('--resume: %s holds no %s: nothing to resume'
                             % (folder, suitefolder.SUITE_FILE))
        return None
    if not resume:
        raise UsageError('%s holds a suite already: give --resume to run '
                         'its missing steps, or another --suite-dir'
                         % (folder,))
    try:
        return suitefolder.read_document(path)
    except suitefolder.SuiteFolderError as exc:
        raise UsageError('--resume: %s' % (exc,))


def resumable(doc, folder, suite, steps, args):
    """{step number: its stats file} of the steps of `doc` (the earlier
    run in `folder`) that are done; refuses (UsageError) flags that make
    other steps than the earlier run's, and a step's stats file that is
    not its own.  `steps` are runsuite.Step of `suite`."""
    _same_steps(doc, suite, folder)
    differences = _differences(doc, suite, args)
    if differences:
        raise UsageError('--resume: the suite in %s ran with other flags: '
                         '%s; resume it with the flags it was started with'
                         % (folder, ', '.join(differences)))
    done = {}
    for step, entry in zip(steps, doc['steps']):
        if not entry['complete']:
            continue
        try:
            path = suitefolder.step_stats(folder, doc, entry)
            if path is None or not path.endswith('.gz'):
                continue        # nothing kept of it: it runs again
            from ssbench.results.statsreader import open_stats
            stats = open_stats(path)
            suitefolder.check_header(stats, doc, entry)
        except (suitefolder.SuiteFolderError, StatsFileError) as exc:
            raise UsageError('--resume: %s' % (exc,))
        differences = _header_differences(stats.header, step, args)
        if differences:
            raise UsageError('--resume: %s: step %d ran with other flags: '
                             '%s; resume it with the flags it was started '
                             'with' % (path, entry['step'],
                                       ', '.join(differences)))
        done[entry['step']] = path
    return done


def _same_steps(doc, suite, folder):
    recorded = [(entry['step'], entry['scenario'], entry['label'])
                for entry in doc['steps']]
    wanted = [(step.number, step.scenario, step.label())
              for step in suite.steps]
    if recorded != wanted or doc['name'] != suite.name:
        raise UsageError('--resume: the suite in %s has other steps than '
                         'these flags make; resume it with the flags it '
                         'was started with' % (folder,))


def _differences(doc, suite, args):
    """What these flags give the steps that the earlier run's did not,
    as words naming the flags."""
    out = []
    for plan, entry in zip(suite.steps, doc['steps']):
        recorded = entry['settings']
        for key in sorted(set(plan.settings) | set(recorded)):
            _compare(out, SETTING_FLAGS.get(key, key),
                     plan.settings.get(key), recorded.get(key))
    options = doc.get('options') or {}
    for name, flag in OPTION_FLAGS:
        if name in options:
            _compare(out, flag, getattr(args, name, None), options[name])
    return out


def _header_differences(header, step, args):
    """What the stats file's header says the step ran with that these
    flags would not give it."""
    scenario = step.scenario
    rate = step.rate or scenario.rate
    out = []
    for flag, key, value in (
            ('-u', 'user_count', scenario.user_count),
            ('-o', 'operation_count', scenario.operation_count),
            ('-r', 'run_seconds', scenario.run_seconds),
            ('-c', 'container_count', scenario.container_count),
            ('--delete-after', 'delete_after', scenario.delete_after),
            ('--rate', 'rate', rate or None)):
        _compare(out, flag, value, header.get(key))
    if rate:
        _compare(out, '--arrival', args.arrival, header.get('arrival'))
    _compare(out, '--warmup', args.warmup or None,
             header.get('warmup') or None)
    _compare(out, '--until-steady', bool(args.until_steady),
             header.get('until_steady') is True)
    if header.get(HEADER_KEY) != scenario.data:
        out.append('the scenario file %s (changed since)' % (
            scenario.source,))
    return out


def _compare(out, flag, now, then):
    if _same(now, then):
        return
    if isinstance(now, bool) or isinstance(then, bool):
        line = ('%s (it ran without)' if now else
                'without %s (it ran with it)') % (flag,)
    elif now is None:
        line = 'without %s (it ran with %s)' % (flag, _value(then))
    elif then is None:
        line = '%s %s (it ran without)' % (flag, _value(now))
    else:
        line = '%s %s (it ran with %s)' % (flag, _value(now), _value(then))
    if line not in out:
        out.append(line)


def _same(now, then):
    if isinstance(now, bool) or isinstance(then, bool):
        return bool(now) == bool(then)
    return now == then


def _value(value):
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return show(value)

"""What run-suite will run and where its files go: the steps (from a
suite file, or from -f files and the sweeps of the flags), the suite's
folder, each step's stats file, and which steps an earlier run of the
same suite completed (--resume)."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import re
import time

from ssbench.errors import UsageError
from ssbench.load import suitefile, sweep
from ssbench.results.statswriter import DEFAULT_RESULTS_DIR

SUITE_FILE = 'suite.json'
# (setting of a step, the parsed flag's attribute): the sweeps of a
# command line, in the order they vary (the first slowest).
SWEPT_FLAGS = (('user_count', 'user_count'),
               ('operation_count', 'op_count'),
               ('run_seconds', 'run_seconds'),
               ('rate', 'rate'),
               ('container_count', 'container_count'),
               ('batch_size', 'batch_size'),
               ('policy', 'policy'))


def plan_from_args(args):
    """The Suite to run: the --suite file's, or each -f file once per
    combination of the flags' sweeps (a flag with one value is a setting
    of every step, not an axis of the table)."""
    if args.suite_file is not None:
        if args.scenario_file:
            raise UsageError('give the steps either as a --suite file or '
                             'as -f files and sweeps, not both')
        given = [flag for flag, attr in SWEPT_FLAGS
                 if getattr(args, attr) not in (None, [1])]
        if given:
            raise UsageError('with --suite, the suite file says each '
                             "step's settings; %s given on the command line "
                             'would be ignored' % (', '.join(given),))
        return suitefile.load_suite(args.suite_file)
    if not args.scenario_file:
        raise UsageError('run-suite needs -f SCENARIO_FILE (repeatable) or '
                         '--suite FILE')
    axes = [(setting, getattr(args, attr)) for setting, attr in SWEPT_FLAGS
            if getattr(args, attr) is not None]
    try:
        combinations = sweep.product(axes)
        if len(combinations) * len(args.scenario_file) > sweep.MAX_STEPS:
            raise ValueError('the suite has %d steps, more than %d' % (
                len(combinations) * len(args.scenario_file),
                sweep.MAX_STEPS))
    except ValueError as exc:
        raise UsageError('%s' % (exc,))
    steps = []
    for path in args.scenario_file:
        for combination in combinations:
            steps.append(suitefile.StepPlan(len(steps) + 1, path,
                                            combination))
    return suitefile.Suite(suitefile.file_stem(args.scenario_file[0]),
                           suitefile.show_differences(steps))


# Characters of a name or label in a file name: two of them, a step
# number and a date stay below the 255 bytes of a file name.
MAX_NAME_PART = 80


def safe_name(name):
    """A suite's name (or a step's label) as a part of a file name."""
    return re.sub(r'[^A-Za-z0-9._-]+', '_', name)[:MAX_NAME_PART].strip(
        '._') or 'suite'


def suite_dir(args, suite, now=None):
    """The folder of the suite's files: --suite-dir, else a new one in
    the default results folder named by the suite and the time."""
    if args.suite_dir:
        return args.suite_dir
    if args.resume:
        raise UsageError('--resume needs --suite-dir, the folder of the '
                         'suite to finish')
    stamp = time.strftime('%Y-%m-%d.%H%M%S', time.localtime(
        time.time() if now is None else now))
    return os.path.join(DEFAULT_RESULTS_DIR, '%s.%s' % (
        safe_name(suite.name), stamp))


def stats_path(folder, suite, step):
    """A step's stats file: named by the suite, the step's number and its
    values."""
    label = step.label()
    return os.path.join(folder, '%s.%02d%s.stat.gz' % (
        safe_name(suite.name), step.number,
        '.' + safe_name(label) if label else ''))


def earlier_steps(folder, suite, resume):
    """{step number: its entry} of the steps an earlier run of this
    suite in `folder` completed (their stats files are there), for
    --resume; without --resume a folder holding a suite is refused, so
    that nothing of it is replaced."""
    path = os.path.join(folder, SUITE_FILE)
    if not os.path.exists(path):
        if resume:
            raise UsageError('--resume: %s holds no %s: nothing to resume'
                             % (folder, SUITE_FILE))
        return {}
    if not resume:
        raise UsageError('%s holds a suite already: give --resume to run '
                         'its missing steps, or another --suite-dir'
                         % (folder,))
    try:
        with io.open(path, encoding='utf-8') as handle:
            document = json.load(handle)
        entries = document['steps']
        planned = [(entry['step'], entry['scenario'], entry['label'])
                   for entry in entries]
    except (IOError, OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError('--resume: cannot read %s: %s' % (path, exc))
    wanted = [(step.number, step.scenario, step.label())
              for step in suite.steps]
    if planned != wanted:
        raise UsageError('--resume: the suite in %s has other steps than '
                         'these flags make; resume it with the flags it '
                         'was started with' % (folder,))
    return dict((entry['step'], entry) for entry in entries
                if entry.get('complete') and
                os.path.exists(entry.get('stats_file') or ''))

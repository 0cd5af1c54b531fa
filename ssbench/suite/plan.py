"""What run-suite will run and where its files go: the steps (from a
suite file, or from -f files and the sweeps of the flags), the suite's
folder, each step's stats file, and which steps an earlier run of the
same suite left (--resume)."""
from __future__ import absolute_import, division, print_function

import os
import time

from ssbench.suite.folder import safe_name, stats_name
from ssbench.errors import UsageError
from ssbench.load import suitefile, sweep
from ssbench.results.statswriter import DEFAULT_RESULTS_DIR

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
    return os.path.join(folder, stats_name(suite.name, step.number,
                                           step.label()))


def earlier_steps(folder, suite, resume):
    """The checked suite document of an earlier run of the suite in
    `folder` (None without one; see ssbench.suite.resume); without
    --resume a folder holding a suite is refused, so that nothing of it
    is replaced."""
    from ssbench.suite.resume import earlier_suite
    return earlier_suite(folder, resume)

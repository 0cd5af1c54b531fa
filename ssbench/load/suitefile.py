"""Suite files: several runs of scenarios in one command (run-suite).

A suite file is UTF-8 JSON::

    {
      "name": "read curve",                      optional
      "defaults": {"scenario": "small.scenario", "operation_count": 2000},
      "steps": [{"user_count": 8}, {"user_count": 16, "rate": 400}],
      "sweep": {"user_count": "8:64:x2", "rate": [100, 200]}
    }

Each step is a map of SETTINGS (below) over "defaults"; "sweep" maps
settings to lists of values or to a sweep text (ssbench.load.sweep), and
makes every step once per combination of them.  Without "steps" the
defaults are the one step the sweep varies.  Every step needs a
"scenario", a path taken from the suite file's folder.  Every mistake is
one line naming the file and where, and all of them are said at once.
"""
from __future__ import absolute_import, division, print_function

import collections
import os

from ssbench.compat import string_types
from ssbench.errors import ScenarioError
from ssbench.load.scenario import check_setting
from ssbench.load import sweep
from ssbench.load.scenarioflags import parse_number
from ssbench.load.scenariocheck import Checker, read_json, show

MAX_SUITE_BYTES = 1024 * 1024
# The most mistakes said at once; past them, one line says how many more.
MAX_LINES = 20
# setting: what its value is (each checked by scenario.check_setting).
SETTINGS = collections.OrderedDict([
    ('scenario', 'the scenario file (a path from the suite file)'),
    ('user_count', 'requests in flight (-u)'),
    ('operation_count', 'operations (-o)'),
    ('run_seconds', 'seconds (-r)'),
    ('rate', 'jobs per second (--rate)'),
    ('container_count', 'containers (-c)'),
    ('batch_size', 'jobs per message (--batch-size)'),
    ('policy', 'the storage policy (-p)'),
    ('delete_after', 'X-Delete-After seconds (--delete-after)'),
])
# How a step names its values in its label and stats file name.
SHORT = {'user_count': 'u', 'operation_count': 'o', 'run_seconds': 'r',
         'rate': 'rate', 'container_count': 'c', 'batch_size': 'b',
         'policy': 'p', 'delete_after': 'da'}


class StepPlan(object):
    """One step of a suite: its number (from 1), the scenario path, the
    settings it overrides (an OrderedDict, in SETTINGS order) and the
    names of those that tell it from the other steps (`shown`; None:
    all of them)."""

    def __init__(self, number, scenario, settings, shown=None):
        self.number = number
        self.scenario = scenario
        self.settings = settings
        self.shown = shown

    def label(self):
        """The step's distinguishing values in short: 'u16.rate400' (''
        without any); a scenario file among others by its name."""
        parts = []
        # Unset, all of its settings (which never hold the scenario).
        shown = self.settings if self.shown is None else self.shown
        if 'scenario' in shown:
            parts.append(file_stem(self.scenario))
        parts.extend('%s%s' % (SHORT[key], _short(value))
                     for key, value in self.settings.items()
                     if key in shown)
        return '.'.join(parts)


def file_stem(path):
    """A file's name without folder and extension, as text every encoder
    takes (it names a suite or a step in stats headers): bytes of the
    name that are no UTF-8 (Python 3 holds them as lone surrogates) read
    as U+FFFD."""
    stem = os.path.splitext(os.path.basename(path))[0]
    if isinstance(stem, bytes):
        return stem
    try:
        raw = stem.encode('utf-8', 'surrogateescape')
    except UnicodeEncodeError:
        raw = stem.encode('utf-8', 'replace')
    return raw.decode('utf-8', 'replace')


def _short(value):
    if isinstance(value, float) and value == int(value):
        value = int(value)
    return '%s' % (value,)


# A suite's name and its StepPlans, in order.
Suite = collections.namedtuple('Suite', 'name steps')


class SuiteError(ScenarioError):
    """Every mistake of a suite file, one line each (`lines`)."""

    def __init__(self, lines):
        ScenarioError.__init__(self, '\n'.join(lines))
        self.lines = lines


class _Mistakes(object):
    """Collects one line per mistake, each prefixed with the file."""

    def __init__(self, source):
        self.source = source
        self.lines = []

    def check(self, where, call, *args):
        """call(checker, *args) with a Checker prefixed by `where`; None
        (and the line kept) when it finds a mistake."""
        try:
            return call(Checker('%s: %s' % (self.source, where)), *args)
        except ScenarioError as exc:
            self.add('%s' % (exc,))
            return None

    def add(self, line):
        self.lines.append(line)

    def raise_any(self):
        if self.lines:
            lines = self.lines[:MAX_LINES]
            if len(self.lines) > MAX_LINES:
                lines.append('%s: and %d more mistakes' % (
                    self.source, len(self.lines) - MAX_LINES))
            raise SuiteError(lines)


def load_suite(path):
    """The Suite of the suite file at `path`; SuiteError (exit status 2)
    with one line per mistake."""
    data = read_json(path, MAX_SUITE_BYTES)
    return parse_suite(data, path, file_stem(path), os.path.dirname(path))


_TOP_KEYS = ('name', 'defaults', 'steps', 'sweep')


def parse_suite(data, source, default_name, folder=''):
    """The Suite of parsed suite JSON `data` (see the module docstring);
    scenario paths are taken from `folder`."""
    mistakes = _Mistakes(source)
    if not isinstance(data, dict):
        mistakes.add('%s: must contain a JSON object, not %s' % (
            source, show(data)))
        mistakes.raise_any()
    for key in sorted(set(data) - set(_TOP_KEYS)):
        mistakes.add('%s: unknown key %s (known: %s)' % (
            source, show(key), ', '.join(_TOP_KEYS)))
    name = data.get('name', default_name)
    if 'name' in data:
        name = mistakes.check('"name"', Checker.text, name, 'the name')
    defaults = _settings(mistakes, data.get('defaults', {}), 'defaults')
    steps = data.get('steps')
    if steps is None:
        steps = [{}]
    elif not isinstance(steps, list) or not steps:
        mistakes.add('%s: "steps" must be a non-empty list of objects, '
                     'not %s' % (source, show(steps)))
        steps = []
    plans = []
    for index, step in enumerate(steps):
        settings = collections.OrderedDict(defaults)
        settings.update(_settings(mistakes, step, 'steps[%d]' % index))
        plans.append(settings)
    axes = _axes(mistakes, data.get('sweep', {}))
    mistakes.raise_any()
    try:
        combinations = sweep.product(axes)
        if len(plans) * len(combinations) > sweep.MAX_STEPS:
            raise ValueError('the suite has %d steps, more than %d' % (
                len(plans) * len(combinations), sweep.MAX_STEPS))
    except ValueError as exc:
        mistakes.add('%s: %s' % (source, exc))
        mistakes.raise_any()
    out = []
    for index, settings in enumerate(plans):
        for combination in combinations:
            merged = collections.OrderedDict(settings)
            merged.update(combination)
            if 'scenario' not in merged:
                mistakes.add('%s: steps[%d]: no "scenario" (give it in the '
                             'step or in "defaults")' % (source, index))
                break
            out.append(_plan(len(out) + 1, merged, folder))
    mistakes.raise_any()
    return Suite(name, show_differences(out))


def show_differences(steps):
    """`steps` (StepPlans), each labelled by the settings (and scenario
    file) whose values differ among them."""
    keys = set()
    for step in steps:
        keys.update(step.settings)
    varying = [key for key in keys if len(set(
        repr(step.settings.get(key)) for step in steps)) > 1]
    if len(set(step.scenario for step in steps)) > 1:
        varying.append('scenario')
    for step in steps:
        step.shown = varying
    return steps


def _settings(mistakes, value, where):
    """The checked settings of one map of the file (defaults, a step)."""
    if not isinstance(value, dict):
        mistakes.add('%s: %s must be an object of settings, not %s' % (
            mistakes.source, where, show(value)))
        return {}
    out = {}
    for key in sorted(value, key=lambda k: '%s' % (k,)):
        if key not in SETTINGS:
            mistakes.add('%s: %s: unknown setting %s (known: %s)' % (
                mistakes.source, where, show(key), ', '.join(SETTINGS)))
            continue
        checked = mistakes.check(where, check_setting, key, value[key],
                                 '"%s"' % (key,))
        if checked is not None:
            out[key] = checked
    return out


def _axes(mistakes, value):
    """[(setting, values)] of the "sweep" map, in SETTINGS order."""
    if not isinstance(value, dict):
        mistakes.add('%s: "sweep" must be an object of settings, not %s' % (
            mistakes.source, show(value)))
        return []
    axes = []
    for key in SETTINGS:
        if key not in value:
            continue
        values = _values(mistakes, key, value[key])
        if values:
            axes.append((key, values))
    for key in sorted(set(value) - set(SETTINGS), key=lambda k: '%s' % k):
        mistakes.add('%s: sweep: unknown setting %s (known: %s)' % (
            mistakes.source, show(key), ', '.join(SETTINGS)))
    return axes


class _Refused(ValueError):
    """A swept value its setting refuses (the mistake is said already)."""


def _values(mistakes, key, value):
    where = 'sweep: "%s"' % (key,)
    if isinstance(value, string_types) and key not in ('scenario',
                                                       'policy'):
        def convert(token):
            try:
                number = parse_number(token)
            except ValueError:
                raise ValueError('%r is not a number' % (token,))
            checked = mistakes.check(where, check_setting, key, number,
                                     'a value')
            if checked is None:
                raise _Refused(token)
            return checked
        try:
            return sweep.expand(value, convert)
        except _Refused:
            return []
        except ValueError as exc:
            mistakes.add('%s: %s: %s' % (mistakes.source, where, exc))
            return []
    if not isinstance(value, list) or not value:
        mistakes.add('%s: %s must be a non-empty list of values or a '
                     'sweep such as "8:64:x2", not %s' % (
                         mistakes.source, where, show(value)))
        return []
    if len(value) > sweep.MAX_VALUES:
        mistakes.add('%s: %s has more than %d values' % (
            mistakes.source, where, sweep.MAX_VALUES))
        return []
    checked = [mistakes.check(where, check_setting, key, item, 'a value')
               for item in value]
    return [item for item in checked if item is not None]


def _plan(number, settings, folder):
    scenario = settings.pop('scenario')
    if not os.path.isabs(scenario):
        scenario = os.path.normpath(os.path.join(folder, scenario))
    ordered = collections.OrderedDict(
        (key, settings[key]) for key in SETTINGS if key in settings)
    return StepPlan(number, scenario, ordered)

"""A run-suite folder checked before anything in it is believed (see
docs/suites.rst): suite.json's structure and types, each mistake one line
naming the field, and each step's stats file, which must lie in the
folder under the name the suite gives that step and whose header must
name this suite and this step.  The figures of a step are never read
from suite.json: they come from its stats file."""
from __future__ import absolute_import, division, print_function

import io
import json
import numbers
import os
import re

from ssbench.compat import string_types
from ssbench.load.scenariocheck import show
from ssbench.measure.finite import is_finite
from ssbench.report.compute.suitefigures import FORMAT, FORMAT_VERSION
from ssbench.suite.steadystate import RECORD_KIND as STEADY_RECORD

SUITE_FILE = 'suite.json'
# suite.json of 1000 steps with their figures per operation is a few MB.
MAX_SUITE_BYTES = 16 * 1024 * 1024


class SuiteFolderError(ValueError):
    """One line: what in the suite's folder cannot be believed."""


# Characters of a name or label in a file name: two of them, a step
# number and a date stay below the 255 bytes of a file name.
MAX_NAME_PART = 80


def safe_name(name):
    """A suite's name (or a step's label) as a part of a file name."""
    return re.sub(r'[^A-Za-z0-9._-]+', '_', name)[:MAX_NAME_PART].strip(
        '._') or 'suite'


def stats_name(suite_name, number, label):
    """The name of a step's (gzipped) stats file in its suite's folder."""
    return '%s.%02d%s.stat.gz' % (safe_name(suite_name), number,
                                  '.' + safe_name(label) if label else '')


def read_document(path):
    """The suite document in the suite.json at `path`, checked
    (check_document()); SuiteFolderError in one line otherwise."""
    try:
        with io.open(path, 'rb') as handle:
            raw = handle.read(MAX_SUITE_BYTES + 1)
    except (IOError, OSError) as exc:
        raise SuiteFolderError('%s: cannot read the suite: %s' % (
            path, getattr(exc, 'strerror', None) or exc))
    if len(raw) > MAX_SUITE_BYTES:
        raise SuiteFolderError('%s: larger than %d bytes: not a suite file'
                               % (path, MAX_SUITE_BYTES))
    try:
        doc = json.loads(raw.decode('utf-8'))
    except (UnicodeDecodeError, ValueError) as exc:
        raise SuiteFolderError('%s: not a suite file: %s' % (path, exc))
    except RuntimeError:    # RecursionError: nested beyond any suite's
        raise SuiteFolderError('%s: not a suite file: nested too deeply'
                               % (path,))
    return check_document(doc, path)


def _integer(value):
    return isinstance(value, numbers.Integral) and \
        not isinstance(value, bool)


def _text(value):
    return isinstance(value, string_types)


def _optional(test):
    return lambda value: value is None or test(value)


# field: (test, what it must be, whether every step has it); a step's
# figures, slo and steady are not read (they are computed again from its
# stats file).
_STEP_FIELDS = (
    ('label', _text, 'a string', True),
    ('scenario', _text, 'a string', True),
    ('settings', lambda v: isinstance(v, dict) and all(
        _text(k) and (is_finite(x) or _text(x)) for k, x in v.items()),
     'an object of numbers and strings', True),
    ('stats_file', _optional(_text), 'a string or null', True),
    ('complete', lambda v: isinstance(v, bool), 'true or false', True),
    ('html', _optional(_text), 'a string or null', False),
    ('error', _optional(_text), 'a string or null', False),
)
_SEARCH_FIELDS = (
    ('summary', _text, 'a string'),
    ('why', _optional(_text), 'a string or null'),
    ('busy_steps', lambda v: isinstance(v, list) and all(
        _integer(x) for x in v), 'a list of step numbers'),
    ('highest_met', _optional(is_finite), 'a number or null'),
    ('lowest_missed', _optional(is_finite), 'a number or null'),
    ('client_limit', _optional(is_finite), 'a number or null'),
)


def check_document(doc, source):
    """`doc` (parsed suite.json) when its structure and types are those
    run-suite writes; SuiteFolderError naming the first field that is
    not."""
    def bad(field, must, value):
        raise SuiteFolderError('%s: %s must be %s, not %s' % (
            source, field, must, show(value)))

    if not isinstance(doc, dict) or doc.get('format') != FORMAT:
        raise SuiteFolderError('%s: not a run-suite suite.json' % (source,))
    if doc.get('format_version') != FORMAT_VERSION:
        bad('format_version', '%d' % FORMAT_VERSION,
            doc.get('format_version'))
    for field, test, must in (
            ('name', _text, 'a string'),
            ('id', _optional(_text), 'a string'),
            ('steps', lambda v: isinstance(v, list) and v,
             'a non-empty list'),
            ('options', _optional(lambda v: isinstance(v, dict)),
             'an object'),
            ('search', _optional(lambda v: isinstance(v, dict)),
             'an object')):
        if not test(doc.get(field)):
            bad(field, must, doc.get(field))
    for index, step in enumerate(doc['steps']):
        where = 'steps[%d]' % (index,)
        if not isinstance(step, dict):
            bad(where, 'an object', step)
        if step.get('step') != index + 1 or not _integer(step.get('step')):
            bad(where + '.step', '%d (the steps in order)' % (index + 1,),
                step.get('step'))
        for field, test, must, always in _STEP_FIELDS:
            if field not in step and always:
                raise SuiteFolderError('%s: %s has no "%s"' % (
                    source, where, field))
            if not test(step.get(field)):
                bad('%s.%s' % (where, field), must, step.get(field))
    search = doc.get('search')
    for field, test, must in _SEARCH_FIELDS if search is not None else ():
        if not test(search.get(field)):
            bad('search.' + field, must, search.get(field))
    return doc


def step_stats(folder, doc, entry):
    """The path of `entry`'s stats file (a step of suite document `doc`,
    in `folder`), or None when it names none or none is there.  The
    name suite.json gives it must be the one the suite gives the step
    (its gzipped file, or the plain one of a step stopped at once); the
    file is always taken from `folder`, wherever the suite ran."""
    recorded = entry.get('stats_file')
    if recorded is None:
        return None
    expected = stats_name(doc['name'], entry['step'], entry['label'])
    name = os.path.basename(recorded)
    if name not in (expected, expected[:-len('.gz')]):
        raise SuiteFolderError(
            '%s: steps[%d].stats_file %s is not the stats file of step %d '
            '(%s in the suite\'s folder)' % (
                os.path.join(folder, SUITE_FILE), entry['step'] - 1,
                show(recorded), entry['step'], expected))
    path = os.path.join(folder, name)
    return path if os.path.exists(path) else None


def check_header(stats_file, doc, entry):
    """Refuse (SuiteFolderError) a stats file (statsreader.StatsFile)
    whose header does not name this step (its number and label) of this
    suite (its name, and its id when suite.json has one)."""
    mark = stats_file.header.get('suite')
    mark = mark if isinstance(mark, dict) else {}
    wanted = {'name': doc['name'], 'step': entry['step'],
              'label': entry['label']}
    if doc.get('id') is not None:
        wanted['id'] = doc['id']
    if any(mark.get(key) != value for key, value in wanted.items()):
        said = 'names no suite' if not mark else \
            'is of step %s of suite %s%s' % (
                show(mark.get('step')), show(mark.get('name')),
                ' (another run of it)' if mark.get('name') == doc['name']
                and mark.get('step') == entry['step'] else '')
        raise SuiteFolderError(
            '%s: not the stats file of step %d of suite %s: its header %s'
            % (stats_file.path, entry['step'], show(doc['name']), said))


def steady_of(stats_file):
    """{'steady', 'after', 'why'} of a --until-steady step, from the
    record its stats file ends with; None for another step."""
    if stats_file.header.get('until_steady') is not True:
        return None
    found = None
    for batch in stats_file.iter_batches():
        for record in batch:
            if isinstance(record, dict) and \
                    record.get('kind') == STEADY_RECORD:
                found = record
    if found is None:
        return None
    return dict((key, found.get(key)) for key in ('steady', 'after', 'why'))

"""Suite folders as run-suite leaves them, for the tests of reading
them: stats files whose header names their suite and step, and the
suite.json of those steps."""
from __future__ import absolute_import, division, print_function

import gzip
import io
import json
import os

from ssbench.wire import protocol

SUITE_ID = 'f00d' * 8


def with_header(source, target, **changes):
    """Copy the gzipped stats file `source` to `target` with `changes`
    made to its header (a value None removes the key)."""
    with gzip.open(source, 'rb') as handle:
        data = handle.read()
    unpacker = protocol.unpacker()
    unpacker.feed(data)
    header = next(unpacker)
    rest = data[unpacker.tell():]
    for key, value in changes.items():
        if value is None:
            header.pop(key, None)
        else:
            header[key] = value
    with gzip.open(target, 'wb') as handle:
        handle.write(protocol.pack(header) + rest)
    return target


def suite_mark(name, step, label, steps, suite_id=SUITE_ID):
    """The `suite` key run-suite puts in a step's stats header."""
    return {'name': name, 'step': step, 'steps': steps, 'label': label,
            'id': suite_id}


def write_suite_json(folder, doc):
    with io.open(os.path.join(folder, 'suite.json'), 'w',
                 encoding='utf-8') as handle:
        handle.write(u'%s' % json.dumps(doc))


def make_suite(folder, stats_files, name='curve', moved=False,
               marks=None):
    """A suite folder as run-suite leaves it, with copies of
    `stats_files` as its steps (labelled u4, u8, ...; named in suite.json
    where they were run, elsewhere when `moved`), their headers naming
    their step, or `marks[i]` when given."""
    os.makedirs(folder)
    steps = []
    for number, source in enumerate(stats_files, 1):
        label = 'u%d' % (4 * number)
        target = os.path.join(folder, '%s.%02d.%s.stat.gz' % (
            name, number, label))
        mark = marks[number - 1] if marks else suite_mark(
            name, number, label, len(stats_files))
        with_header(source, target, suite=mark)
        where = os.path.join('/elsewhere', os.path.basename(target)) \
            if moved else target
        steps.append({'step': number, 'label': label,
                      'scenario': 'x.scenario', 'settings': {},
                      'stats_file': where, 'complete': True})
    write_suite_json(folder, {
        'format': 'ssbench-suite', 'format_version': 1, 'name': name,
        'id': SUITE_ID, 'steps': steps})
    return folder

"""Scenario files: load and validate the JSON, apply command-line overrides,
and derive what the rest of ssbench needs from them (container names, size
class weights, the report's size table, the stats file header).

A `Scenario` is built once and treated as read-only.  `scenario.data` is the
parsed JSON exactly as read (it becomes `_scenario_data` in the stats file);
overrides are never written back into it: the effective values are the
attributes (`user_count`, `operation_count`, ...) and the header's own keys,
as in ssbench 0.3.x.
"""
from __future__ import absolute_import, division, print_function

import io
import json
import numbers
import re
from collections import OrderedDict, namedtuple

import ssbench
from ssbench.compat import PY2, range, string_types
from ssbench.errors import ScenarioError

DEFAULT_CONTAINER_BASE = 'ssbench'
DEFAULT_CONTAINER_COUNT = 100
DEFAULT_CONTAINER_CONCURRENCY = 10
DEFAULT_BLOCK_SIZE = 65536
DEFAULT_POLICY_LABEL = 'default_policy'

# Upper bounds, checked before anything starts, so that no input can make
# the master's memory or work grow without bound (the master keeps 8 bytes
# per live object and a map per job in flight) or fail mid-run.
MAX_USER_COUNT = 100000
MAX_OPERATION_COUNT = 10 ** 9
MAX_RUN_SECONDS = 10 ** 7            # about 16 weeks
MAX_CONTAINER_COUNT = 10 ** 6
MAX_CONTAINER_CONCURRENCY = 1000
MAX_INITIAL_FILES = 10 ** 7          # all size classes together
MAX_BLOCK_SIZE = 64 * 1024 * 1024
# Swift's default max_file_size (5 GiB + 2): larger objects need segments.
MAX_OBJECT_SIZE = 5 * 1024 ** 3 + 2
# X-Delete-At must stay a 10-digit timestamp; this is about 31 years.
MAX_DELETE_AFTER = 10 ** 9
MAX_CRUD_WEIGHT = 10 ** 9            # only the ratios matter
MAX_SIZE_CLASSES = 1000
MAX_SCENARIO_BYTES = 1024 * 1024
MAX_RATE = 10 ** 7                   # jobs per second, in all

# Keys an `overrides` dict may carry (None values mean "not given").
OVERRIDE_KEYS = ('user_count', 'operation_count', 'run_seconds',
                 'container_count', 'delete_after', 'policy', 'block_size')

# Header keys that carry the effective run parameters (SPEC section 4).
HEADER_KEYS = ('name', 'version', 'user_count', 'operation_count',
               'run_seconds', 'container_base', 'container_count',
               'container_concurrency', 'delete_after')


class SizeRow(namedtuple('SizeRow',
                         'name size_min size_max pct_ops crud_pcts')):
    """One row of the report's size table (numbers only).

    `pct_ops` is the class's share of initial_files in percent (0 for unused
    classes); `crud_pcts` its CRUD profile as four percentages (all 0.0 for
    an unused class without a usable profile)."""
    __slots__ = ()


class SizeClass(object):
    """A validated entry of `sizes`, with its effective CRUD profile."""

    __slots__ = ('name', 'size_min', 'size_max', 'crud_profile',
                 'initial_count')

    def __init__(self, name, size_min, size_max, crud_profile, initial_count):
        self.name = name
        self.size_min = size_min
        self.size_max = size_max
        # Own profile or the top-level one; None only for an unused class
        # when neither exists.
        self.crud_profile = crud_profile
        self.initial_count = initial_count

    @property
    def used(self):
        """True when benchmark operations ever pick this class."""
        return self.initial_count > 0

    @property
    def crud_pcts(self):
        """The CRUD profile as percentages of its total (zeros if none)."""
        profile = self.crud_profile
        total = sum(profile) if profile else 0
        if not total:
            return (0.0, 0.0, 0.0, 0.0)
        return tuple(100.0 * weight / total for weight in profile)

    def __repr__(self):
        return 'SizeClass(%r, %r, %r, %r, %r)' % (
            self.name, self.size_min, self.size_max, self.crud_profile,
            self.initial_count)


# -- loading -------------------------------------------------------------

def load_scenario(path, overrides=None):
    """Read, parse and validate the scenario file at `path`.

    `overrides` maps OVERRIDE_KEYS to command-line values (None = not
    given).  Every problem raises ScenarioError with one line naming the file.
    """
    try:
        with io.open(path, 'rb') as handle:
            # Bounded: -f /dev/zero must not fill the memory.
            raw = handle.read(MAX_SCENARIO_BYTES + 1)
    except (IOError, OSError) as exc:
        raise ScenarioError('%s: cannot read the scenario file: %s' % (
            path, exc.strerror or exc))
    if len(raw) > MAX_SCENARIO_BYTES:
        raise ScenarioError('%s: larger than %d bytes: not a scenario file'
                            % (path, MAX_SCENARIO_BYTES))
    try:
        # utf-8-sig: be generous about a byte-order mark editors may add.
        text = raw.decode('utf-8-sig')
    except UnicodeDecodeError as exc:
        line, column = _line_col(raw[:exc.start].decode('utf-8', 'replace'),
                                 exc.start)
        raise ScenarioError('%s: line %d column %d: not UTF-8 text (%s)' % (
            path, line, column, exc.reason))
    data = parse_json(text, path)
    return Scenario.from_dict(data, overrides, source=path)


def parse_json(text, source):
    """Parse JSON text; a syntax error becomes a one-line ScenarioError
    `<source>: line L column C: <what>`, with the same wording on 2 and 3."""
    try:
        return json.loads(text)
    except ValueError as exc:
        raise ScenarioError('%s: %s' % (source, _json_error(exc, text)))
    except RuntimeError:  # RecursionError on 3: absurdly deep nesting
        raise ScenarioError('%s: JSON nested too deeply' % source)


_CHAR_POS = re.compile(r'\(char (\d+)')
# Python 2.7 wording -> Python 3 wording.
_PY2_MESSAGES = {
    'Expecting object': 'Expecting value',
    'No JSON object could be decoded': 'Expecting value',
}


def _line_col(text, pos):
    """1-based line and column of character offset `pos`, as json counts."""
    line = text.count('\n', 0, pos) + 1
    if line == 1:
        return line, pos + 1
    return line, pos - text.rindex('\n', 0, pos)


def _json_error(exc, text):
    """'line L column C: message' for a json ValueError on either Python."""
    if getattr(exc, 'lineno', None) is not None and hasattr(exc, 'msg'):
        return 'line %d column %d: %s' % (exc.lineno, exc.colno, exc.msg)
    if PY2:  # pragma: no cover - the 2.7 run covers this
        # Python 2's C scanner reports some errors without a position; its
        # pure-Python scanner always has one, so ask that one again.
        from json.scanner import py_make_scanner
        decoder = json.JSONDecoder()
        decoder.scan_once = py_make_scanner(decoder)
        try:
            decoder.decode(text)
        except ValueError as again:
            exc = again
    message = str(exc)
    match = _CHAR_POS.search(message)
    if match:
        pos = int(match.group(1))
        message = message.split(': line ', 1)[0]
    else:
        # Only "nothing to decode" lacks a position: where the value should
        # start, as Python 3 reports it.
        pos = len(text) - len(text.lstrip(' \t\n\r'))
    message = _PY2_MESSAGES.get(message, message)
    line, column = _line_col(text, min(pos, len(text)))
    return 'line %d column %d: %s' % (line, column, message)


# -- validation helpers --------------------------------------------------

def _show(value):
    """A value as the user wrote it in JSON (same text on Python 2 and 3)."""
    try:
        text = json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        text = repr(value)
    if len(text) > 40:
        text = text[:37] + '...'
    return text


def _is_number(value):
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Integral):
        return True
    # json accepts NaN and Infinity; neither is a usable count or weight.
    return isinstance(value, float) and value == value and \
        value not in (float('inf'), float('-inf'))


def _as_int(value):
    """`value` as an int if it is an integral number (2 or 2.0), else None.

    JSON has one number type, so 1e6 is accepted as a byte count; booleans
    are not numbers here even though Python says so.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return None


class _Checker(object):
    """Raises ScenarioError prefixed with the source for every problem."""

    def __init__(self, source):
        self.source = source

    def fail(self, message):
        message = ' '.join(str(message).split('\n'))
        raise ScenarioError('%s: %s' % (self.source, message))

    def int_at_least(self, value, minimum, what, maximum):
        number = _as_int(value)
        if number is None or number < minimum:
            self.fail('%s must be an integer >= %d, not %s' % (
                what, minimum, _show(value)))
        if number > maximum:
            self.too_large(value, maximum, what)
        return number

    def positive_number(self, value, what, maximum):
        if not _is_number(value) or value <= 0:
            self.fail('%s must be a number > 0, not %s' % (what, _show(value)))
        if value > maximum:
            self.too_large(value, maximum, what)
        return value

    def too_large(self, value, maximum, what):
        self.fail('%s must be at most %d, not %s' % (
            what, maximum, _show(value)))

    def text(self, value, what, allow_none=False):
        if value is None and allow_none:
            return None
        if not isinstance(value, string_types) or not value:
            self.fail('%s must be a non-empty string%s, not %s' % (
                what, ' or null' if allow_none else '', _show(value)))
        return value

    def crud_profile(self, value, what):
        if (not isinstance(value, list) or len(value) != 4 or
                not all(_is_number(w) and w >= 0 for w in value)):
            self.fail('%s must be a list of 4 non-negative numbers '
                      '[C, R, U, D], not %s' % (what, _show(value)))
        if max(value) > MAX_CRUD_WEIGHT:
            self.fail('%s: each weight must be at most %d (only their '
                      'ratios matter), not %s' % (
                          what, MAX_CRUD_WEIGHT, _show(max(value))))
        return tuple(value)


def _key(name):
    return '"%s"' % name


# -- the scenario --------------------------------------------------------

class Scenario(object):
    """A validated scenario with command-line overrides applied.

    Attributes: source, data (raw parsed JSON), name, sizes (SizeClass list
    in file order), crud_profile (top-level tuple or None), user_count,
    operation_count and run_seconds (exactly one is not None),
    container_base, container_count, container_concurrency, delete_after
    (None when off), policy (None = default), block_size.
    """

    version = None   # the ssbench version, when rebuilt from a stats file

    def __init__(self, data, overrides=None, source='<scenario>'):
        check = _Checker(source)
        if not isinstance(data, dict):
            check.fail('must contain a JSON object, not %s' % (
                'a list' if isinstance(data, list) else _show(data)))
        overrides = dict(overrides or {})
        unknown = set(overrides) - set(OVERRIDE_KEYS)
        if unknown:
            raise ValueError('unknown scenario overrides: %s' %
                             ', '.join(sorted(unknown)))
        overrides = dict((k, v) for k, v in overrides.items() if v is not None)
        self.source = source
        self.data = data

        for key in ('name', 'sizes', 'initial_files'):
            if key not in data:
                check.fail('missing required key %s' % _key(key))
        if 'user_count' not in data and 'user_count' not in overrides:
            check.fail('missing required key %s' % _key('user_count'))
        if ('operation_count' not in data and 'run_seconds' not in data and
                'operation_count' not in overrides and
                'run_seconds' not in overrides):
            check.fail('missing required key "operation_count" or '
                       '"run_seconds"')

        self.name = check.text(data['name'], _key('name'))
        self._load_sizes(check, data)
        self._load_counts(check, data, overrides)

    @classmethod
    def from_dict(cls, data, overrides=None, source='<scenario>'):
        """Validate already-parsed scenario JSON (see load_scenario)."""
        return cls(data, overrides, source)

    # -- construction helpers --

    def _load_sizes(self, check, data):
        top = data.get('crud_profile')
        if top is not None or 'crud_profile' in data:
            top = check.crud_profile(top, _key('crud_profile'))
        self.crud_profile = top

        sizes = data['sizes']
        if not isinstance(sizes, list) or not sizes:
            check.fail('"sizes" must be a non-empty list of size classes, '
                       'not %s' % _show(sizes))
        if len(sizes) > MAX_SIZE_CLASSES:
            check.fail('"sizes" has %d size classes; at most %d are '
                       'supported' % (len(sizes), MAX_SIZE_CLASSES))
        initial = data['initial_files']
        if not isinstance(initial, dict):
            check.fail('"initial_files" must be an object mapping size names '
                       'to counts, not %s' % _show(initial))

        self.sizes = []
        self._by_name = OrderedDict()
        for index, entry in enumerate(sizes):
            where = 'sizes[%d]' % index
            if not isinstance(entry, dict):
                check.fail('%s must be an object with name, size_min and '
                           'size_max, not %s' % (where, _show(entry)))
            for key in ('name', 'size_min', 'size_max'):
                if key not in entry:
                    check.fail('%s: missing required key %s' % (
                        where, _key(key)))
            name = check.text(entry['name'], '%s: "name"' % where)
            where = '%s (%s)' % (where, _show(name))
            if name in self._by_name:
                check.fail('duplicate size name %s in "sizes"' % _show(name))
            size_min = check.int_at_least(entry['size_min'], 0,
                                          '%s: "size_min"' % where,
                                          MAX_OBJECT_SIZE)
            size_max = check.int_at_least(entry['size_max'], 0,
                                          '%s: "size_max"' % where,
                                          MAX_OBJECT_SIZE)
            if size_min > size_max:
                check.fail('%s: "size_min" %d is larger than "size_max" %d' % (
                    where, size_min, size_max))
            count = 0
            if name in initial:
                count = check.int_at_least(
                    initial[name], 0, '"initial_files" for %s' % _show(name),
                    MAX_INITIAL_FILES)
            own = entry.get('crud_profile')
            if own is not None:
                own = check.crud_profile(
                    own, '%s: "crud_profile"' % where)
            profile = own if own is not None else top
            if count > 0:
                if profile is None:
                    check.fail('missing required key "crud_profile" (size %s '
                               'has no crud_profile of its own)' % _show(name))
                if not sum(profile):
                    if own is None:
                        check.fail('"crud_profile" is all zero but size %s '
                                   'uses it (initial_files > 0)' %
                                   _show(name))
                    check.fail('%s: "crud_profile" is all zero but the size '
                               'is used (initial_files > 0)' % where)
            size = SizeClass(name, size_min, size_max, profile, count)
            self.sizes.append(size)
            self._by_name[name] = size

        for name in sorted(initial, key=_show):
            if name not in self._by_name:
                check.fail('"initial_files" names unknown size %s' %
                           _show(name))
        total = sum(size.initial_count for size in self.sizes)
        if not total:
            check.fail('"initial_files" has no size with a count > 0, so no '
                       'size class can be used')
        if total > MAX_INITIAL_FILES:
            check.fail('"initial_files" add up to %d objects; at most %d '
                       'are supported' % (total, MAX_INITIAL_FILES))

    def _load_counts(self, check, data, overrides):
        def pick(key, default, validate):
            """CLI value beats the file, which beats the default."""
            if key in overrides:
                return validate(overrides[key],
                                '%s from the command line' % key)
            if key in data:
                return validate(data[key], _key(key))
            return default

        def between(minimum, maximum):
            return lambda value, what: check.int_at_least(value, minimum,
                                                          what, maximum)

        self.user_count = pick('user_count', None, between(1, MAX_USER_COUNT))
        self.container_base = pick(
            'container_base', DEFAULT_CONTAINER_BASE, check.text)
        self.container_count = pick(
            'container_count', DEFAULT_CONTAINER_COUNT,
            between(1, MAX_CONTAINER_COUNT))
        self.container_concurrency = pick(
            'container_concurrency', DEFAULT_CONTAINER_CONCURRENCY,
            between(1, MAX_CONTAINER_CONCURRENCY))
        # Open loop (see ssbench.schedule): jobs per second in all; None
        # (the default): closed loop, user_count requests at all times.
        self.rate = pick('rate', None, lambda value, what: (
            None if value is None else check.positive_number(
                value, what, MAX_RATE)))
        self.block_size = pick('block_size', DEFAULT_BLOCK_SIZE,
                               between(1, MAX_BLOCK_SIZE))
        self.policy = pick('policy', None, lambda value, what: check.text(
            value, what, allow_none=True))
        # X-Delete-After takes whole seconds; 0 (like null) means off.
        delete_after = pick('delete_after', None, lambda value, what: (
            None if value is None else check.int_at_least(
                value, 0, what, MAX_DELETE_AFTER)))
        self.delete_after = delete_after or None

        # Validate both file values even if one loses, so typos surface.
        file_ops = file_secs = None
        if 'operation_count' in data:
            file_ops = check.int_at_least(data['operation_count'], 1,
                                          _key('operation_count'),
                                          MAX_OPERATION_COUNT)
        if 'run_seconds' in data:
            file_secs = check.positive_number(data['run_seconds'],
                                              _key('run_seconds'),
                                              MAX_RUN_SECONDS)
        # run_seconds beats operation_count at each level, and any
        # command-line value beats both file values.
        if 'run_seconds' in overrides:
            ops, secs = None, check.positive_number(
                overrides['run_seconds'], 'run_seconds from the command line',
                MAX_RUN_SECONDS)
        elif 'operation_count' in overrides:
            ops, secs = check.int_at_least(
                overrides['operation_count'], 1,
                'operation_count from the command line',
                MAX_OPERATION_COUNT), None
        elif file_secs is not None:
            ops, secs = None, file_secs
        else:
            ops, secs = file_ops, None
        self.operation_count = ops
        self.run_seconds = secs

    # -- size classes --

    def size(self, name):
        """The SizeClass called `name` (KeyError if there is none)."""
        return self._by_name[name]

    @property
    def size_names(self):
        """Size class names in file order."""
        return [size.name for size in self.sizes]

    @property
    def used_sizes(self):
        """Size classes benchmark operations pick (initial count > 0)."""
        return [size for size in self.sizes if size.initial_count > 0]

    @property
    def initial_counts(self):
        """OrderedDict size name -> initial object count (0 if absent)."""
        return OrderedDict((s.name, s.initial_count) for s in self.sizes)

    @property
    def max_initial_count(self):
        """Largest initial count; benchmark jobs are numbered above it."""
        return max(size.initial_count for size in self.sizes)

    @property
    def size_weights(self):
        """OrderedDict used size name -> share of operations (sums to 1)."""
        total = sum(size.initial_count for size in self.sizes)
        return OrderedDict((s.name, s.initial_count / total)
                           for s in self.sizes if s.initial_count > 0)

    def crud_profile_for(self, name):
        """The CRUD weights a size class uses (own or top-level)."""
        return self._by_name[name].crud_profile

    # -- containers --

    @property
    def policy_label(self):
        """The policy part of container names."""
        return self.policy if self.policy is not None else \
            DEFAULT_POLICY_LABEL

    def container_name(self, index):
        """`<container_base>_<6-digit index>_<policy or default_policy>`."""
        return '%s_%06d_%s' % (self.container_base, index, self.policy_label)

    @property
    def containers(self):
        """All container names, index 0 .. container_count - 1, as a
        sequence that makes each name when asked for it."""
        return ContainerNames(self.container_name, self.container_count)

    # -- report numbers --

    def size_table(self):
        """SizeRow per size class in file order: the report's size table."""
        total = sum(size.initial_count for size in self.sizes)
        return [SizeRow(s.name, s.size_min, s.size_max,
                        100.0 * s.initial_count / total, s.crud_pcts)
                for s in self.sizes]

    def crud_weighted_average(self):
        """CRUD percentages averaged over size classes, weighted by % Ops."""
        average = [0.0, 0.0, 0.0, 0.0]
        for row in self.size_table():
            for i in range(4):
                average[i] += row.pct_ops * row.crud_pcts[i] / 100.0
        return tuple(average)

    # -- stats file --

    def stats_header(self, version=None):
        """The first object of a stats file (SPEC section 4)."""
        return {
            '_scenario_data': self.data,
            'name': self.name,
            'version': ssbench.version if version is None else version,
            'user_count': self.user_count,
            'operation_count': self.operation_count,
            'run_seconds': self.run_seconds,
            'container_base': self.container_base,
            'container_count': self.container_count,
            'container_concurrency': self.container_concurrency,
            'delete_after': self.delete_after,
        }

    def __repr__(self):
        return '<Scenario %r from %s>' % (self.name, self.source)


class ContainerNames(object):
    """A read-only sequence of `count` names made by `name(index)` on
    demand: a million containers cost no memory until used."""

    __slots__ = ('_name', '_count')

    def __init__(self, name, count):
        self._name = name
        self._count = count

    def __len__(self):
        return self._count

    def __getitem__(self, index):
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError('container index out of range')
        return self._name(index)

    def __iter__(self):
        name = self._name
        for index in range(self._count):
            yield name(index)


def scenario_from_header(header, source='<stats file>'):
    """Rebuild the Scenario a stats file was written with.

    The header's own keys (effective values of that run) win over
    `_scenario_data`; `scenario.data` stays the stored JSON.  Headers of
    ssbench 0.3.x files have the same shape.
    """
    if not isinstance(header, dict) or \
            not isinstance(header.get('_scenario_data'), dict):
        raise ScenarioError('%s: the header has no scenario data' % source)
    data = header['_scenario_data']
    effective = dict(data)
    for key in ('name', 'user_count', 'container_base', 'container_count',
                'container_concurrency', 'delete_after'):
        if header.get(key) is not None:
            effective[key] = header[key]
        elif key == 'delete_after' and key in header:
            effective[key] = None
    if header.get('run_seconds') is not None:
        effective['run_seconds'] = header['run_seconds']
        effective.pop('operation_count', None)
    elif header.get('operation_count') is not None:
        effective['operation_count'] = header['operation_count']
        effective.pop('run_seconds', None)
    scenario = Scenario(effective, source=source)
    scenario.data = data
    scenario.version = header.get('version')
    return scenario

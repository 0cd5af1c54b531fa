"""Scenario files: what a valid scenario is, command-line overrides, and
what the rest of ssbench needs from it (size classes, container names, the
stats file header).  Reading the JSON and the one-line errors are in
ssbench.load.scenariocheck.

A `Scenario` is built once and treated as read-only.  `scenario.data` is the
parsed JSON exactly as read (it becomes `_scenario_data` in the stats file);
overrides are never written back into it: the effective values are the
attributes (`user_count`, `operation_count`, ...) and the header's own keys,
as in ssbench 0.3.x.
"""
from __future__ import absolute_import, division, print_function

import collections

import ssbench
from ssbench.compat import range
from ssbench.load import popularity
from ssbench.load.scenariocheck import Checker, read_json, show
from ssbench.measure.record import HEADER_KEY, MAX_RUN_SECONDS, MAX_USER_COUNT

DEFAULT_CONTAINER_BASE = 'ssbench'
DEFAULT_CONTAINER_COUNT = 100
DEFAULT_CONTAINER_CONCURRENCY = 10
DEFAULT_BLOCK_SIZE = 65536
DEFAULT_POLICY_LABEL = 'default_policy'

# Upper bounds, checked before anything starts, so that no input can make
# the master's memory or work grow without bound (the master keeps 8 bytes
# per live object and a map per job in flight) or fail mid-run.
MAX_OPERATION_COUNT = 10 ** 9
MAX_CONTAINER_COUNT = 10 ** 6
MAX_CONTAINER_CONCURRENCY = 1000
MAX_INITIAL_FILES = 10 ** 7          # all size classes together
MAX_BLOCK_SIZE = 64 * 1024 * 1024
# Swift's default max_file_size (5 GiB + 2): larger objects need segments.
MAX_OBJECT_SIZE = 5 * 1024 ** 3 + 2
# A segmented (large) object: at most 1 PiB; its segments are bounded like
# any object.
MAX_LARGE_OBJECT_SIZE = 1024 ** 5
# X-Delete-At must stay a 10-digit timestamp; this is about 31 years.
MAX_DELETE_AFTER = 10 ** 9
MAX_CRUD_WEIGHT = 10 ** 9            # only the ratios matter
MAX_SIZE_CLASSES = 1000
MAX_SCENARIO_BYTES = 1024 * 1024
MAX_RATE = 10 ** 7                   # jobs per second, in all
# A job every 1000 s: below it, the gap before the next job due outlasts
# any run (1e-300 would wait 1e300 s).
MIN_RATE = 0.001
# A LIST job's page: Swift's default container_listing_limit bounds it.
DEFAULT_LISTING_LIMIT = 100
MAX_LISTING_LIMIT = 10000
LISTING_KEYS = ('limit', 'prefix')

# Keys an `overrides` dict may carry (None values mean "not given").
OVERRIDE_KEYS = ('user_count', 'operation_count', 'run_seconds',
                 'container_base', 'container_count', 'delete_after',
                 'policy', 'block_size', 'segment_size')


# A validated entry of `sizes`.  crud_profile: its own profile or the
# top-level one, None only for an unused class when neither exists.
# segment_size: bytes per segment of a large object (large_object 'slo'
# or 'dlo'); None: its objects are single PUTs.  popularity: how
# READ/UPDATE/DELETE pick objects (ssbench.load.popularity's check());
# None: 0.3.9's rotation.
SizeClass = collections.namedtuple('SizeClass', (
    'name', 'size_min', 'size_max', 'crud_profile', 'initial_count',
    'segment_size', 'large_object', 'popularity'))


# -- loading -------------------------------------------------------------

def load_scenario(path, overrides=None):
    """Read, parse and validate the scenario file at `path`.

    `overrides` maps OVERRIDE_KEYS to command-line values (None = not
    given).  Every problem raises ScenarioError with one line naming the file.
    """
    return Scenario(read_json(path, MAX_SCENARIO_BYTES), overrides,
                    source=path)


def _key(name):
    return '"%s"' % name


# (minimum, maximum) of each integer setting.
_INT_RANGES = {
    'user_count': (1, MAX_USER_COUNT),
    'operation_count': (1, MAX_OPERATION_COUNT),
    'container_count': (1, MAX_CONTAINER_COUNT),
    'container_concurrency': (1, MAX_CONTAINER_CONCURRENCY),
    'block_size': (1, MAX_BLOCK_SIZE),
    'segment_size': (1, MAX_OBJECT_SIZE),
    'delete_after': (0, MAX_DELETE_AFTER),
    # run-suite's jobs per message (--batch-size): one per request at most.
    'batch_size': (1, MAX_USER_COUNT),
}
# Settings whose value is text (a suite step's scenario file among them).
_TEXT_SETTINGS = ('container_base', 'policy', 'scenario')


def check_setting(check, key, value, what, nullable=False):
    """The value of setting `key` (a top-level key of a scenario, a
    command-line override, a suite step's), checked by `check` (a
    scenariocheck.Checker) and named `what` in its message; with
    `nullable`, None is a value (off, or the default)."""
    if value is None and nullable:
        return None
    if key in _TEXT_SETTINGS:
        return check.text(value, what, allow_none=nullable)
    if key == 'run_seconds':
        return check.positive_number(value, what, MAX_RUN_SECONDS)
    if key == 'rate':
        return check.positive_number(value, what, MAX_RATE, MIN_RATE)
    minimum, maximum = _INT_RANGES[key]
    return check.int_at_least(value, minimum, what, maximum)


def _segments(check, entry, where, size_min, size_max, override):
    """(segment_size or None, large_object) of the size class `entry`:
    its own segment_size, else the command line's `override` when
    size_max is above it.  Unsegmented classes stay within Swift's
    default max_file_size."""
    segment_size = entry.get('segment_size')
    if segment_size is not None:
        segment_size = check_setting(check, 'segment_size', segment_size,
                                     '%s: "segment_size"' % where)
    elif override is not None and size_max > override:
        segment_size = override
    large_object = entry.get('large_object', 'slo')
    if large_object not in ssbench.LARGE_OBJECT_KINDS:
        check.fail('%s: "large_object" must be "slo" or "dlo", not %s' % (
            where, show(large_object)))
    if segment_size is None:
        for key, value in (('size_min', size_min), ('size_max', size_max)):
            if value > MAX_OBJECT_SIZE:
                check.fail('%s: "%s" must be at most %d, not %s' % (
                    where, key, MAX_OBJECT_SIZE, show(value)))
    elif size_min < 1:
        check.fail('%s: "size_min" must be at least 1 for a segmented '
                   'class, not %s' % (where, show(size_min)))
    return segment_size, large_object


def _listing(check, value):
    """(limit, prefix or None) of the scenario's `listing` key (absent
    or null: DEFAULT_LISTING_LIMIT names, no prefix)."""
    if value is None:
        return DEFAULT_LISTING_LIMIT, None
    if not isinstance(value, dict):
        check.fail('"listing" must be an object such as {"limit": 100, '
                   '"prefix": "tiny_"}, not %s' % show(value))
    for key in sorted(value, key=show):
        if key not in LISTING_KEYS:
            check.fail('"listing" has no key %s; it takes "limit" and '
                       '"prefix"' % show(key))
    limit = DEFAULT_LISTING_LIMIT
    if value.get('limit') is not None:
        limit = check.int_at_least(value['limit'], 1, '"listing": "limit"',
                                   MAX_LISTING_LIMIT)
    prefix = check.text(value.get('prefix'), '"listing": "prefix"',
                        allow_none=True)
    return limit, prefix


# -- the scenario --------------------------------------------------------

class Scenario(object):
    """A validated scenario with command-line overrides applied.

    Attributes: source, data (raw parsed JSON), name, sizes (SizeClass list
    in file order), crud_profile (top-level tuple or None), listing
    ((limit, prefix or None) of LIST jobs), user_count,
    operation_count and run_seconds (exactly one is not None),
    container_base, container_count, container_concurrency, delete_after
    (None when off), policy (None = default), block_size.
    """

    def __init__(self, data, overrides=None, source='<scenario>'):
        check = Checker(source)
        if not isinstance(data, dict):
            check.fail('must contain a JSON object, not %s' % (
                'a list' if isinstance(data, list) else show(data)))
        overrides = dict(overrides or {})
        unknown = set(overrides) - set(OVERRIDE_KEYS)
        if unknown:
            raise ValueError('unknown scenario overrides: %s' %
                             ', '.join(sorted(unknown)))
        overrides = dict((k, v) for k, v in overrides.items() if v is not None)
        self.source = source
        self.data = data

        for key in ('name', 'sizes', 'initial_files', 'user_count'):
            if key not in data and key not in overrides:
                check.fail('missing required key %s' % _key(key))
        if ('operation_count' not in data and 'run_seconds' not in data and
                'operation_count' not in overrides and
                'run_seconds' not in overrides):
            check.fail('missing required key "operation_count" or '
                       '"run_seconds"')

        self.name = check.text(data['name'], _key('name'))
        self._load_sizes(check, data, overrides.get('segment_size'))
        self.listing = _listing(check, data.get('listing'))
        self._load_counts(check, data, overrides)

    # -- construction helpers --

    def _load_sizes(self, check, data, segment_override=None):
        top = data.get('crud_profile')
        if 'crud_profile' in data:
            top = check.crud_profile(top, _key('crud_profile'),
                                     MAX_CRUD_WEIGHT)
        self.crud_profile = top
        top_popularity = None
        if 'popularity' in data:
            top_popularity = popularity.check(check, data['popularity'],
                                              _key('popularity'))

        sizes = data['sizes']
        if not isinstance(sizes, list) or not sizes:
            check.fail('"sizes" must be a non-empty list of size classes, '
                       'not %s' % show(sizes))
        if len(sizes) > MAX_SIZE_CLASSES:
            check.fail('"sizes" has %d size classes; at most %d are '
                       'supported' % (len(sizes), MAX_SIZE_CLASSES))
        initial = data['initial_files']
        if not isinstance(initial, dict):
            check.fail('"initial_files" must be an object mapping size names '
                       'to counts, not %s' % show(initial))

        if segment_override is not None:
            segment_override = check_setting(
                check, 'segment_size', segment_override,
                'segment_size from the command line')
        self.sizes = []
        self._by_name = {}
        for index, entry in enumerate(sizes):
            where = 'sizes[%d]' % index
            if not isinstance(entry, dict):
                check.fail('%s must be an object with name, size_min and '
                           'size_max, not %s' % (where, show(entry)))
            for key in ('name', 'size_min', 'size_max'):
                if key not in entry:
                    check.fail('%s: missing required key %s' % (
                        where, _key(key)))
            name = check.text(entry['name'], '%s: "name"' % where)
            where = '%s (%s)' % (where, show(name))
            if name in self._by_name:
                check.fail('duplicate size name %s in "sizes"' % show(name))
            bound = MAX_OBJECT_SIZE
            if 'segment_size' in entry or segment_override is not None:
                bound = MAX_LARGE_OBJECT_SIZE
            size_min, size_max = [
                check.int_at_least(entry[key], 0, '%s: "%s"' % (where, key),
                                   bound) for key in ('size_min', 'size_max')]
            if size_min > size_max:
                check.fail('%s: "size_min" %d is larger than "size_max" %d' % (
                    where, size_min, size_max))
            segment_size, large_object = _segments(
                check, entry, where, size_min, size_max, segment_override)
            count = 0
            if name in initial:
                count = check.int_at_least(
                    initial[name], 0, '"initial_files" for %s' % show(name),
                    MAX_INITIAL_FILES)
            own = entry.get('crud_profile')
            if own is not None:
                own = check.crud_profile(
                    own, '%s: "crud_profile"' % where, MAX_CRUD_WEIGHT)
            profile = own if own is not None else top
            skew = top_popularity
            if 'popularity' in entry:
                skew = popularity.check(check, entry['popularity'],
                                        '%s: "popularity"' % where)
            if count > 0:
                if profile is None:
                    check.fail('missing required key "crud_profile" (size %s '
                               'has no crud_profile of its own)' % show(name))
                if not sum(profile):
                    if own is None:
                        check.fail('"crud_profile" is all zero but size %s '
                                   'uses it (initial_files > 0)' %
                                   show(name))
                    check.fail('%s: "crud_profile" is all zero but the size '
                               'is used (initial_files > 0)' % where)
            size = SizeClass(name, size_min, size_max, profile, count,
                             segment_size, large_object, skew)
            self.sizes.append(size)
            self._by_name[name] = size

        for name in sorted(initial, key=show):
            if name not in self._by_name:
                check.fail('"initial_files" names unknown size %s' %
                           show(name))
        total = sum(size.initial_count for size in self.sizes)
        if not total:
            check.fail('"initial_files" has no size with a count > 0, so no '
                       'size class can be used')
        if total > MAX_INITIAL_FILES:
            check.fail('"initial_files" add up to %d objects; at most %d '
                       'are supported' % (total, MAX_INITIAL_FILES))

    def _load_counts(self, check, data, overrides):
        def pick(key, default=None, nullable=False,
                 sources=(overrides, data)):
            """The value of the first of `sources` that gives `key` (the
            command line beats the file), checked; else `default`."""
            for source in sources:
                if key in source:
                    what = ('%s from the command line' % key
                            if source is overrides else _key(key))
                    return check_setting(check, key, source[key], what,
                                         nullable)
            return default

        self.user_count = pick('user_count')
        self.container_base = pick('container_base', DEFAULT_CONTAINER_BASE)
        self.container_count = pick('container_count',
                                    DEFAULT_CONTAINER_COUNT)
        self.container_concurrency = pick('container_concurrency',
                                          DEFAULT_CONTAINER_CONCURRENCY)
        # Open loop (see ssbench.load.schedule): jobs per second in all; None
        # (the default): closed loop, user_count requests at all times.
        self.rate = pick('rate', nullable=True)
        self.block_size = pick('block_size', DEFAULT_BLOCK_SIZE)
        self.policy = pick('policy', nullable=True)
        # X-Delete-After takes whole seconds; 0 (like null) means off.
        self.delete_after = pick('delete_after', nullable=True) or None

        # Validate both file values even if one loses, so typos surface.
        file_ops = pick('operation_count', sources=(data,))
        file_secs = pick('run_seconds', sources=(data,))
        # run_seconds beats operation_count at each level, and any
        # command-line value beats both file values.
        if 'run_seconds' in overrides:
            ops, secs = None, pick('run_seconds')
        elif 'operation_count' in overrides:
            ops, secs = pick('operation_count'), None
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
    def used_sizes(self):
        """Size classes benchmark operations pick (initial count > 0)."""
        return [size for size in self.sizes if size.initial_count > 0]

    @property
    def segmented(self):
        """True when any size class makes large objects."""
        return any(size.segment_size for size in self.sizes)

    @property
    def max_initial_count(self):
        """Largest initial count; benchmark jobs are numbered above it."""
        return max(size.initial_count for size in self.sizes)

    # -- containers --

    @property
    def policy_label(self):
        """The policy part of container names."""
        return self.policy if self.policy is not None else \
            DEFAULT_POLICY_LABEL

    # Another protocol's names of the containers: naming(container_base,
    # index, policy_label), set by name_containers(); None: Swift's.
    naming = None

    def name_containers(self, naming):
        """Name the containers `naming(container_base, index,
        policy_label)` (S3's buckets, see ssbench.s3.buckets) from now on."""
        self.naming = naming

    def container_name(self, index):
        """`<container_base>_<6-digit index>_<policy or default_policy>`,
        or the name name_containers() gives."""
        if self.naming is not None:
            return self.naming(self.container_base, index, self.policy_label)
        return '%s_%06d_%s' % (self.container_base, index, self.policy_label)

    @property
    def containers(self):
        """All container names, index 0 .. container_count - 1, as a
        sequence that makes each name when asked for it."""
        return ContainerNames(self.container_name, self.container_count)

    # -- stats file --

    def stats_header(self, version=None):
        """The first object of a stats file (docs/internals.rst, "The
        header")."""
        return {
            HEADER_KEY: self.data,
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

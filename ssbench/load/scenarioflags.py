"""A scenario from run-scenario's flags instead of a file
(docs/scenarios.rst, "A run from flags"): the parsers of --size, --crud
and --container-base, and build(), which makes the dict that a scenario
file of the same content gives once read.  ssbench.load.scenario then
checks it as it checks a file.  Each parser raises ValueError with the
reason in one line."""
from __future__ import absolute_import, division, print_function

import re
import unicodedata

from ssbench.compat import PY2

# --objects when not given: initial objects of each size class.
DEFAULT_OBJECTS = 100
# K, M, G and T are powers of 1024, as dd and fio read them; KB and the
# like are refused rather than guessed at.
UNITS = dict([('', 1), ('b', 1)] + [
    (name, 1024 ** power)
    for power, letter in enumerate('kmgt', 1)
    for name in (letter, letter + 'ib')])
_LABELS = (('TiB', 1024 ** 4), ('GiB', 1024 ** 3), ('MiB', 1024 ** 2),
           ('KiB', 1024))
_SIZE = re.compile(r'([0-9]+)(?:\.([0-9]+))?([a-z]*)\Z', re.IGNORECASE)
# Longest --container-base in UTF-8 bytes: Swift's default
# max_container_name_length is 256, and a name adds _<index>_<policy>
# and, for segments, _segments.
MAX_CONTAINER_BASE = 128
# Top-level keys of the scenario that flags set as they are.
SETTING_KEYS = ('user_count', 'operation_count', 'run_seconds', 'rate',
                'container_base', 'container_count', 'policy',
                'delete_after')


def parse_bytes(text):
    """The bytes of '512', '4KiB', '4K' or '1.5MiB'."""
    match = _SIZE.match(text.strip())
    if not match:
        raise ValueError('%r is not a size such as 4096, 4KiB or 1.5MiB'
                         % (text,))
    whole, fraction, unit = match.groups()
    factor = UNITS.get(unit.lower())
    if factor is None:
        raise ValueError('%r: unknown unit %r (B, K or KiB, M or MiB, G or '
                         'GiB, T or TiB)' % (text, unit))
    fraction = fraction or ''
    scaled = int(whole + fraction) * factor
    if scaled % 10 ** len(fraction):
        raise ValueError('%r is not a whole number of bytes' % (text,))
    return scaled // 10 ** len(fraction)


def parse_sizes(text):
    """[(size_min, size_max)] of --size: comma-separated classes, each a
    SIZE or a range LOW-HIGH."""
    sizes = []
    for part in text.split(','):
        low, dash, high = part.partition('-')
        size_min = parse_bytes(low)
        size_max = parse_bytes(high) if dash else size_min
        if size_min > size_max:
            raise ValueError('%r: the range runs from low to high' % (part,))
        sizes.append((size_min, size_max))
    return sizes


def parse_names(text):
    """The size class names of --size-name: comma-separated."""
    names = [name.strip() for name in text.split(',')]
    if not all(names):
        raise ValueError('%r: a size name is empty' % (text,))
    return names


def parse_counts(text):
    """--objects: one count for every size class, or one each."""
    try:
        counts = [int(part) for part in text.split(',')]
    except ValueError:
        raise ValueError('%r is not a count (or counts: 100,10)' % (text,))
    if min(counts) < 0:
        raise ValueError('%r: a count is negative' % (text,))
    return counts


def parse_number(text):
    """The number of `text`: an int when whole (inf and nan stay
    floats)."""
    value = float(text)
    return int(value) if value.is_integer() else value


def parse_crud(text):
    """[C, R, U, D] of --crud: percentages of CREATE, READ, UPDATE and
    DELETE that add up to 100."""
    try:
        crud = [parse_number(part) for part in text.split(',')]
    except ValueError:
        crud = []
    if len(crud) != 4 or not all(0 <= value <= 100 for value in crud):
        raise ValueError('%r is not four percentages C,R,U,D such as '
                         '10,80,5,5' % (text,))
    if abs(sum(crud) - 100) > 1e-9:
        raise ValueError('%r adds up to %g, not 100' % (text, sum(crud)))
    return crud


def parse_container_base(text):
    """A --container-base: printable text of at most MAX_CONTAINER_BASE
    UTF-8 bytes without '/' (Swift's container name rules)."""
    given = text
    if PY2 and isinstance(text, bytes):
        try:
            text = text.decode('utf-8')
        except UnicodeDecodeError:
            raise ValueError('%r is not UTF-8 text' % (given,))
    if not text:
        raise ValueError('the base is empty')
    if '/' in text:
        raise ValueError('%r has a "/", which no container name may have'
                         % (text,))
    if any(unicodedata.category(char)[0] == 'C' or
           unicodedata.category(char) in ('Zl', 'Zp') for char in text):
        raise ValueError('%r has a character that is not printable'
                         % (text,))
    if len(text.encode('utf-8')) > MAX_CONTAINER_BASE:
        raise ValueError('%r... is longer than %d bytes' % (
            text[:40], MAX_CONTAINER_BASE))
    return given


def size_label(size_min, size_max):
    """A size class's name from its bounds: 1MiB, 4KiB-64KiB, 0."""
    def one(count):
        for unit, factor in _LABELS:
            if count and not count % factor:
                return '%d%s' % (count // factor, unit)
        return '%d' % count
    if size_min == size_max:
        return one(size_min)
    return '%s-%s' % (one(size_min), one(size_max))


def _each(values, count, what, one_for_all=True):
    """`values` for `count` size classes: one each, or one for all."""
    if len(values) == 1 and one_for_all:
        return values * count
    if len(values) != count:
        raise ValueError('%s gives %d values for %d sizes: give %sone per '
                         'size' % (what, len(values), count,
                                   'one, or ' if one_for_all else ''))
    return values


def build(sizes, crud, objects=None, names=None, segment_size=None,
          **settings):
    """The scenario of the flags: `sizes` [(size_min, size_max)] (from
    parse_sizes), `crud` [C, R, U, D], `objects` initial objects (one
    count, or one per size; default DEFAULT_OBJECTS), `names` of the size
    classes (default: size_label()), `segment_size` (each class above it
    then has it, as --segment-size gives it), and the SETTING_KEYS given
    (None: not given), as a file would hold them."""
    unknown = set(settings) - set(SETTING_KEYS)
    if unknown:
        raise TypeError('build() got unknown settings %s'
                        % ', '.join(sorted(unknown)))
    names = _each(names or [size_label(*size) for size in sizes],
                  len(sizes), '--size-name', one_for_all=False)
    counts = _each(objects or [DEFAULT_OBJECTS], len(sizes), '--objects')
    classes = []
    for name, (size_min, size_max) in zip(names, sizes):
        entry = {'name': name, 'size_min': size_min, 'size_max': size_max}
        if segment_size is not None and size_max > segment_size:
            entry['segment_size'] = segment_size
        classes.append(entry)
    data = {
        'name': '%s CRUD %s' % (' '.join(names),
                                ','.join('%g' % value for value in crud)),
        'sizes': classes,
        'initial_files': dict(zip(names, counts)),
        'crud_profile': list(crud),
    }
    # -r 60 is 60.0 to argparse; a file would say 60.
    data.update((key, parse_number(value) if isinstance(value, float)
                 else value)
                for key, value in settings.items() if value is not None)
    return data

"""Result messages checked on their bytes, without decoding them.

Decoding a result into a dict and checking it key by key costs the master
about 3 microseconds per request, a quarter of all it spends; yet a run's
results come in a handful of shapes (the same keys in the same order, the
same kinds of value).  ResultShapes learns those shapes from records that
passed the full check (ssbench.wire.messagecheck), and scan() then checks a
whole message against them with one regular expression, taking out only
what the master needs: the job ids and the worker id.  The stats file gets
the bytes as they came.

A sink that counts results (the live view) names the keys it reads
(capture()): the pattern then also takes each record's values of those
keys, as bytes, and scan() hands them out as a tuple per record, which
such a sink may count as they are (equal tuples, equal figures) and
decode once per distinct tuple (Captured.record()) rather than unpack
every record.

A shape's pattern, made from the record spec (ssbench.measure.record
SCHEMA), accepts a subset of what check_from_worker() accepts: text of
printable ASCII (always valid UTF-8), numbers within the spec's limits
(exact at each: floats where it allows floats, integers of at least 0),
a job type by name, and no key of a failure or map.  So a message scan()
takes is one the full check would take whole, and anything else (an
error, a heartbeat, an odd value) goes the full way.  Our workers put
`job_id` and `worker_id` first in every result (protocol.result_head),
which is where the pattern looks for them.
"""
from __future__ import absolute_import, division, print_function

import re
import struct
import sys
import threading
from itertools import islice
from operator import itemgetter

from ssbench import OPERATION_TYPES
from ssbench.compat import PY_VERSION, text_type
from ssbench.measure import record as spec
from ssbench.wire import protocol

# Shapes learned at most: each one adds to the pattern, which is compiled
# again (4 to 35 ms on the project's VM, the more shapes the longer), and
# a peer sending odd records must not grow it.  A run's results come in a
# handful of shapes.
MAX_SHAPES = 8
# While a pattern compiles on its own thread (Python 3), how soon the
# master's loop gets the GIL back, in seconds.
COMPILE_SWITCH_INTERVAL = 0.0005
# Key orders looked at and not learned (too many shapes, or keys the
# pattern has no rule for): remembered so that they cost a set lookup.
MAX_REFUSED = 256

# Decoded maps keep the order of the wire from Python 3.7 on; before, a
# record's keys say nothing of it, and a master learns no shape (it then
# decodes every message, as it would without this module).
KEYS_IN_WIRE_ORDER = PY_VERSION >= (3, 7)

_K_JOB_ID, _K_WORKER_ID = spec.keys('job_id', 'worker_id')[0]


def _packed(value):
    return re.escape(protocol.pack(value))


def _byte(value):
    return re.escape(struct.pack('B', value))


# One msgpack value each; every pattern matches exactly one whole element
# (its length follows from its first bytes), so a match cannot run into
# the next key.  A string: up to 63 printable ASCII characters, as fixstr
# or as str 16, the forms our packer writes (use_bin_type being off);
# longer text, or str 8 from another packer, goes the full way.
_ASCII = b'[\\x20-\\x7e]'
_LONGER = b'(?:' + b'|'.join(_byte(n) + _ASCII + b'{%d}' % n
                             for n in range(32, 64)) + b')'
_TEXT = b'(?:' + b'|'.join(
    [_byte(0xa0)] +
    [_byte(0xa0 + n) + _ASCII + b'{%d}' % n for n in range(1, 32)] +
    [b'\\xda\\x00' + _LONGER]) + b')'
_NIL = b'\\xc0'


def _any(count):
    return b'.' * count if count < 3 else b'.{%d}' % count


def _below(limit, width):
    """A pattern of `width` bytes that are a big-endian unsigned integer
    below `limit` (None if none is), exact at the limit."""
    if limit >= 256 ** width:
        return _any(width)
    if limit <= 0:
        return None
    top, rest = divmod(limit, 256 ** (width - 1))
    forms = []
    if top:
        forms.append(b'[\\x00-' + _byte(top - 1) + b']' + _any(width - 1))
    tail = _below(rest, width - 1)
    if tail is not None:
        forms.append(_byte(top) + tail)
    return b'(?:' + b'|'.join(forms) + b')'


def _uint(bound=None):
    """Integers of at least 0 and below `bound` (None: 2**64), in each
    form msgpack has: fixint, uint8, 16, 32 and 64."""
    bound = int(bound or 1 << 64)
    forms = [b'[\\x00-' + _byte(min(bound, 0x80) - 1) + b']']
    for head, width in ((b'\\xcc', 1), (b'\\xcd', 2), (b'\\xce', 4),
                        (b'\\xcf', 8)):
        pattern = _below(bound, width)
        if pattern is not None:
            forms.append(head + pattern)
    return b'(?:' + b'|'.join(forms) + b')'


def _float(bound):
    """float64 of at least 0 (sign bit clear) and below `bound`: the
    bits of such floats order as the numbers do, and those of NaN and
    infinity lie above any finite bound."""
    return b'\\xcb' + _below(
        struct.unpack('>Q', struct.pack('>d', bound))[0], 8)


_UINT = _uint()
_OPERATION = b'(?:' + b'|'.join(_packed(text_type(kind))
                                for kind in OPERATION_TYPES) + b')'
_WORKER_ID = b'(?:' + _UINT + b'|' + _TEXT + b')'
# The pattern of each kind of the record spec that is not a number.
_KIND_RULES = {spec.OPERATION: _OPERATION, spec.WORKER: _WORKER_ID,
               spec.WORDS: _TEXT, spec.ECHOED_FLAG: b'[\\xc2\\xc3]'}


def _rule(field):
    """The values a fast shape accepts for a field of the record spec:
    None for a map or a failure's key (such records go the full way)."""
    kind = field.kind
    if kind.types is None or field.presence == spec.FAILURE:
        return None
    # A number, exact at its limits: floats only where the spec allows
    # floats (an integer there goes the full way).
    rule = _KIND_RULES.get(kind) or (
        _float(kind.bound) if float in kind.types else _uint(kind.bound))
    # A fast shape is a success's: its last_byte_latency is no nil.
    if field.nullable and field.presence != spec.SUCCESS:
        return b'(?:' + _NIL + b'|' + rule + b')'
    return rule


# Each key a fast shape may have, and the values it accepts there.
_RULES = dict((field.name, _rule(field)) for field in spec.SCHEMA
              if _rule(field) is not None)
# What the full check requires of a success.
_REQUIRED = frozenset(spec.REQUIRED + (spec.LAST_BYTE_LATENCY,))
# The start of a record of ours: a map, its job id and worker id first;
# a lookahead, so that these two are taken once whatever shape follows.
_HEAD = (b'(?=(?:[\\x80-\\x8f]|\\xde.{2})' + _packed(_K_JOB_ID) + b'(' +
         _UINT + b')' + _packed(_K_WORKER_ID) + b'(' + _WORKER_ID + b'))')


def eligible(keys):
    """True for a key order a shape can be made of: our head first, a
    rule for every key, and the keys the full check requires."""
    return (len(keys) >= 2 and keys[0] == _K_JOB_ID and
            keys[1] == _K_WORKER_ID and
            all(key in _RULES for key in keys) and
            _REQUIRED.issubset(keys) and len(set(keys)) == len(keys))


# A shape's own ids: the bytes the lookahead took (groups 1 and 2).
_IDS_AGAIN = (_packed(_K_JOB_ID) + b'(?:\\1)' + _packed(_K_WORKER_ID) +
              b'(?:\\2)')


def _shape_pattern(keys, captured=()):
    """A shape's pattern; the value of each key in `captured` a group."""
    count = len(keys)
    header = _byte(0x80 + count) if count < 16 else \
        b'\\xde' + re.escape(struct.pack('>H', count))
    return header + _IDS_AGAIN + b''.join(
        _packed(key) + (b'(' + _RULES[key] + b')' if key in captured
                        else _RULES[key]) for key in keys[2:])


def _array_count(data):
    """(items, offset of the first) of a msgpack array's header, or
    None if `data` does not start with one."""
    if not data:
        return None
    first = struct.unpack_from('B', data)[0]
    if 0x90 <= first <= 0x9f:
        return first - 0x90, 1
    if first == 0xdc and len(data) >= 3:
        return struct.unpack_from('>H', data, 1)[0], 3
    if first == 0xdd and len(data) >= 5:
        return struct.unpack_from('>I', data, 1)[0], 5
    return None


def _array_header(count):
    if count < 16:
        return struct.pack('B', 0x90 + count)
    if count < 0x10000:
        return struct.pack('>BH', 0xdc, count)
    return struct.pack('>BI', 0xdd, count)


# Of a match's groups, those after the job id, the worker id and the
# record's bytes: the captured values.
_CAPTURED = itemgetter(slice(3, None))


def _captured_names(keys, fields):
    """The keys of a shape whose values are captured: those named in
    `fields`, and those of a (key, other) pair when the shape has
    `other` too."""
    wanted = set()
    for field in fields:
        if not isinstance(field, tuple):
            wanted.add(field)
        elif field[1] in keys:
            wanted.add(field[0])
    return tuple(key for key in keys[2:] if key in wanted)


class Captured(object):
    """Where a pattern of `shapes` captures the values of `fields`: each
    shape's groups, in its own key order, one block after another (a
    record has values in its shape's block only)."""

    def __init__(self, shapes, fields):
        self.fields = fields
        self.blocks = []
        start = 0
        for keys in shapes:
            names = _captured_names(keys, fields)
            self.blocks.append((start, names))
            start += len(names)

    def record(self, values):
        """{key: value} of one record's captured `values` (a tuple scan()
        gave), decoded; a key its shape lacks is left out."""
        for start, names in self.blocks:
            if names and values[start]:
                packed = values[start:start + len(names)]
                return dict(zip(names, protocol.unpack(
                    _array_header(len(names)) + b''.join(packed))))
        return {}


def _compile(shapes, fields=()):
    """(pattern, Captured or None) of `shapes`, capturing `fields`."""
    return (re.compile(_HEAD + b'((?:' + b'|'.join(
        _shape_pattern(shape, _captured_names(shape, fields))
        for shape in shapes) + b'))', re.DOTALL),
        Captured(shapes, tuple(fields)) if fields else None)


class ResultShapes(object):
    """The result shapes of one master, and the check made of them.

    With `background`, a new shape's pattern is compiled on a thread of
    its own: compiled in the master's loop it stopped the loop for up to
    35 ms, which a --rate run records as send lag of its first jobs.  The
    GIL is handed back every few milliseconds meanwhile, and until the
    pattern is ready, messages go the full way.
    """

    def __init__(self, background=False):
        self.shapes = []
        self._known = set()
        self._refused = set()
        self._fields = ()
        self._pattern = None      # (compiled, Captured or None)
        self._background = background
        self._lock = threading.Lock()
        self._wanted = None       # shapes the compiler thread is to take
        self._compiler = None

    def learn(self, records):
        """Note the key order of each decoded record (all of them passed
        the full check); a new eligible one becomes a shape."""
        if KEYS_IN_WIRE_ORDER:
            for record in records:
                self.add(tuple(record))

    def add(self, keys):
        """Make `keys` (in wire order) a shape if it is eligible, new, and
        there is room; True if it is one now."""
        if keys in self._known:
            return True
        if keys in self._refused:
            return False
        if len(self.shapes) < MAX_SHAPES and eligible(keys):
            self._known.add(keys)
            self.shapes.append(keys)
            self._recompile()
            return True
        if len(self._refused) < MAX_REFUSED:
            self._refused.add(keys)
        return False

    def capture(self, fields):
        """From now on capture the values of `fields` too, keeping those
        captured so far (a pipeline's sinks ask for the same ones phase
        after phase): keys of the record spec, or (key, other) pairs for
        a key wanted only of records that have `other`."""
        new = tuple(key for key in fields if key not in self._fields)
        if new:
            self._fields += new
            if self.shapes:
                self._recompile()

    def _recompile(self):
        if self._background:
            self._compile_later((tuple(self.shapes), self._fields))
        else:
            self._pattern = _compile(self.shapes, self._fields)

    def _compile_later(self, wanted):
        with self._lock:
            self._wanted = wanted
            if self._compiler is not None:
                return          # it takes the newest set when it is done
            compiler = self._compiler = threading.Thread(
                target=self._compile_wanted, name='ssbench-result-shapes')
        compiler.daemon = True
        compiler.start()

    def _compile_wanted(self):
        # The loop gets the GIL back within COMPILE_SWITCH_INTERVAL, not
        # the default 5 ms (the compiler is the only other Python thread).
        interval = getattr(sys, 'getswitchinterval', lambda: None)()
        if interval is not None:
            sys.setswitchinterval(min(interval, COMPILE_SWITCH_INTERVAL))
        try:
            while True:
                with self._lock:
                    wanted, self._wanted = self._wanted, None
                    if wanted is None:
                        self._compiler = None
                        return
                # Shapes only grow: a newer set never loses a match.
                self._pattern = _compile(*wanted)
        finally:
            if interval is not None:
                sys.setswitchinterval(interval)

    def settle(self, timeout=None):
        """Wait for the patterns asked for so far (tests, benches); True
        once there is nothing left to compile."""
        with self._lock:
            compiler = self._compiler
        if compiler is not None:
            compiler.join(timeout)
            return not compiler.is_alive()
        return True

    def scan(self, data):
        """(job ids, worker id, captured) of a message of results that
        all have a learned shape and one worker id, else None (decode
        it).  `captured`: with fields to capture, (Captured, an iterator
        of each record's values as bytes); else, or until the pattern
        that captures them all is compiled, None."""
        pattern = self._pattern
        if pattern is None:
            return None
        pattern, captured = pattern
        counted = _array_count(data)
        if counted is None:
            return None
        count, start = counted
        found = pattern.findall(data, start)
        if len(found) != count or not count:
            return None
        # zip() makes only the columns taken, not those of the values.
        job_ids, worker_ids, records = islice(zip(*found), 3)
        # The records found must be the whole message, back to back.
        if sum(map(len, records)) != len(data) - start or \
                len(set(worker_ids)) != 1:
            return None
        if captured is not None:
            captured = None if captured.fields != self._fields else \
                (captured, map(_CAPTURED, found))
        return (protocol.unpack(_array_header(count) + b''.join(job_ids)),
                protocol.unpack(worker_ids[0]), captured)

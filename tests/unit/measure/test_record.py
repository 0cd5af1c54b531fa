"""ssbench.measure.record: the one definition of a result record, its
keys, types and limits, and what it says of a record."""
from __future__ import absolute_import, division, print_function

import io
import os
import struct

import pytest

from ssbench.compat import text_type
from ssbench.measure import record
from ssbench.wire import protocol
from tests import paths

NAN, INF = float('nan'), float('inf')


def just_below(value):
    """The largest number of value's type below it."""
    if isinstance(value, float):
        bits = struct.unpack('>Q', struct.pack('>d', value))[0]
        return struct.unpack('>d', struct.pack('>Q', bits - 1))[0]
    return value - 1


def success(**changes):
    fields = dict((text_type(k), v) for k, v in (
        ('job_id', 7), ('worker_id', 2), ('type', u'get_object'),
        ('size_str', u'tiny'), ('container', u'c'), ('name', u'n'),
        ('trans_id', u'tx'), ('retries', 1), ('completed_at', 1.7e9),
        ('first_byte_latency', 0.01), ('last_byte_latency', 0.02),
        ('size', 5), ('status', 200), ('reconnects', 0)))
    fields.update((text_type(k), v) for k, v in changes.items())
    return fields


def failure(**changes):
    fields = success(**dict(dict(exception=u'boom', status=503,
                                 error_class=None, time_to_failure=2.5),
                            **changes))
    del fields['first_byte_latency'], fields['last_byte_latency']
    return fields


def test_good_records_have_no_problem():
    assert record.problem(success()) is None
    assert record.problem(failure()) is None
    # Optional keys may be None or absent.
    assert record.problem(success(size=None, status=None,
                                  first_byte_latency=None)) is None


@pytest.mark.parametrize('key', record.REQUIRED)
def test_a_required_key_missing_is_named(key):
    fields = success()
    del fields[key]
    assert record.problem(fields) == (key, None)


def bounded():
    """(key, kind) of every key with a numeric limit."""
    return [(key, kind) for key, kind, _, _ in record.FIELDS
            if kind.bound is not None]


@pytest.mark.parametrize('key, kind', bounded())
def test_every_limit_is_half_open_from_0(key, kind):
    top = float(kind.bound) if float in kind.types else int(kind.bound)
    make = failure if key == 'time_to_failure' else success
    extra = {}
    if key == 'first_byte_latency':
        extra['last_byte_latency'] = just_below(top)
    for value in (0, just_below(top)):
        value = type(top)(value)
        assert record.within(kind, value)
        assert record.problem(make(**dict(extra, **{key: value}))) is None
    for value in (top, -1, True, u'1', [1], INF, NAN, 1e308, 2 ** 64):
        assert not record.within(kind, value), value
        assert record.problem(make(**{key: value})) == (key, value)
    if float not in kind.types:
        assert record.problem(make(**{key: 1.0})) == (key, 1.0)


def test_the_limits_are_the_sane_ones():
    assert record.MAX_EPOCH == 1e10        # the year 2286
    assert record.MAX_SIZE <= 2 ** 53
    # Float sums of sizes stay exact below the bound.
    assert float(record.MAX_SIZE - 1) == record.MAX_SIZE - 1
    assert record.TYPES['size'] == record.INTEGERS | record.NONE
    assert bool not in record.NUMBERS


@pytest.mark.parametrize('key, value', [
    ('worker_id', [1]), ('worker_id', 1.5), ('type', 5), ('name', None),
    ('trans_id', 5), ('exception', None), ('job_id', u'7'),
    ('job_id', True)])
def test_wrong_types_are_named(key, value):
    assert record.problem(success(**{key: value})) == (key, value)


def test_a_success_needs_its_last_byte_and_no_time_to_failure():
    assert record.problem(success(last_byte_latency=None)) == (
        'last_byte_latency', None)
    assert record.problem(success(time_to_failure=1.0)) == (
        'time_to_failure', 1.0)


GOOD_SEGMENTS = {u'count': 3, u'retries': 0, u'seconds': 0.5,
                 u'slowest': 0.25}


@pytest.mark.parametrize('value, good', [
    (GOOD_SEGMENTS, True),
    (dict(GOOD_SEGMENTS, count=-1), False),
    (dict(GOOD_SEGMENTS, seconds=record.MAX_SECONDS), False),
    (dict(GOOD_SEGMENTS, extra=1), False),
    ([1], False)])
def test_segments(value, good):
    assert record.is_segments(value) is good
    assert (record.problem(success(segments=value)) is None) is good


@pytest.mark.parametrize('causes, retries, good', [
    ({u'503': 2}, 2, True),
    ({u'503': 1, u'Timeout': 1}, 2, True),
    ({u'503': 1}, 2, False),
    ({u'': 1}, 1, False),
    ({u'x' * record.MAX_CAUSE: 1}, 1, True),
    ({u'x' * (record.MAX_CAUSE + 1): 1}, 1, False),
    ({u'503': True}, 1, False),
    ([1], 1, False)])
def test_retry_causes(causes, retries, good):
    assert record.is_retry_causes(causes, retries) is good
    fields = success(retries=retries, retry_causes=causes)
    assert (record.problem(fields) is None) is good


@pytest.mark.parametrize('key, value, bad', [
    ('size', None, False), ('size', -5, True), ('size', 1e308, True),
    ('size', 2 ** 63, True), ('completed_at', None, True),
    ('trans_id', None, False), ('last_byte_latency', 1e308, True)])
def test_value_problem(key, value, bad):
    assert record.value_problem(key, value) is bad


def test_the_response_wait_takes_one_clock_per_part_when_it_can():
    # send lag 0.5 s on the master, 0.3 s on the worker, 0.1 s spent.
    assert record.response_wait(0.1, 1000.0, 998.0, 0.5, 0.3) == \
        pytest.approx(0.7)
    # Without them: completion less spent less intended start.
    assert record.response_wait(0.1, 1000.0, 998.0, None, 0.3) == \
        pytest.approx(1.9)
    assert record.response_wait(0.1, 1000.0, 998.0, -1.0, 0.3) == \
        pytest.approx(1.9)


# -- the schema, the job keys and docs/internals.rst ------------------------

def test_the_keys_a_job_carries_are_the_schemas_echoed_fields():
    echoed = set(f.name for f in record.SCHEMA if f.source == record.JOB)
    assert echoed == set(protocol.JOB_KEYS)


def test_keys_are_text_and_raw_and_only_fields_of_the_schema():
    assert record.keys('size', 'noop') == ((u'size', u'noop'),
                                           (b'size', b'noop'))
    assert all(type(key) is text_type for key in record.keys('size')[0])
    with pytest.raises(ValueError) as raised:
        record.keys('size', 'sise')
    assert 'sise' in str(raised.value)


def schema_table(schema):
    """The table of docs/internals.rst that `schema` makes."""
    rows = [('key', 'kind', 'in', 'nil', 'set by', '0.3.x')] + [
        (f.name, f.kind.words, f.presence, 'yes' if f.nullable else 'no',
         f.source, 'yes' if f.legacy else 'no') for f in schema]
    widths = [max(len(row[i]) for row in rows) for i in range(6)]
    rule = '  '.join('=' * width for width in widths)
    lines = ['  '.join(cell.ljust(width) for cell, width in
                       zip(row, widths)).rstrip() for row in rows]
    return [rule, lines[0], rule] + lines[1:] + [rule]


def page_table(text):
    """The lines of the first simple table of `text` after the heading
    "The keys"."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines)
                 if line.startswith('====') and ' ' in line and
                 i > lines.index('The keys'))
    end = lines.index(lines[start], start + 3)
    return lines[start:end + 1]


def test_the_record_page_shows_the_schema():
    with io.open(os.path.join(paths.ROOT, 'docs', 'internals.rst'),
                 encoding='utf-8') as page:
        shown = page_table(page.read())
    assert shown == schema_table(record.SCHEMA), '\n'.join(
        ['docs/internals.rst should show:'] + schema_table(record.SCHEMA))


def test_a_row_missing_from_the_page_is_found():
    shown = schema_table(record.SCHEMA)
    assert schema_table(record.SCHEMA[:-1]) != shown
    assert page_table('\n'.join(['The keys', ''] + shown)) == shown

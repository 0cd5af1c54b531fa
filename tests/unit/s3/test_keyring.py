"""keyring: the master hands out the keys of every date a request may
carry, renews them 15 minutes before the UTC date changes, and never
hands out the secret."""
from __future__ import absolute_import, division, print_function

import calendar

import pytest

from ssbench.s3 import keyring, sigv4
from ssbench.wire import protocol
from tests.clocks import FakeClock

SECRET = 'very-secret-key'
HOST = '127.0.0.1:8080'


def epoch(text):
    """Epoch seconds of 'YYYYMMDDTHHMMSSZ'."""
    return calendar.timegm((int(text[:4]), int(text[4:6]), int(text[6:8]),
                            int(text[9:11]), int(text[11:13]),
                            int(text[13:15]), 0, 0, 0))


def test_one_date_most_of_the_day_two_around_midnight():
    assert keyring.key_dates(epoch('20240229T120000Z')) == ['20240229']
    assert keyring.key_dates(epoch('20240229T234459Z')) == ['20240229']
    assert keyring.key_dates(epoch('20240229T234500Z')) == \
        ['20240229', '20240301']
    assert keyring.key_dates(epoch('20240301T001459Z')) == \
        ['20240229', '20240301']
    assert keyring.key_dates(epoch('20240301T001500Z')) == ['20240301']


def maker(now):
    clock = FakeClock(now)
    return keyring.KeyMaker('test:tester', SECRET, 'us-east-1',
                            clock=clock), clock


def test_renewal_is_due_when_the_dates_needed_change():
    keys, clock = maker(epoch('20240229T120000Z'))
    assert keys.renew_due()             # nothing handed out yet
    keys.wire_form()
    assert not keys.renew_due()
    clock.now = epoch('20240229T234459Z')
    assert not keys.renew_due()
    clock.now = epoch('20240229T234500Z')
    assert keys.renew_due()
    assert sorted(keys.wire_form()['keys']) == ['20240229', '20240301']
    clock.now = epoch('20240301T001500Z')
    assert keys.renew_due()
    assert sorted(keys.wire_form()['keys']) == ['20240301']


def test_the_wire_form_holds_derived_keys_and_never_the_secret():
    keys, _ = maker(epoch('20240229T234600Z'))
    packed = protocol.pack(keys.wire_form())
    assert SECRET.encode('ascii') not in packed
    assert 'very-secret' not in repr(keys)
    ring = keyring.Keyring.from_wire(protocol.unpack(packed))
    assert ring.dates == ['20240229', '20240301']
    for date in ring.dates:
        amz = date + 'T000001Z'
        want = sigv4.SigningKey('test:tester', date, 'us-east-1',
                                sigv4.derive_key(SECRET, date, 'us-east-1'))
        assert ring.sign('GET', '/b/o', (), HOST, [], amz) == \
            want.sign('GET', '/b/o', (), HOST, [], amz)


def test_signed_headers_are_native_strings_after_the_wire():
    keys, _ = maker(epoch('20240229T120000Z'))
    ring = keyring.Keyring.from_wire(protocol.unpack(protocol.pack(
        keys.wire_form())))
    extra = ring.sign('GET', '/b/o', (), HOST, [], '20240229T120000Z')
    assert all(type(value) is str for _, value in extra)


def test_a_request_of_a_date_without_a_key_is_wrong_date():
    keys, _ = maker(epoch('20240229T120000Z'))
    ring = keyring.Keyring.from_wire(keys.wire_form())
    with pytest.raises(sigv4.WrongDate) as caught:
        ring.sign('GET', '/b/o', (), HOST, [], '20240301T000000Z')
    assert str(caught.value) == ('no signing key for 20240301 (the keys '
                                 'held are of 20240229)')


@pytest.mark.parametrize('form', [
    {}, {'keys': {}}, [],
    {'access_key': 'a', 'region': 'r', 'service': 's3', 'keys': {}},
    {'access_key': 'a', 'region': 'r', 'service': 's3',
     'keys': {'20240229': 'not hex'}},
    {'access_key': 'a', 'region': 'r', 'service': 's3',
     'keys': {'20240229': 'abcd'}},
    {'access_key': 'a', 'region': 'r', 'service': 's3',
     'keys': {'2024-2-29': '00' * 32}},
])
def test_what_is_not_a_key_set_is_a_value_error(form):
    with pytest.raises(ValueError) as caught:
        keyring.Keyring.from_wire(form)
    assert str(caught.value).startswith(('not a set of signing keys',
                                         'a signing'))

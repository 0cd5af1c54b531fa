"""swifthints.explain: a failed container request says what to fix."""
from __future__ import absolute_import, division, print_function

from ssbench.errors import StatsFileError, SwiftError
from ssbench.swift.client import SwiftRequestError
from ssbench.swift.hints import explain

URL = 'http://s/v1/AUTH_a/ssbench_000001_gold'


def test_a_rejected_token_asks_for_a_valid_one():
    exc = SwiftRequestError('HEAD', URL, 401, 'Unauthorized', 'tx1')
    assert str(explain(exc, 'cannot create containers')) == (
        'cannot create containers: HEAD %s: 401 Unauthorized (tx1); Swift '
        'refused the token: give a valid one (-T) or credentials to '
        'authenticate with' % URL)


def test_an_unreachable_url_points_at_the_storage_url():
    exc = SwiftRequestError('GET', URL, None, 'ConnectionRefusedError: no',
                            retries=3)
    text = str(explain(exc, 'cannot list containers'))
    assert text.startswith('cannot list containers: GET %s failed: '
                           'ConnectionRefusedError: no after 3 retries; '
                           % URL)
    assert text.endswith('check the storage URL (-S, or the one the auth '
                         'server returns)')


def test_a_refused_put_with_a_policy_names_the_policy():
    exc = SwiftRequestError('PUT', URL, 400, 'Bad Request', 'tx2')
    text = str(explain(exc, 'cannot create containers', 'gold'))
    assert text.startswith("cannot create containers: unknown storage "
                           "policy 'gold' (PUT %s: 400" % URL)
    assert '--policy' in text
    # Without a policy, or on a HEAD, a 400 is only reported.
    for error, policy in ((exc, None),
                          (SwiftRequestError('HEAD', URL, 400, 'Bad'),
                           'gold')):
        assert 'policy' not in str(explain(error, 'x', policy))


def test_forbidden_and_other_statuses():
    exc = SwiftRequestError('PUT', URL, 403, 'Forbidden')
    assert 'use a user that may create' in str(explain(exc, 'x'))
    exc = SwiftRequestError('PUT', URL, 507, 'Insufficient Storage')
    assert str(explain(exc, 'x')) == 'x: PUT %s: 507 Insufficient ' \
        'Storage' % URL


def test_other_exceptions():
    already = StatsFileError('one line already')
    assert explain(already, 'x') is already
    error = explain(ValueError('no way'), 'cannot create containers')
    assert isinstance(error, SwiftError)
    assert str(error) == 'cannot create containers: ValueError: no way'

"""cleanup-containers --s3 (ssbench.s3.cleanup) against a fake S3 server
that pages its listings two entries at a time: which buckets go, uploads
aborted, objects deleted by DeleteObjects (and a DELETE for a key XML
cannot carry), and failures as one line."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.errors import ScenarioError
from ssbench.s3 import cleanup

pytestmark = pytest.mark.timeout(30)


def test_bucket_names_match_as_the_swift_path_matches_containers():
    pattern = cleanup.bucket_pattern('ssbench', 'default_policy')
    assert cleanup.bucket_parts('ssbench', 'default_policy') == \
        ('ssbench', '-default-policy')
    matched = [name for name in (
        'ssbench-000001-default-policy', 'ssbench-12-default-policy',
        'ssbench-x-default-policy', 'ssbench-000001-gold',
        'ssbench-other-000001-default-policy',
        'other-000001-default-policy') if pattern.match(name)]
    assert matched == ['ssbench-000001-default-policy',
                       'ssbench-12-default-policy']
    # The base is named as run-scenario --s3 names it, cut short too.
    base = 'My_Run.' + 'x' * 70
    head, tail = cleanup.bucket_parts(base, 'default_policy')
    assert head == 'my-run-' + 'x' * (63 - len('-000000-default-policy') -
                                      len('my-run-'))
    assert cleanup.bucket_pattern('SSBENCH-000000', 'gold').match(
        'ssbench-000000-000007-gold')
    with pytest.raises(ScenarioError):
        cleanup.bucket_parts('___', 'default_policy')


def test_carried():
    assert cleanup.carried(u'a&<b>\r') and not cleanup.carried(u'a\x01b')


# -- every loop over the store's answers ends (docs/reliability.rst) --------

"""ssbench.cli.openfiles: the soft open-file limit raised to the hard one
(through a stand-in for the resource module), and the one-line refusal of
a concurrency that cannot fit."""
from __future__ import absolute_import, division, print_function

import os
import tempfile

import pytest

from ssbench.cli import openfiles

INFINITY = -1


class Limits(object):
    """The resource module's RLIMIT_NOFILE calls, on given values;
    `ceiling` is the most setrlimit accepts (as Linux's nr_open)."""

    RLIMIT_NOFILE = 7
    RLIM_INFINITY = INFINITY

    def __init__(self, soft, hard, ceiling=1 << 20):
        self.limits = (soft, hard)
        self.ceiling = ceiling
        self.set_calls = []

    def getrlimit(self, which):
        assert which == self.RLIMIT_NOFILE
        return self.limits

    def setrlimit(self, which, limits):
        assert which == self.RLIMIT_NOFILE
        self.set_calls.append(limits)
        if INFINITY in limits or max(limits) > self.ceiling:
            raise ValueError('not allowed to raise maximum limit')
        self.limits = limits


def test_the_soft_limit_is_raised_to_the_hard_one():
    limits = Limits(1024, 4096)
    assert openfiles.raise_soft_limit(limits) == 4096
    assert limits.limits == (4096, 4096)


def test_a_soft_limit_at_the_hard_one_is_left_alone():
    limits = Limits(4096, 4096)
    assert openfiles.raise_soft_limit(limits) == 4096
    assert limits.set_calls == []


def test_a_hard_limit_the_system_refuses_keeps_the_soft_one():
    limits = Limits(256, INFINITY)
    assert openfiles.raise_soft_limit(limits) == 256
    assert limits.set_calls == [(INFINITY, INFINITY)]


def test_no_limit_at_all_is_none():
    assert openfiles.raise_soft_limit(Limits(INFINITY, INFINITY)) is None
    assert openfiles.raise_soft_limit(None) is None


def test_a_concurrency_that_fits_passes():
    need = openfiles.needed(1000, 10)
    assert need == 1000 + 10 + openfiles.RESERVE
    openfiles.check('worker 1 --concurrency 1000', 1000, need, 10)
    openfiles.check('worker 1 --concurrency 1000', 1000, None, 10)


def test_one_that_cannot_fit_is_one_line_naming_limit_and_fix():
    with pytest.raises(openfiles.FileLimitError) as caught:
        openfiles.check('worker 1 --concurrency 1000', 1000, 1024, 10)
    message = str(caught.value)
    need = 1000 + 10 + openfiles.RESERVE
    assert message == (
        'worker 1 --concurrency 1000 needs about %d open files (one socket '
        'per connection) but the open-file limit is 1024 and cannot be '
        'raised further here: raise it (ulimit -n %d; the hard limit needs '
        'root or /etc/security/limits.conf) or lower the concurrency' % (
            need, need))
    assert '\n' not in message and caught.value.exit_status == 1
    # One descriptor fewer than needed is already too few.
    with pytest.raises(openfiles.FileLimitError):
        openfiles.check('x', 1000, need - 1, 10)


@pytest.mark.skipif(not os.path.isdir('/proc/self/fd'),
                    reason='counts through /proc')
def test_open_now_counts_this_process_descriptors():
    before = openfiles.open_now()
    with tempfile.TemporaryFile(), tempfile.TemporaryFile():
        assert openfiles.open_now() == before + 2
    assert openfiles.open_now() == before

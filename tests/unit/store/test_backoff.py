"""The pause before a retry."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.store import backoff


def test_backoff_delay_doubles_with_jitter_up_to_the_cap():
    delay = backoff.backoff_delay
    assert [delay(n, 0.1, 1.0, 0.0) for n in (1, 2, 3, 4, 5, 6)] == [
        0.05, 0.1, 0.2, 0.4, 0.5, 0.5]
    assert [delay(n, 0.1, 1.0, 0.999999) for n in (1, 2, 5)] == \
        pytest.approx([0.1, 0.2, 1.0])
    assert delay(1000, 0.05, 2.0, 0.5) == 1.5      # no overflow
    assert delay(3, 0.1, 1.0, 0.5) == pytest.approx(0.3)

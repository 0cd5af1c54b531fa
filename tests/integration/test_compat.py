"""ssbench.compat: the one Python 2.7 / 3.x shim with logic of its own."""
from __future__ import absolute_import, division, print_function

import time


from ssbench import compat


def test_monotonic_is_a_clock_that_never_steps_back_on_every_python():
    # On 2.7 it is clock_gettime(CLOCK_MONOTONIC) through ctypes, not the
    # wall clock: it cannot go back, whatever the system time does.
    assert compat.monotonic is not time.time
    readings = [compat.monotonic() for _ in range(1000)]
    assert readings == sorted(readings)
    ctypes_clock = compat._clock_gettime_monotonic()
    assert ctypes_clock is not None
    # The same clock as Python 3's time.monotonic (Linux: both read
    # CLOCK_MONOTONIC).
    if hasattr(time, 'monotonic'):
        before = time.monotonic()
        reading = ctypes_clock()
        assert before <= reading <= time.monotonic()

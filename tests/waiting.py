"""The one polling wait of the tests: wait_for()."""
from __future__ import absolute_import, division, print_function

import time

from ssbench.compat import monotonic


def wait_for(condition, timeout, what, interval=0.01, sleep=None):
    """Poll condition() until it is true and return its value; raise
    AssertionError naming `what` once `timeout` seconds have gone by
    (`what` may be a function, called then: to show a log, say).

    `sleep` is time.sleep unless given: gevent.sleep lets greenlets of
    this process run between polls where time.sleep is not patched."""
    sleep = time.sleep if sleep is None else sleep
    deadline = monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if monotonic() >= deadline:
            raise AssertionError('within %g s, never happened: %s' % (
                timeout, what() if callable(what) else what))
        sleep(interval)

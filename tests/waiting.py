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


def _read_text(path):
    try:
        with open(path, 'rb') as fp:
            return fp.read().decode('utf-8', 'replace')
    except (IOError, OSError):
        return ''


def wait_for_text(path, text, timeout, proc=None):
    """Poll the file at `path` (a log, say) until it holds `text` and
    return all it holds; fail showing it once `timeout` seconds have gone
    by or, when `proc` is given, once that process has exited."""
    def written():
        content = _read_text(path)
        if text in content:
            return content
        if proc is not None and proc.poll() is not None:
            raise AssertionError('the process exited (status %s) before '
                                 '%r in %s:\n%s' % (proc.poll(), text, path,
                                                    content))
    return wait_for(written, timeout,
                    lambda: '%r in %s:\n%s' % (text, path, _read_text(path)),
                    interval=0.05)

"""gevent's monkey-patching, at a lower start-up cost.

gevent.monkey.patch_all() announces each module it patches to plugins
found through entry points: 25 lookups, and on Python 3.10+ every one
reads the metadata of every installed distribution again.  In a
virtualenv of some 60 packages that is about 85 ms of CPU, most of what
patching costs, in the master and in every worker at each start.  The
answers cannot change while patch_all() runs, so each is looked up once.
"""
from __future__ import absolute_import, division, print_function

from ssbench.compat import PY_VERSION


def patch_all():
    """gevent.monkey.patch_all(), unless this process is patched already
    (as in-process tests may be)."""
    import gevent.monkey
    if gevent.monkey.is_module_patched('socket'):
        return
    if PY_VERSION < (3, 10):
        # Older Pythons: gevent asks pkg_resources (2.7) or builds a
        # dict once per lookup; leave them as they are.
        gevent.monkey.patch_all()
        return
    from importlib import metadata
    lookup = metadata.entry_points
    answers = {}

    def entry_points(**params):
        key = tuple(sorted(params.items()))
        if key not in answers:
            answers[key] = lookup(**params)
        return answers[key]

    metadata.entry_points = entry_points
    try:
        gevent.monkey.patch_all()
    finally:
        metadata.entry_points = lookup

"""An operation profile (a scenario's `crud_profile`): the relative
weights of the job types a run mixes.

Two forms: 0.3.9's list of four weights [C, R, U, D], and an object
naming its weights, which may also weigh HEAD (a HEAD of an object) and
LIST (a page of a container listing):

    {"CREATE": 10, "READ": 60, "UPDATE": 5, "DELETE": 5, "HEAD": 15,
     "LIST": 5}                                   (missing keys weigh 0)

Both read as six weights in PROFILE_KEYS order (the order of
ssbench.OPERATION_TYPES), the list's HEAD and LIST 0.  The scenario
check (ssbench.load.scenariocheck), the stats file check and the reports
read a profile here, so that they agree on what one is.
"""
from __future__ import absolute_import, division, print_function

from ssbench.measure.finite import is_non_negative

PROFILE_KEYS = ('CREATE', 'READ', 'UPDATE', 'DELETE', 'HEAD', 'LIST')
# The weights of the list form: CREATE to DELETE.
CRUD_COUNT = 4


def weights(value):
    """The six weights (a tuple, PROFILE_KEYS order) of a profile in
    either form, or None when `value` is no profile."""
    if isinstance(value, list):
        if len(value) != CRUD_COUNT or not all(map(is_non_negative, value)):
            return None
        return tuple(value) + (0,) * (len(PROFILE_KEYS) - CRUD_COUNT)
    if isinstance(value, dict):
        if not set(value).issubset(PROFILE_KEYS) or \
                not all(map(is_non_negative, value.values())):
            return None
        return tuple(value.get(key, 0) for key in PROFILE_KEYS)
    return None


def extended(value):
    """True for a profile that gives HEAD or LIST a weight."""
    found = weights(value)
    return found is not None and any(found[CRUD_COUNT:])

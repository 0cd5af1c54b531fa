"""What the scan's cells are grouped and named by, shared by the 0.3.9
summary (classicstats) and the analysis outputs: the report's operation
groups, names as text, the order of size classes and the worst result of a
group of cells."""
from __future__ import absolute_import, division, print_function

from ssbench import OPERATION_TYPES
from ssbench.measure.profile import PROFILE_KEYS

# (label, CSV key, job type or None for all), in report order.  A group
# without results is left out, so a run without HEAD or LIST reports as
# 0.3.9 did.
GROUPS = (('TOTAL', 'total', None),) + tuple(
    (name, name.lower(), job) for name, job in zip(PROFILE_KEYS,
                                                   OPERATION_TYPES))
# Operations that move no object bytes: their bandwidth is N/A, not
# "not recorded".
NO_OBJECT_BYTES = frozenset(('delete', 'head', 'list'))


def as_text(value):
    """Names and trans ids as text, whatever the decoding left them."""
    if isinstance(value, bytes):
        return value.decode('utf-8', 'replace')
    return value


def worst_of(values, ids, cells):
    """(latency, trans_id) of the first result holding the max, or None.

    ``values[cell]`` is a cell's largest latency and ``ids[cell]`` the
    (sequence number, trans_id) of the first result holding it, or None.
    """
    best = None
    for cell in cells:
        if ids[cell] is None:
            continue
        candidate = (values[cell], -ids[cell][0], ids[cell][1])
        if best is None or candidate[:2] > best[:2]:
            best = candidate
    return None if best is None else (best[0], best[2])


def size_order(scenario_sizes, cells):
    """Sizes present among cells (objects with ``size`` and ``first_seen``):
    scenario order, then first appearance."""
    present = {}
    for cell_obj in cells:
        seen = present.get(cell_obj.size)
        if seen is None or cell_obj.first_seen < seen:
            present[cell_obj.size] = cell_obj.first_seen
    known = [name for name in scenario_sizes if name in present]
    extra = sorted((seq, name) for name, seq in present.items()
                   if name not in scenario_sizes)
    return known + [name for _, name in extra]

"""Small helpers shared by the bench/ scripts (run as `python bench/X.py`,
so this directory is on sys.path)."""
from __future__ import absolute_import, division, print_function


def median(values):
    """The median of a non-empty sequence (mean of the middle two)."""
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2

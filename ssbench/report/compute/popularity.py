"""Achieved object popularity: the share of the successful READs that
went to the most-read 1% and 10% of the objects (docs/analysis.rst).

Only a run whose scenario asked for a skewed popularity (skewed()) has its
reads counted per object: the count costs memory per object read, which a
uniform run, the default, does not pay.

The objects are those the run could read: the scenario's initial
population plus the objects its successful CREATEs made (at least those
read), so that a population read only in part counts its unread objects
as read zero times; the hottest k% are the ceil(k% of them) read most.
"""
from __future__ import absolute_import, division, print_function

import math

from ssbench.measure.finite import is_finite

# Fractions of the objects whose share of the reads the document gives.
FRACTIONS = (0.01, 0.1)


def skewed(scenario):
    """True when a scenario (its stats header's data) sets a popularity
    other than uniform, for the run or for one of its size classes."""
    if not isinstance(scenario, dict):
        return False
    found = [scenario.get('popularity')]
    sizes = scenario.get('sizes')
    if isinstance(sizes, list):
        found += [size.get('popularity') for size in sizes
                  if isinstance(size, dict)]
    return any(isinstance(entry, dict) and
               entry.get('kind') not in (None, 'uniform')
               for entry in found)


def initial_objects(scenario):
    """The initial population a scenario (its stats header's data) names:
    the sum of its initial_files counts, 0 when it names none."""
    initial = scenario.get('initial_files')
    if not isinstance(initial, dict):
        return 0
    return sum(int(count) for count in initial.values()
               if is_finite(count) and count > 0)


def section(scenario, reads, created):
    """The document's "popularity": `reads` maps each object read to its
    successful READs (None: not counted, as the run was not skewed, and
    then so is the section), `created` counts the successful CREATEs."""
    if reads is None:
        return None
    counts = sorted(reads.values(), reverse=True)
    total = sum(counts)
    objects = max(initial_objects(scenario) + created, len(counts))
    hottest = []
    for fraction in FRACTIONS:
        # Less a hair: 0.1 * 30 is 3.0000000000000004 in floats.
        top = max(1, int(math.ceil(fraction * objects - 1e-9)))
        hottest.append({
            'fraction': fraction,
            'objects': top,
            'share': sum(counts[:top]) / total if total else None,
        })
    return {'reads': total, 'objects_read': len(counts),
            'objects': objects, 'hottest': hottest}

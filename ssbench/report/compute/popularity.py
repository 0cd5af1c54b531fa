"""Achieved object popularity: the share of the successful READs that
went to the most-read 1% and 10% of the objects (docs/analysis.rst).

The objects are those the run could read: the scenario's initial
population plus the objects its successful CREATEs made (at least those
read), so that a population read only in part counts its unread objects
as read zero times; the hottest k% are the ceil(k% of them) read most.
"""
from __future__ import absolute_import, division, print_function

import math
import numbers

# Fractions of the objects whose share of the reads the document gives.
FRACTIONS = (0.01, 0.1)


def initial_objects(scenario):
    """The initial population a scenario (its stats header's data) names:
    the sum of its initial_files counts, 0 when it names none."""
    initial = scenario.get('initial_files')
    if not isinstance(initial, dict):
        return 0
    return sum(int(count) for count in initial.values()
               if isinstance(count, numbers.Real) and
               not isinstance(count, bool) and 0 < count < float('inf'))


def section(scenario, reads, created):
    """The document's "popularity": `reads` maps each object read to its
    successful READs, `created` counts the successful CREATEs."""
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

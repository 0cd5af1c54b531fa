"""Steady-state throughput: the spread of requests completed per second."""
from __future__ import absolute_import, division, print_function

from ssbench.measure.rank import RunLengths


def summarize(per_second):
    """Summary of (second, count) pairs, ascending, counts > 0.

    Every second from the first to the last counts, empty ones as 0;
    the first and the last second (partial: the run started or ended
    during them) are left out when at least 3 seconds exist.  Returns
    None without seconds, else the JSON document's "throughput" map.
    Memory is one entry per distinct count, whatever the run's length.
    """
    tally = {}
    first = last = None
    held = None  # the latest second's count, not yet known not to be last
    for second, count in per_second:
        if first is None:
            first = (second, count)
        elif held is not None:
            tally[held] = tally.get(held, 0) + 1
            held = count
        else:
            held = count
        last = second
    if first is None:
        return None
    seconds = last - first[0] + 1
    if seconds >= 3:
        seconds -= 2
    else:
        for count in (first[1], held):
            if count is not None:
                tally[count] = tally.get(count, 0) + 1
    zeros = seconds - sum(tally.values())
    if zeros:
        tally[0] = zeros
    values = sorted(tally)
    ranked = RunLengths([tally[v] for v in values], values.__getitem__)
    p25, median, p75 = [float(ranked.percentile(p)) for p in (25, 50, 75)]
    return {'seconds': seconds, 'fastest': float(values[-1]),
            'p75': p75, 'median': median, 'p25': p25,
            'slowest': float(values[0]), 'iqr': p75 - p25}

"""One latency series of the JSON document, exactly, from sorted runs."""
from __future__ import absolute_import, division, print_function

from ssbench.measure import loghist
from ssbench.measure.rank import percentile_name
from ssbench.results import sortedruns
from ssbench.report.compute.cells import as_text


def latency_entry(store, runs, worst, pctiles, size):
    """The map of one series: its values are the union of ``runs``.

    ``worst`` is (latency, trans_id) of the first result holding the
    series' largest latency (ssbench.report.compute.cells.worst_of), or
    None.  The statistics are those of ssbench.report.compute.classicstats (the
    same sorted runs, the same nearest-rank rule), so they equal the text
    report's.
    """
    entry = {'size': size, 'count': 0, 'min': None, 'max': None,
             'avg': None, 'std_dev': None, 'histogram': [],
             'worst_trans_id': None if worst is None else as_text(worst[1])}
    for pctile in pctiles:
        entry[percentile_name(pctile, '_')] = None
    moments = sortedruns.moments(runs)
    if moments is None:
        return entry
    n, lo, hi, mean, std_dev = moments
    entry.update(count=n, min=lo, max=hi, avg=mean, std_dev=std_dev)
    for pctile in pctiles:
        entry[percentile_name(pctile, '_')] = sortedruns.runs_percentile(
            store, runs, n, lo, hi, pctile)
    positive = lo if lo > 0 else sortedruns.next_after(store, runs, 0.0)
    entry['histogram'] = loghist.edge_histogram(
        lambda x: sortedruns.count_le(store, runs, x), positive, hi)
    return entry

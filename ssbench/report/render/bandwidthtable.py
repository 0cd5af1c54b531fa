"""Bandwidth as text, for `--bandwidth`: bytes per second by operation
and size class (ssbench.report.compute.bandwidth), printed after the
(unchanged) report."""
from __future__ import absolute_import, division, print_function

from ssbench.compat import write_text
from ssbench.report.compute.cells import GROUPS, NO_OBJECT_BYTES

_ROW = '%-9s %-20s %16s %10s %10s'


def _rate(value):
    return '-' if value is None else '%.2f' % (value,)


def _order(doc, sizes):
    """The size names of `sizes` in the scenario's order, then the
    others sorted."""
    named = [entry.get('name') for entry in
             (doc.get('scenario') or {}).get('sizes') or []
             if isinstance(entry, dict)]
    known = [name for name in named if name in sizes]
    return known + sorted(name for name in sizes if name not in known)


def bandwidth_lines(doc):
    """The table of an analysis document as a list of lines."""
    bandwidth = doc.get('bandwidth') or {}
    operations = bandwidth.get('operations') or {}
    seconds = bandwidth.get('seconds')
    lines = ['', 'Bandwidth (bytes of the successful operations / the '
             'run\'s %s seconds)' % (
                 '-' if seconds is None else '%.3f' % (seconds,)),
             '       MB/s: 1,000,000 bytes per second; MiB/s: 1,048,576 '
             'bytes per second']
    if not operations:
        return lines + ['       No successful operations.']
    lines.append('       ' + _ROW % ('Operation', 'Size class', 'Bytes',
                                     'MB/s', 'MiB/s'))
    for label, key, _ in GROUPS:
        entry = operations.get(key)
        if entry is None:
            continue
        sizes = entry.get('sizes') or {}
        rows = [('(all)', entry)] + [(size, sizes[size])
                                     for size in _order(doc, sizes)]
        for size, figures in rows:
            nbytes = figures.get('bytes')
            lines.append('       ' + _ROW % (
                label, size, nbytes if nbytes is not None else
                # A DELETE, HEAD or LIST moves no object bytes; 0.3.x
                # reads record none.
                'N/A' if key in NO_OBJECT_BYTES else 'not recorded',
                _rate(figures.get('MB_per_second')),
                _rate(figures.get('MiB_per_second'))))
            label = ''
    return lines


def render_bandwidth_table(doc, stream):
    """Write the table to a text stream."""
    write_text(stream, '\n'.join(bandwidth_lines(doc)) + '\n')

"""The Prometheus text format (0.0.4) and OpenMetrics (1.0.0) of metric
families, written here rather than by prometheus-client's encoders: those
cost some 30 us a sample, a scrape of a few hundred samples tens of
milliseconds of the endpoint's thread, which shares the GIL with the run
loop.  Here a sample's label text is made once per label set, and a line
is one string format.
"""
from __future__ import absolute_import, division, print_function

import math

OPENMETRICS = 'application/openmetrics-text'


class Family(object):
    """One metric: `name` (a counter's without _total), `kind` (counter,
    gauge or histogram), `help`, and samples (suffix, label text, value)
    in the order they are written."""

    __slots__ = ('name', 'kind', 'help', 'samples')

    def __init__(self, name, kind, help_text):
        self.name = name
        self.kind = kind
        self.help = help_text
        self.samples = []

    def add(self, labels, value, suffix=''):
        """A sample with `labels` (from labels_text()) and `value`."""
        self.samples.append((suffix, labels, value))


def _escape(value):
    return value.replace('\\', '\\\\').replace('\n', '\\n').replace(
        '"', '\\"')


def labels_text(pairs):
    """'{a="1",b="2"}' of (name, value) pairs, '' of none."""
    if not pairs:
        return ''
    return '{%s}' % ','.join('%s="%s"' % (name, _escape('%s' % (value,)))
                             for name, value in pairs)


def number(value):
    """A sample value as both formats write it (as Go's float
    formatting does: 3.0, 0.25, +Inf)."""
    value = float(value)
    if math.isinf(value):
        return '+Inf' if value > 0 else '-Inf'
    if math.isnan(value):
        return 'NaN'
    return repr(value)


def render(families, openmetrics=False):
    """The exposition of `families` (a list of Family), as bytes."""
    lines = []
    for family in families:
        name = family.name
        if family.kind == 'counter' and not openmetrics:
            title = name + '_total'
        else:
            title = name
        help_text = family.help.replace('\\', '\\\\').replace('\n', '\\n')
        if openmetrics:
            help_text = help_text.replace('"', '\\"')
        lines.append('# HELP %s %s\n# TYPE %s %s\n' % (
            title, help_text, title, family.kind))
        lines.extend('%s%s%s %s\n' % (name, suffix, labels, number(value))
                     for suffix, labels, value in family.samples)
    if openmetrics:
        lines.append('# EOF\n')
    return ''.join(lines).encode('utf-8')

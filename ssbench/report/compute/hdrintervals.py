"""The latencies of a stats file cut into intervals of completion time,
as HdrHistogram counts, for report-scenario --hdr-log
(docs/live-view.rst, "HdrHistogram interval log").

The values are those of the report's main percentiles: each success's
last-byte latency (a response time in an open-loop run), the warm-up
and results far outside the run left out (RecordView, as the analysis
reads them); a latency that is not above 0 is left out, as from the
report's series.  They are whole nanoseconds, counted in HdrHistogram's
buckets (Layout) for 3 significant digits.  Interval k holds the
results that completed in [k * seconds, (k + 1) * seconds) since the
epoch.  The histograms are kept per (interval, tag): tag None for every
operation, the report's operation label (CREATE, READ, ...) for each
known one, and "LABEL-first-byte" for its first-byte latencies where it
has some.
"""
from __future__ import absolute_import, division, print_function

import math

from ssbench.errors import StatsFileError
from ssbench.measure import record as spec
from ssbench.report.compute.cells import GROUPS
from ssbench.report.compute.openloop import open_loop
from ssbench.results.recordview import RecordView, narrow

NANOS = 10 ** 9
SIGNIFICANT_DIGITS = 3
LOWEST = 1
# The least highest trackable value a histogram declares: an hour, as
# HdrHistogram's own tools use.
HIGHEST = 3600 * NANOS
# A Java long holds the values.
LONG_MAX = (1 << 63) - 1
FIRST_BYTE = '-first-byte'

# (label, job type) of each known operation, in the report's order.
_LABELS = [(label, job) for label, _, job in GROUPS if job is not None]
# The tags of each job type: (last byte, first byte).
_TAGS = dict((job, (label, label + FIRST_BYTE)) for label, job in _LABELS)
# The tags of a job type no operation has: only the untagged line.
_UNKNOWN = (None, None)
# The order of a log's lines in each interval.
TAG_ORDER = ([None] + [label for label, _ in _LABELS] +
             [label + FIRST_BYTE for label, _ in _LABELS])
_KEYS = spec.keys('type', 'exception', 'completed_at', 'last_byte_latency',
                  'first_byte_latency')


class Layout(object):
    """HdrHistogram's bucket layout (its AbstractHistogram): the counts
    index of a value, for significant digits and a lowest discernible
    value."""

    def __init__(self, digits=SIGNIFICANT_DIGITS, lowest=LOWEST):
        self.digits = digits
        self.lowest = lowest
        # log2 of the sub-buckets, rounded up, that tell 2 * 10**digits
        # values apart; half of them start each bucket past the first.
        self.half_magnitude = max((2 * 10 ** digits - 1).bit_length(),
                                  1) - 1
        self.half_count = 1 << self.half_magnitude
        self.unit_magnitude = lowest.bit_length() - 1
        self.mask = (2 * self.half_count - 1) << self.unit_magnitude

    def index(self, value):
        """The counts-array index of a value (an integer >= 0)."""
        bucket = ((value | self.mask).bit_length() - self.unit_magnitude -
                  self.half_magnitude - 1)
        sub = value >> (bucket + self.unit_magnitude)
        return ((bucket + 1) << self.half_magnitude) + sub - self.half_count


class Histogram(object):
    """Counts per bucket index, and the largest value counted."""
    __slots__ = ('counts', 'max')

    def __init__(self):
        self.counts = {}
        self.max = 0


class Intervals(object):
    """The histograms of a stats file: `hists[(k, tag)]`, `seconds` per
    interval, `ks` the intervals that hold any value (ascending), and
    `tags` those that do, in TAG_ORDER."""

    def __init__(self, seconds):
        self.seconds = seconds
        self.layout = Layout()
        self.hists = {}
        self.ks = []
        self.tags = []


def cut(stats_file, seconds, skip=0):
    """The Intervals of a stats file (an open_stats() object), the first
    `skip` seconds of the run left out."""
    view = RecordView(stats_file, skip,
                      response=open_loop(stats_file.header))
    intervals = _cut(view, seconds)
    if narrow(view):
        intervals = _cut(view, seconds)
    return intervals


def _cut(view, seconds):
    intervals = Intervals(seconds)
    raw = view.raw_strings
    k_type, k_exc, k_completed, k_last, k_first = _KEYS[raw]
    tags = dict(((job.encode('ascii') if raw else job), pair)
                for job, pair in _TAGS.items())
    hists = intervals.hists
    index = intervals.layout.index
    floor = math.floor

    def count(key, nanos, i):
        hist = hists.get(key)
        if hist is None:
            hist = hists[key] = Histogram()
        counts = hist.counts
        counts[i] = counts.get(i, 0) + 1
        if nanos > hist.max:
            hist.max = nanos
    try:
        for batch in view.iter_batches(raw=raw):
            for result in batch:
                last = result.get(k_last)
                if not last or k_exc in result:
                    continue
                k = int(floor(result[k_completed] / seconds))
                tag, first_tag = tags.get(result.get(k_type), _UNKNOWN)
                # The untagged and the operation's line share the value.
                nanos = int(last * NANOS + 0.5)
                i = index(nanos)
                count((k, None), nanos, i)
                if tag is not None:
                    count((k, tag), nanos, i)
                    first = result.get(k_first)
                    if first:
                        nanos = int(first * NANOS + 0.5)
                        count((k, first_tag), nanos, index(nanos))
    except (TypeError, ValueError, OverflowError, KeyError) as exc:
        raise StatsFileError('%s: not a valid ssbench stats file: a result '
                             'has a bad value (%s)' % (view.path, exc))
    if hists:
        intervals.ks = sorted(set(k for k, _ in hists))
        present = set(tag for _, tag in hists)
        intervals.tags = [tag for tag in TAG_ORDER if tag in present]
        if max(hist.max for hist in hists.values()) > LONG_MAX:
            raise StatsFileError('%s: a latency is beyond what an '
                                 'HdrHistogram holds (2**63 ns)'
                                 % (view.path,))
    return intervals

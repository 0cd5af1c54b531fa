"""ssbench.store.segments: many requests timed as one operation."""
from __future__ import absolute_import, division, print_function

from ssbench.store.outcome import Timing
from ssbench.store.segments import Operation


def test_an_operation_names_the_endpoint_of_its_last_request():
    op = Operation()
    segment = Timing(201, None, 0.01, 'tx-seg', 0)
    segment.endpoint = 0
    manifest = Timing(201, None, 0.02, 'tx-man', 0)
    manifest.endpoint = 1
    op.add(segment, segment=True)
    timing = op.timing(op.add(manifest))
    assert (timing.endpoint, timing.trans_id) == (1, 'tx-man')

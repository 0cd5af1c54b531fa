"""The pause before a retry, with --retry-backoff (docs/internals.rst,
"Retries"): it doubles per retry, with jitter, up to a cap."""
from __future__ import absolute_import, division, print_function

# --retry-backoff without a value: the first retry waits 0.05-0.1 s, each
# later one twice as long, up to 1-2 s; ten retries span some 6-11 s.
DEFAULT_BACKOFF_BASE = 0.05
DEFAULT_BACKOFF_CAP = 2.0


def backoff_delay(retry, base, cap, draw):
    """Seconds to wait before retry number `retry` (1, 2, ...): half of
    min(cap, base * 2 ** (retry - 1)) plus a random share (`draw`, in
    [0, 1)) of the other half, so that requests failed together do not
    all come back together, and none comes back at once."""
    ceiling = min(cap, base * 2.0 ** min(retry - 1, 64))
    return ceiling * (1 + draw) / 2

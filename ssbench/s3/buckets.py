"""S3 bucket names for ssbench's containers.

Swift's containers are <container_base>_<6-digit index>_<policy label>
(ssbench.load.scenario).  A bucket name is 3 to 63 characters of a-z, 0-9,
'-' and '.', starting and ending with a letter or digit; bucket_name()
makes one of the same three parts: each lower-cased, every run of other
characters made one '-' (dots too: a dotted name breaks TLS in virtual-host
addressing), joined with '-', and the base cut short to fit.  Two bases
that differ only there (ssbench_a and SSBENCH-A) share their buckets.
"""
from __future__ import absolute_import

import re

from ssbench.errors import ScenarioError

MAX_LENGTH = 63
_OTHERS = re.compile(r'[^a-z0-9]+')
# What S3 keeps for itself at either end of a bucket name (its reserved
# ends with '--', such as xn--, cannot occur: runs become one '-').
RESERVED_PREFIXES = ('sthree-', 'amzn-s3-demo-')
RESERVED_SUFFIXES = ('-s3alias',)


def _part(text):
    return _OTHERS.sub('-', text.lower()).strip('-')


def bucket_name(container_base, index, policy_label):
    """The bucket of container `index`; ScenarioError when the parts give
    no valid name."""
    label = _part(policy_label)
    suffix = '-%06d-%s' % (index, label) if label else '-%06d' % index
    base = _part(container_base)[:MAX_LENGTH - len(suffix)].rstrip('-')
    if not base:
        raise ScenarioError(
            'container_base %r with policy %r gives no S3 bucket name: '
            'the base needs a letter or digit, and the whole at most %d '
            'characters' % (container_base, policy_label, MAX_LENGTH))
    name = str(base + suffix)
    reserved = [end for end in RESERVED_PREFIXES if name.startswith(end)] + \
        [end for end in RESERVED_SUFFIXES if name.endswith(end)]
    if reserved:
        raise ScenarioError('S3 bucket name %s (of container_base %r) '
                            'starts or ends with %r, which S3 reserves'
                            % (name, container_base, reserved[0]))
    return name

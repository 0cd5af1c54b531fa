"""The S3 options of run-scenario (and cleanup-containers): named as the
AWS command line names them.

--s3 selects the S3 API; --endpoint-url (or AWS_ENDPOINT_URL) says
where, --region (or AWS_REGION, AWS_DEFAULT_REGION; us-east-1) which
region signs, --s3-addressing path or virtual-host style, and
--s3-signed-payload signs each body's SHA-256 instead of sending
UNSIGNED-PAYLOAD.  The access key and the secret come from
AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY only: a flag would put the
secret on a command line, where any user of the host can read it.
"""
from __future__ import absolute_import, division, print_function

import os

from ssbench.compat import PY2
from ssbench.errors import AuthConfigError

if PY2:  # pragma: no cover - exercised by the 2.7 run of the suite
    from urlparse import urlsplit
else:
    from urllib.parse import urlsplit

DEFAULT_REGION = 'us-east-1'
ADDRESSING = ('path', 'virtual')


def add_s3_options(parser):
    """Add the S3 option group to `parser` (a subparser)."""
    group = parser.add_argument_group(
        'S3 API',
        'with --s3 the run speaks S3 instead of the Swift API; the access '
        'key and secret come from AWS_ACCESS_KEY_ID and '
        'AWS_SECRET_ACCESS_KEY (never from a flag)')
    group.add_argument(
        '--s3', action='store_true', default=False,
        help='Use the S3 API (Signature Version 4) instead of the Swift API')
    group.add_argument(
        '--endpoint-url', metavar='URL', default=None,
        help='The S3 endpoint, http(s)://HOST[:PORT] (default: '
        'AWS_ENDPOINT_URL)')
    group.add_argument(
        '--region', default=None,
        help='The region requests are signed for (default: AWS_REGION, '
        'else AWS_DEFAULT_REGION, else %s)' % DEFAULT_REGION)
    group.add_argument(
        '--s3-addressing', choices=ADDRESSING, default='path',
        help='Bucket in the path (http://HOST/BUCKET/KEY) or in the host '
        'name (http://BUCKET.HOST/KEY)')
    group.add_argument(
        '--s3-signed-payload', action='store_true', default=False,
        help='Sign each body\'s SHA-256 (costs the client a hash of every '
        'byte sent) instead of sending UNSIGNED-PAYLOAD')
    return group


class S3Settings(object):
    """What --s3 and the AWS_* variables say; `secret` is only for the
    master's ssbench.s3.keyring.KeyMaker, and never shown."""

    def __init__(self, endpoint_url, region, addressing, signed_payload,
                 access_key, secret):
        self.endpoint_url = endpoint_url
        self.region = region
        self.addressing = addressing
        self.signed_payload = signed_payload
        self.access_key = access_key
        self.secret = secret

    def __repr__(self):
        # Never the secret: a repr may end up in a log line.
        return 'S3Settings(%r, region=%r, addressing=%r, signed=%r, ' \
            'access_key=%r)' % (self.endpoint_url, self.region,
                                self.addressing, self.signed_payload,
                                self.access_key)

    def key_maker(self):
        """A new ssbench.s3.keyring.KeyMaker of these keys."""
        from ssbench.s3.keyring import KeyMaker
        return KeyMaker(self.access_key, self.secret, self.region)

    def header(self):
        """What a stats file's header says of the run's S3 side."""
        return {'endpoint_url': self.endpoint_url, 'region': self.region,
                'addressing': self.addressing,
                'payload': 'signed' if self.signed_payload else
                'UNSIGNED-PAYLOAD'}


def check_endpoint(url):
    """`url` without a trailing '/'; AuthConfigError unless it is
    http(s)://HOST[:PORT]."""
    try:
        parts = urlsplit(url)
        parts.port
    except ValueError as exc:
        raise AuthConfigError('--endpoint-url %r: %s' % (url, exc))
    if parts.scheme not in ('http', 'https') or not parts.hostname or \
            parts.path.strip('/') or parts.query or parts.fragment:
        raise AuthConfigError(
            '--endpoint-url %r is not http(s)://HOST[:PORT]' % (url,))
    return url.rstrip('/')


_ENDPOINT = 'AWS_ENDPOINT_URL'
_KEYS = ('AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY')
_REGIONS = ('AWS_REGION', 'AWS_DEFAULT_REGION')
# Every environment variable s3_from_args() reads, and the session token
# that goes with such keys: a local worker gets none of them (the master
# hands it a signing key for the day).
ENV_NAMES = (_ENDPOINT,) + _KEYS + _REGIONS + ('AWS_SESSION_TOKEN',)


def s3_from_args(args, env=None):
    """The S3Settings of parsed arguments and the environment, or None
    without --s3; AuthConfigError (one line) when the endpoint, the
    access key or the secret is missing."""
    if not getattr(args, 's3', False):
        return None
    if env is None:
        env = os.environ
    endpoint = args.endpoint_url or env.get(_ENDPOINT)
    if not endpoint:
        raise AuthConfigError('--s3 needs --endpoint-url (or '
                              'AWS_ENDPOINT_URL)')
    missing = [name for name in _KEYS if not env.get(name)]
    if missing:
        raise AuthConfigError('--s3 needs %s in the environment' %
                              ' and '.join(missing))
    region = args.region or env.get(_REGIONS[0]) or \
        env.get(_REGIONS[1]) or DEFAULT_REGION
    return S3Settings(check_endpoint(endpoint), region, args.s3_addressing,
                      args.s3_signed_payload, env[_KEYS[0]], env[_KEYS[1]])
